"""The grammar of ids the store keeps, in one place (the tools' id fields: docs/tools.md).

    model name   what a user may choose: 1-64 of [A-Za-z0-9_-], not starting with `model_`
    model id     <name>.<state>[.<suffix>...]: `.draft`, `.gf` (gapfilled), `.rev`, `.v2`, ...
    media name   what a user may choose: 1-64 of [A-Za-z0-9_-], not starting with `media_`
    media id     a media name, an automatic `media_<YYYYMMDD>_<HHMMSS>_<xxxxxx>`, or a predefined
                 medium's name; the store accepts 1-128 of [A-Za-z0-9_.-] (no leading dot)
    workspace    1-128 of [A-Za-z0-9_.-], no leading dot (safe as a folder name)
"""

from __future__ import annotations

import re
import secrets
import string

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

RANDOM_ALPHABET = string.ascii_lowercase + string.digits
NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
SUFFIX_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
MODEL_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}(?:\.[A-Za-z0-9_-]{1,32}){0,32}$")
MEDIA_ID_RE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$")
# Workspaces may name folders (a workspace's file area), so no separators, no leading dot.
WORKSPACE_RE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$")
MEDIA_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # a subset of MEDIA_ID_RE
MEDIA_RESERVED_PREFIX = "media_"
STATE_SUFFIX = {"draft": "draft", "gapfilled": "gf", "gf": "gf"}
RESERVED_PREFIX = "model_"


def random_token() -> str:
    return "".join(secrets.choice(RANDOM_ALPHABET) for _ in range(6))


def check_workspace(workspace: str) -> None:
    if not isinstance(workspace, str) or not WORKSPACE_RE.match(workspace):
        raise ValidationError(
            ErrorCode.INVALID_WORKSPACE,
            f"Workspace id {workspace!r} is not valid.",
            details={"provided": repr(workspace), "pattern": WORKSPACE_RE.pattern},
        )


def check_model_name(name: str) -> None:
    if not isinstance(name, str) or not NAME_RE.match(name) or name.startswith(RESERVED_PREFIX):
        reserved = isinstance(name, str) and name.startswith(RESERVED_PREFIX)
        raise ValidationError(
            ErrorCode.INVALID_MODEL_NAME,
            (
                f"Model name '{name}' starts with the reserved prefix '{RESERVED_PREFIX}' (used for automatic ids)."
                if reserved
                else f"Model name {name!r} is not valid: use 1-64 letters, digits, '_' or '-' (no dots or spaces)."
            ),
            details={"provided": name, "pattern": NAME_RE.pattern, "reserved_prefix": RESERVED_PREFIX},
            suggestions=[
                "Use a name such as 'E_coli_K12' or 'strain-42'; the state suffix (.draft) is added for you.",
                "Or omit the name to get an automatic id.",
            ],
        )


def check_model_id(model_id: str) -> None:
    if not isinstance(model_id, str) or not MODEL_ID_RE.match(model_id):
        raise ValidationError(
            ErrorCode.INVALID_MODEL_ID,
            f"Model id {model_id!r} is not valid.",
            details={"provided": repr(model_id), "pattern": MODEL_ID_RE.pattern},
        )


def check_community_id(community_id: str) -> None:
    """A community id: 1-128 letters, digits, '_', '-' or '.' (the media id grammar)."""
    if not isinstance(community_id, str) or not MEDIA_ID_RE.match(community_id):
        raise ValidationError(
            ErrorCode.INVALID_ID_FORMAT,
            f"Community id {community_id!r} is not valid: use 1-128 letters, digits, '_', '-' or '.'.",
            details={"provided": repr(community_id)[:140], "pattern": MEDIA_ID_RE.pattern},
            suggestions=["Use a name such as 'gut_mix', or omit it to get an automatic id."],
        )


def check_media_id(media_id: str) -> None:
    if not isinstance(media_id, str) or not MEDIA_ID_RE.match(media_id):
        raise ValidationError(
            ErrorCode.INVALID_MEDIA_NAME,
            f"Media id {media_id!r} is not valid: use 1-128 letters, digits, '_', '-' or '.'.",
            details={"provided": repr(media_id), "pattern": MEDIA_ID_RE.pattern},
            suggestions=["Use a name such as 'glucose_minimal', or omit it to get an automatic id."],
        )
