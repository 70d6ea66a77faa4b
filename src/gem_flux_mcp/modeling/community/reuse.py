"""The last community built in this process, lent to the next job on the same members.

A worker process runs jobs one after another: run_community on another medium or tradeoff,
community_knockouts, the limiting compounds, a batch's samples of the same members with other
abundances. Building a MICOM community of ten members takes about as long as its cooperative
tradeoff (~25 s each on 2 cores, benchmarks/community.py), and none of the building depends on
the medium, the tradeoff or the abundances. `community_of` lends the community built before for
the same members (the same ids and COBRApy JSON, in the same order), with the abundances asked for
set by MICOM's own `set_abundance`, inside a `with community:` block: every change a job makes
(medium, bounds, objective) is undone when the block ends. A community is kept again only when
the block ends normally; after an error the next job builds afresh. One community is kept per
process, and only one of at most MAX_KEPT_REACTIONS reactions (~20 members of our builds), so a
worker never holds more than a few hundred MB for it."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from gem_flux_mcp.modeling.community.members import SOLVER, Member, build_micom_community

if TYPE_CHECKING:
    import micom

MAX_KEPT_REACTIONS = 60_000
SAME_ABUNDANCE = 1e-12

_kept: dict[str, tuple[micom.Community, dict[str, str]]] = {}
_guard = threading.Lock()


def members_key(members: Sequence[Member], solver: str = SOLVER) -> str:
    """What a built community depends on: the members' ids and JSON, in order, and the solver."""
    digest = hashlib.sha256(solver.encode())
    for member in members:
        digest.update(b"\0" + member.model_id.encode() + b"\0"
                      + hashlib.sha256(member.model_json.encode()).digest())
    return digest.hexdigest()


@contextmanager
def community_of(members: Sequence[Member], community_id: str, solver: str = SOLVER
                 ) -> Iterator[tuple[micom.Community, dict[str, str], bool]]:
    """(the MICOM community of `members` with their abundances, {taxon: member id}, whether it was
    built before), for the length of the block; changes made in the block are undone after it."""
    key = members_key(members, solver)
    with _guard:
        kept = _kept.pop(key, None)
        _kept.clear()  # a community of other members goes before this one is built
    if kept is None:
        community, taxa = build_micom_community(members, community_id, solver)
    else:
        community, taxa = kept
        community.id = community_id
        _set_abundances(community, taxa, members)
    with community:
        yield community, taxa, kept is not None
    if len(community.reactions) <= MAX_KEPT_REACTIONS:
        with _guard:
            _kept.clear()
            _kept[key] = (community, taxa)


def forget() -> None:
    """Drop the community kept in this process."""
    with _guard:
        _kept.clear()


def _set_abundances(community: micom.Community, taxa: dict[str, str], members: Sequence[Member]) -> None:
    import pandas as pd

    wanted = pd.Series([m.abundance for m in members], index=list(taxa), dtype=float)
    wanted = wanted / wanted.sum()
    current = community.abundances.reindex(wanted.index)
    if (current - wanted).abs().max() > SAME_ABUNDANCE:
        community.set_abundance(wanted)
