"""User-supplied file paths: resolved, and refused outside the allowed roots.

A model server should not read or write anywhere its client names: by default only the working
directory and the state folder (GEMFLUX_ALLOWED_ROOTS, os.pathsep-separated, widens it).
"""

from __future__ import annotations

import os
from pathlib import Path

from gem_flux_mcp.errors import ValidationError

ENV_ALLOWED_ROOTS = "GEMFLUX_ALLOWED_ROOTS"


def allowed_roots(state_dir: Path) -> list[Path]:
    configured = os.environ.get(ENV_ALLOWED_ROOTS)
    if configured:
        return [Path(p).expanduser().resolve() for p in configured.split(os.pathsep) if p.strip()]
    return [Path.cwd().resolve(), state_dir.resolve()]


def resolve_user_path(raw: object, roots: list[Path], *, param: str, must_exist: bool) -> Path:
    if not isinstance(raw, str) or not raw.strip():
        raise ValidationError(f"INVALID_{param.upper()}", f"{param} must be a non-empty path string.",
                              details={"provided": repr(raw)[:60]})
    text = raw.strip()
    if "\x00" in text:
        raise ValidationError(f"INVALID_{param.upper()}", f"{param} contains a NUL byte.", details={})
    candidate = Path(text).expanduser()
    if not candidate.is_absolute():
        candidate = roots[0] / candidate
    path = candidate.resolve()  # follows symlinks, so a link cannot lead outside the roots
    if not any(path == root or root in path.parents for root in roots):
        raise ValidationError(
            "PATH_NOT_ALLOWED",
            f"{param} '{text}' is outside the folders this server may access.",
            details={"resolved_path": str(path), "allowed_roots": [str(r) for r in roots]},
            suggestions=["Use a path inside one of allowed_roots (relative paths start at the first one).",
                         f"The server operator can widen access with {ENV_ALLOWED_ROOTS}."],
        )
    if must_exist and not path.is_file():
        raise ValidationError(
            "FILE_NOT_FOUND" if not path.exists() else "PATH_NOT_FILE",
            f"{param} '{text}' {'does not exist' if not path.exists() else 'is not a file'}.",
            details={"resolved_path": str(path)},
            suggestions=["Check the path; relative paths start at " + str(roots[0]) + "."],
        )
    return path
