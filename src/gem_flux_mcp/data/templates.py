"""ModelSEED model templates: names, files, and one parsed copy per process.

Parsing uses ModelSEEDpy's `MSTemplateBuilder` (0.6 s for GramNegative; imports ModelSEEDpy,
about 2.5 s). Only processes that build or gapfill pay for it: the server hands that work to a
worker process, so its own start-up stays fast.

Every parsed template carries the corrections of `template_fixes` (reactions left out because they
make mass from nothing, directions the template wrongly forbids, database reactions it lacks), each
with its reason; drafts, homology and gapfilling all see the corrected template.
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
from pathlib import Path
from typing import Any, Literal, get_args

from gem_flux_mcp.error_codes import ErrorCode

from ..errors import DataError, ValidationError
from .template_fixes import apply_template_fixes

TemplateName = Literal["GramNegative", "GramPositive", "Core"]
BUILD_TEMPLATES: tuple[str, ...] = get_args(TemplateName)
AUTO_TEMPLATE = "auto"  # build: chosen from the genome (modeling/gram.py)
TemplateChoice = Literal["GramNegative", "GramPositive", "Core", "auto"]
ATP_TEMPLATE = "Core-V5.2"

_lock = threading.Lock()
_cache: dict[tuple[str, int, int], Any] = {}


def template_path(data_dir: Path, name: str) -> Path:
    return data_dir / "templates" / f"{name}.json"


def check_build_template(name: object) -> str:
    return check_template_choice(name, allow_auto=True)


def check_template_name(name: object, data_dir: Path, allow_auto: bool = False) -> str:
    name = check_template_choice(name, allow_auto)
    if name == AUTO_TEMPLATE:
        for candidate in ("GramNegative", "GramPositive"):
            check_template_name(candidate, data_dir)
        return name
    if not template_path(data_dir, name).is_file():
        raise DataError(
            ErrorCode.TEMPLATE_LOAD_ERROR, f"Template file {name}.json is missing from the data folder.",
            details={"template": name}, suggestions=["Run `gem-flux data check`, then `gem-flux data fetch`."],
        )
    return name


def check_template_choice(name: object, allow_auto: bool = False) -> str:
    """One of BUILD_TEMPLATES (or, for a build, 'auto'), else INVALID_TEMPLATE with the closest name."""
    if allow_auto and name == AUTO_TEMPLATE:
        return AUTO_TEMPLATE
    if not isinstance(name, str) or name not in BUILD_TEMPLATES:
        lowered = str(name).lower().replace("-", "").replace("_", "")
        guess = [t for t in BUILD_TEMPLATES if t.lower() == lowered or lowered in t.lower()]
        raise ValidationError(
            ErrorCode.INVALID_TEMPLATE, f"Unknown template {name!r}.",
            details={"provided_template": name, "valid_templates": list(BUILD_TEMPLATES),
                     **({"did_you_mean": guess[0]} if guess else {})},
            suggestions=["Use GramNegative (default), GramPositive, Core, or auto (chosen from the genome)."],
        )
    return name


def import_modelseedpy() -> None:
    """Import ModelSEEDpy with its version banner (printed to stdout) kept off stdout, which
    belongs to the MCP protocol under stdio."""
    with contextlib.redirect_stdout(io.StringIO()):
        import modelseedpy  # noqa: F401


def load_template(data_dir: Path, name: str) -> Any:
    """The MSTemplate for `name`, parsed once per process and file version."""
    path = template_path(data_dir, name)
    try:
        stat = path.stat()
    except OSError as exc:
        raise DataError(ErrorCode.TEMPLATE_LOAD_ERROR, f"Template {name} is not readable: {exc}") from exc
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _lock:
        if key in _cache:
            return _cache[key]
        import_modelseedpy()
        from modelseedpy.core.mstemplate import MSTemplateBuilder

        try:
            with path.open() as handle:
                content = json.load(handle)
            fixed = apply_template_fixes(content, add_reactions=name != ATP_TEMPLATE)
            template = MSTemplateBuilder.from_dict(fixed).build()
        except (ValueError, KeyError, TypeError) as exc:
            raise DataError(ErrorCode.TEMPLATE_LOAD_ERROR, f"Template {name} could not be parsed: {exc}") from exc
        _cache[key] = template
        return template
