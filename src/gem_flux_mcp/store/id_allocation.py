"""Choosing a free id for a new model or medium; the grammar the ids follow is in ids.py.

Model ids:
    auto        model_<YYYYMMDD>_<HHMMSS>_<6 [a-z0-9]>.<state>  (local time)
    user name   <name>.<state>; name matches ^[A-Za-z0-9_-]{1,64}$ and may not start with `model_`
    derived     <parent>.gf (gapfill of `X.draft` -> `X.draft.gf`, of `X` -> `X.gf`); when that id
                is taken: <parent>.gf.v2, <parent>.gf.v3, ... (see `derived_model_id`). The `.gf`
                stays in the id, so the state read off the id stays "gapfilled".
Media ids chosen for the user: media_<YYYYMMDD>_<HHMMSS>_<6 [a-z0-9]> (local time).

An id is only reserved when its row is inserted (`INSERT ... ON CONFLICT DO NOTHING`): a
concurrent caller that takes it first, in this process or in another server on the same
database, makes the insert fail cleanly (MODEL_ID_EXISTS, DUPLICATE_NAME).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError, ValidationError
from gem_flux_mcp.store.db import Database
from gem_flux_mcp.store.ids import (
    RESERVED_PREFIX,
    STATE_SUFFIX,
    SUFFIX_RE,
    check_model_id,
    check_model_name,
    check_workspace,
    random_token,
)

MAX_LISTED_IDS = 50  # ids quoted in errors (a name taken, a model or medium not found)


def new_model_id(db: Database, workspace: str, base: str | None, state: str) -> str:
    """A free id: `model_<YYYYMMDD>_<HHMMSS>_<xxxxxx>.<state>` without a base, else `<base>.<state>`.

    `state` is "draft" (suffix `.draft`) or "gapfilled"/"gf" (suffix `.gf`, so the id reads as
    gapfilled). A base already used by any model in the workspace (`<base>.…`) is refused
    with DUPLICATE_NAME. The id is only reserved by `Store.add_model`; a concurrent caller that
    takes it first makes `add_model` raise MODEL_ID_EXISTS.
    """
    check_workspace(workspace)
    suffix = STATE_SUFFIX.get(state)
    if suffix is None:
        raise ValidationError(
            ErrorCode.INVALID_STATE,
            f"Unknown model state '{state}'.",
            details={"provided": state, "valid_values": sorted(STATE_SUFFIX)},
        )
    if base is None:
        for _ in range(100):
            stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
            candidate_base = f"{RESERVED_PREFIX}{stamp}_{random_token()}"
            if not db.model_ids_with_prefix(workspace, candidate_base + "."):
                return f"{candidate_base}.{suffix}"
        raise DatabaseError(ErrorCode.ID_EXHAUSTED, "Could not find a free automatic model id after 100 tries.")
    check_model_name(base)
    taken = [m for m in db.model_ids_with_prefix(workspace, base) if m == base or m.startswith(base + ".")]
    if taken:
        raise ValidationError(
            ErrorCode.DUPLICATE_NAME,
            f"A model named '{base}' already exists in this workspace ('{taken[0]}').",
            details={"name": base, "existing_model_id": taken[0], "existing_model_ids": taken[:MAX_LISTED_IDS]},
            suggestions=[f"Choose another model name (e.g. '{base}_2'), or omit it to get an automatic id."],
        )
    return f"{base}.{suffix}"


def new_media_id(db: Database, workspace: str) -> str:
    """A free `media_<YYYYMMDD>_<HHMMSS>_<xxxxxx>` (local time)."""
    check_workspace(workspace)
    for _ in range(100):
        candidate = f"media_{datetime.now().strftime('%Y%m%d_%H%M%S')}_{random_token()}"
        if not db.media_exists(workspace, candidate):
            return candidate
    raise DatabaseError(ErrorCode.ID_EXHAUSTED, "Could not find a free automatic media id after 100 tries.")


def derived_model_id(db: Database, workspace: str, parent_id: str, suffix: str = "gf",
                     reserved: Collection[str] = ()) -> str:
    """The id for a model derived from `parent_id`: `<parent>.<suffix>`, else `.v2`, `.v3`, ...

    Gapfilling `X.draft` gives `X.draft.gf`; gapfilling `X` gives `X.gf`. A second gapfill of the
    same parent (e.g. on another medium) gives `X.draft.gf.v2`, then `.v3`: the `.gf` stays in the
    id, so the state read off the id stays "gapfilled". With another suffix (e.g. "rev" for
    revisions) the state is inherited from the parent's id. Ids in `reserved` (promised to jobs
    still running) count as taken.
    """
    check_workspace(workspace)
    check_model_id(parent_id)
    if not SUFFIX_RE.match(suffix):
        raise ValidationError(
            ErrorCode.INVALID_SUFFIX,
            f"Suffix '{suffix}' must match {SUFFIX_RE.pattern}.", details={"provided": suffix}
        )
    base = f"{parent_id}.{suffix}"
    taken = set(db.model_ids_with_prefix(workspace, base)) | set(reserved)
    if base not in taken:
        return base
    version = 2
    while f"{base}.v{version}" in taken:
        version += 1
    return f"{base}.v{version}"
