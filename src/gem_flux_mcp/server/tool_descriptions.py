"""What each tool publishes (description, input and output schemas), kept in the cache folder
between starts.

FastMCP derives a tool's description and input schema from its signature and docstring
(evaluating the string annotations, a pydantic TypeAdapter of the arguments, a JSON schema), and
our output schema is generated from the tool's result model: ~0.2-0.3 s for the 35 tools, most of
the time `gem-flux serve` spends beyond a bare FastMCP server before it answers. These depend only
on the package's code and the libraries' versions, so the first start writes them to one file,
named by a key made of those versions and the size and modification time of every module of the
package (the rule Python itself uses to trust its bytecode), and later starts build each tool from
the file. A missing, unreadable or foreign file means they are derived again; nothing is trusted
across a change of code or library. The argument validator FastMCP needs to run a tool is built on
the tool's first call, as FastMCP does for every tool.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import sys
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.dependencies import transform_context_annotations
from fastmcp.tools.function_tool import FunctionTool
from fastmcp.utilities.tasks import TaskConfig
from mcp_types import ToolAnnotations

from gem_flux_mcp.fsutil import atomic_write_text

log = logging.getLogger(__name__)

PACKAGE = Path(__file__).resolve().parents[1]
LIBRARIES = ("fastmcp", "mcp", "pydantic", "pydantic_core")
FORMAT = 1  # bump when what a file holds changes
PUBLISHED = ("description", "parameters", "output_schema")


def code_key(package: Path = PACKAGE) -> str:
    """A digest of what the published descriptions are derived from: this file's format, the
    Python and libraries' versions, and each module's path, size and modification time."""
    digest = hashlib.sha256(f"{FORMAT} {sys.version}".encode())
    for name in LIBRARIES:
        digest.update(f" {name}={importlib.metadata.version(name)}".encode())
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        digest.update(f"\n{path.relative_to(package)} {stat.st_size} {stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:24]


class ToolDescriptions:
    """Makes each tool of one app, from the kept file when it holds the tool, by FastMCP otherwise;
    `save()` keeps what was derived."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.kept: dict[str, dict[str, Any]] = self._read(path) if path is not None else {}
        self.derived = False

    @classmethod
    def in_cache(cls, cache_dir: Path | None) -> ToolDescriptions:
        """The descriptions kept in `cache_dir` for this code (none kept: None or no file)."""
        return cls(cache_dir / f"tool-descriptions-{code_key()}.json" if cache_dir is not None else None)

    @staticmethod
    def _read(path: Path) -> dict[str, dict[str, Any]]:
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("tool descriptions in %s not read (%s): derived again", path, exc)
            return {}
        if not isinstance(kept, dict) or not all(
                isinstance(entry, dict) and set(entry) == set(PUBLISHED) for entry in kept.values()):
            log.warning("tool descriptions in %s are not in the expected form: derived again", path)
            return {}
        return kept

    def make(self, fn: Callable[..., Any], name: str, annotations: dict[str, Any],
             output_schema: Callable[[], dict[str, Any]]) -> FunctionTool:
        """The tool `name` running `fn`, as `FunctionTool.from_function` makes it with the
        output schema `output_schema()` (the same object either way: tests/test_tool_descriptions.py)."""
        entry = self.kept.get(name)
        if entry is None:
            made = FunctionTool.from_function(fn, name=name, annotations=ToolAnnotations(**annotations),
                                              output_schema=output_schema(), task=False, run_in_thread=True)
            self.kept[name] = {field: getattr(made, field) for field in PUBLISHED}
            self.derived = True
            return made
        # what from_function does besides deriving the schemas: the Context parameters become
        # dependencies (the same function object, its signature rewritten); task=False
        return FunctionTool(fn=transform_context_annotations(fn), name=name,
                            annotations=ToolAnnotations(**annotations), task_config=TaskConfig.from_bool(False),
                            run_in_thread=True, **entry)

    def save(self) -> None:
        """Keep the descriptions derived in this process (atomically; a cache folder that cannot
        be written only costs the next start the time)."""
        if self.path is None or not self.derived:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, json.dumps(self.kept))
        except OSError as exc:
            log.warning("tool descriptions not kept in %s: %s", self.path, exc)
        self.derived = False


_OF_APP: weakref.WeakKeyDictionary[FastMCP, ToolDescriptions] = weakref.WeakKeyDictionary()


def attach(mcp: FastMCP, descriptions: ToolDescriptions) -> None:
    """Make the tools registered on `mcp` from now on with `descriptions` (`of(mcp)`)."""
    _OF_APP[mcp] = descriptions


def of(mcp: FastMCP) -> ToolDescriptions:
    """The descriptions attached to `mcp`; none kept if none were attached."""
    found = _OF_APP.get(mcp)
    if found is None:
        found = _OF_APP[mcp] = ToolDescriptions(None)
    return found
