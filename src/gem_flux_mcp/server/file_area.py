"""Which files a caller may read and write (import, export, build), and how paths are shown.

- The file area: the working directory by default, or the folders in GEMFLUX_ALLOWED_ROOTS
  (os.pathsep-separated). With HTTP tokens configured, each workspace gets its own sub-folder
  `<root>/<workspace>/` of every root and never sees another workspace's files.
- The server's own folders (state: database, WAL, lock, model files; cache: the biochemistry
  index) are never read or written through a tool, even when they lie inside the file area; the
  reference data folder is never written.
- Under tokens (a shared, remote server) answers never name an absolute server path: paths are
  shown relative to the workspace's file area and server folders by a placeholder. Without tokens
  the server is its user's own, and absolute paths are shown as given.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from gem_flux_mcp.config import Settings
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

ENV_ALLOWED_ROOTS = "GEMFLUX_ALLOWED_ROOTS"
MAX_PATH_CHARS = 1024
MAX_NAME_CHARS = 255  # one path component (file or folder name), the usual file-system limit


Payload = TypeVar("Payload", bound=dict[str, Any] | BaseModel)


@dataclass(frozen=True)
class FileArea:
    roots: tuple[Path, ...]  # where this caller may read and write; relative paths start at the first
    protected: tuple[tuple[Path, str], ...]  # (folder, placeholder): never read or written
    read_only: tuple[tuple[Path, str], ...]  # (folder, placeholder): never written
    per_workspace: bool  # tokens: the roots are this workspace's own sub-folders
    hidden: tuple[tuple[Path, str], ...] = ()  # further folders never named under tokens

    def resolve(self, raw: object, *, param: str, must_exist: bool, for_write: bool = False) -> Path:
        """The absolute path a user's path names, or a ValidationError saying why it is refused."""
        code = ErrorCode.__members__.get(f"INVALID_{param.upper()}", ErrorCode.INVALID_FILE_PATH)
        if not isinstance(raw, str) or not raw.strip():
            raise ValidationError(code, f"{param} must be a non-empty path string.",
                                  details={"provided": repr(raw)[:60]})
        text = raw.strip()
        if "\x00" in text:
            raise ValidationError(code, f"{param} contains a NUL byte.", details={})
        too_long = [part for part in Path(text).parts if len(part.encode("utf-8")) > MAX_NAME_CHARS]
        if len(text) > MAX_PATH_CHARS or too_long:
            raise ValidationError(
                code, f"{param} is too long: at most {MAX_PATH_CHARS} characters, and {MAX_NAME_CHARS} bytes "
                      "per file or folder name.",
                details={"length": len(text), "longest_name_bytes": max((len(p.encode()) for p in Path(text).parts),
                                                                         default=0)},
                suggestions=["Use a shorter file name."],
            )
        candidate = Path(text).expanduser()
        if not candidate.is_absolute():
            candidate = self.roots[0] / candidate
        path = candidate.resolve()  # follows symlinks, so a link cannot lead outside the area
        for folder, _ in self.protected + (self.read_only if for_write else ()):
            if path == folder or folder in path.parents:
                raise ValidationError(
                    ErrorCode.PATH_PROTECTED,
                    f"{param} '{self.show(path)}' is inside the server's own "
                    f"{'state or cache folder' if (folder, _) in self.protected else 'reference data'}, "
                    f"which tools never {'write' if for_write else 'read or write'}.",
                    details={"path": self.show(path)},
                    suggestions=["Choose a file in your file area (a relative path such as 'models/e_coli.xml')."],
                )
        if not any(path == root or root in path.parents for root in self.roots):
            raise ValidationError(
                ErrorCode.PATH_NOT_ALLOWED,
                f"{param} '{text if not self.per_workspace else self.show(path)}' is outside the folders this "
                "server may access.",
                details={"path": self.show(path), **self.describe()},
                suggestions=["Use a relative path: it starts in your file area.",
                             *([] if self.per_workspace else
                               [f"The server operator can widen access with {ENV_ALLOWED_ROOTS}."])],
            )
        if must_exist and not path.is_file():
            raise ValidationError(
                ErrorCode.FILE_NOT_FOUND if not path.exists() else ErrorCode.PATH_NOT_FILE,
                f"{param} '{self.show(path)}' {'does not exist' if not path.exists() else 'is not a file'}.",
                details={"path": self.show(path), **self.describe()},
                suggestions=["Check the path; relative paths start in your file area."],
            )
        if for_write:
            if path.is_dir():
                raise ValidationError(ErrorCode.PATH_NOT_FILE, f"{param} '{self.show(path)}' is a folder.",
                                      details={"path": self.show(path)},
                                      suggestions=["Name a file, e.g. 'model.xml'."])
            for root in self.roots:  # a workspace's own folder is made on its first write
                if root in path.parents:
                    root.mkdir(parents=True, exist_ok=True)
        return path

    def describe(self) -> dict[str, Any]:
        if self.per_workspace:
            return {"file_area": "your workspace's own folder; relative paths start there"}
        return {"allowed_roots": [str(r) for r in self.roots]}

    def show(self, path: Path | str) -> str:
        """How a path appears in an answer (see the module docstring)."""
        return self.scrub(str(path))

    def scrub(self, text: str) -> str:
        """Replace server folders in free text (messages, library errors) when under tokens."""
        if not self.per_workspace:
            return text
        for root in sorted(self.roots, key=lambda r: -len(str(r))):
            text = re.sub(re.escape(str(root)) + r"(?:/|(?=[^\w.-])|$)", "", text)
        hidden = sorted(self.protected + self.read_only + self.hidden, key=lambda item: -len(str(item[0])))
        for folder, placeholder in hidden:
            text = text.replace(str(folder), placeholder)
        return text

    def scrub_payload(self, payload: Payload) -> Payload:
        """`scrub` applied to every text of an answer, a dict or a result model (a no-op without
        tokens)."""
        if not self.per_workspace:
            return payload
        if isinstance(payload, BaseModel):
            fields = payload.model_dump(mode="json", exclude_unset=True)
            return type(payload).model_validate(self._scrub_value(fields))
        scrubbed: Payload = self._scrub_value(payload)
        return scrubbed

    def _scrub_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, dict):
            return {k: self._scrub_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub_value(v) for v in value]
        return value


def base_roots() -> list[Path]:
    configured = os.environ.get(ENV_ALLOWED_ROOTS)
    if configured:
        return [Path(p).expanduser().resolve() for p in configured.split(os.pathsep) if p.strip()]
    return [Path.cwd().resolve()]


def file_area(settings: Settings, workspace: str | None) -> FileArea:
    """The caller's file area: `workspace` is None without tokens (one local user)."""
    base = base_roots()
    roots = [root / workspace for root in base] if workspace is not None else base
    protected = ((settings.state_dir.resolve(), "<state folder>"), (settings.cache_dir.resolve(), "<cache folder>"))
    read_only = ((settings.data_dir.resolve(), "<data folder>"),)
    hidden = (*((root, "<server folder>") for root in base), (Path.home(), "<server folder>"))
    return FileArea(tuple(roots), protected, read_only, per_workspace=workspace is not None, hidden=hidden)
