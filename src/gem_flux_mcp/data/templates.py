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
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.rules.catalog import AUTO_TEMPLATE, BUILD_TEMPLATE, TEMPLATE, TEMPLATE_NAMES

from ..errors import DataError
from .template_fixes import apply_template_fixes

BUILD_TEMPLATES = TEMPLATE_NAMES
ATP_TEMPLATE = "Core-V5.2"

_lock = threading.Lock()
_cache: dict[tuple[str, int, int], Any] = {}


def template_path(data_dir: Path, name: str) -> Path:
    return data_dir / "templates" / f"{name}.json"


def check_template_name(name: object, data_dir: Path, allow_auto: bool = False) -> str:
    """A template the data folder holds (for a build, also 'auto': both Gram templates held)."""
    chosen: str = (BUILD_TEMPLATE if allow_auto else TEMPLATE).check(name)
    if chosen == AUTO_TEMPLATE:
        for candidate in ("GramNegative", "GramPositive"):
            check_template_name(candidate, data_dir)
        return chosen
    if not template_path(data_dir, chosen).is_file():
        raise DataError(
            ErrorCode.TEMPLATE_LOAD_ERROR, f"Template file {chosen}.json is missing from the data folder.",
            details={"template": chosen}, suggestions=["Run `gem-flux data check`, then `gem-flux data fetch`."],
        )
    return chosen


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
