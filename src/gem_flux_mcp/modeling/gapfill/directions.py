"""Both directions for the transporters gapfilling adds, where the chemistry allows them.

Gapfilling finds the directions growth needs; a transporter is added for one of them. But a
proton symport, a uniport or an antiport runs either way in the cell (the database calls it
reversible), and the other way is often what the organism does with it: FT medium offers
acetate, so the acetate-proton symport is added to take it up, and a fermenting cell then cannot
secrete the acetate it makes. So each template transporter added in one direction gets the
other as well when ModelSEED's reversibility allows it ('=' or unknown), unless that direction
breaks an ATP test or lets the model grow without carbon (two transporters of one compound with
different proton stoichiometries, both reversible, would pump protons for nothing). ATP-driven
transporters never get their ATP-making direction: the Network does not offer it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from gem_flux_mcp.modeling.gapfill.network import EMPTY_THRESHOLD, AtpTest, Medium, Network
from gem_flux_mcp.modeling.gapfill.steps import (
    Bans,
    atp_test_bounds,
    ban_until_passing,
    exceeds,
    first_failing,
    with_closed,
)


def other_directions(net: Network, chosen: Sequence[int]) -> list[int]:
    """Template transporter columns opposite to chosen ones, where the database says reversible."""
    picked = {(net.fluxes[i].reaction, net.fluxes[i].direction) for i in chosen}
    found = []
    for i in chosen:
        flux = net.fluxes[i]
        if flux.kind != "template" or flux.reaction not in net.transport:
            continue
        opposite = net.col.get((flux.reaction, -flux.direction))
        if opposite is not None and (flux.reaction, -flux.direction) not in picked \
                and net.reversible_in_database(flux.reaction):
            found.append(opposite)
    return sorted(set(found))


def open_both_ways(net: Network, chosen: Sequence[int], tests: Sequence[AtpTest], atp_media: Mapping[str, Medium],
                   carbon_free: Sequence[Medium], target_column: int,
                   cache: dict[str, tuple[np.ndarray, np.ndarray]]) -> tuple[list[int], list[tuple[int, str]]]:
    """The opposite directions of `chosen` transporters that pass every test with `chosen` open,
    and those refused (column, which test it broke)."""
    extra = other_directions(net, chosen)
    refused: list[tuple[int, str]] = []
    if not extra:
        return [], refused
    # a test that passes with every extra direction open passes with fewer: the tests are asked
    # two at a time, and bans sought only for those that fail (the others would find none)
    k = 0
    while extra:
        checks = [(*atp_test_bounds(net, test, atp_media, cache, [*chosen, *extra]), test.threshold)
                  for test in tests[k:]]
        if (found := first_failing(net, net.atp_column, checks)) is None:
            break
        n, most = found
        test = tests[k + n]
        lower, upper, _ = checks[n]
        bans = ban_until_passing(net, lower, upper, extra, net.atp_column, test.threshold, max_rounds=len(extra),
                                 most=most)
        extra, refused = _drop(net, lower, upper, extra, bans, net.atp_column, test.threshold,
                               f"ATP test {test.medium}", refused)
        k += n + 1
    for without_carbon in carbon_free:
        if not extra:
            break
        lower, upper = net.bounds(without_carbon, allowed=[*chosen, *extra])
        bans = ban_until_passing(net, lower, upper, extra, target_column, EMPTY_THRESHOLD, max_rounds=len(extra))
        extra, refused = _drop(net, lower, upper, extra, bans, target_column, EMPTY_THRESHOLD,
                               "growth without carbon", refused)
    return extra, refused


def _drop(net: Network, lower: np.ndarray, upper: np.ndarray, extra: list[int], bans: Bans, column: int,
          threshold: float, why: str, refused: list[tuple[int, str]]) -> tuple[list[int], list[tuple[int, str]]]:
    """`extra` less the banned columns; all of it when the test still fails without them (the
    ban loop found no single offender)."""
    banned = bans.closed
    kept = [i for i in extra if i not in banned]
    if kept:
        failing = not bans.passing if bans.passing is not None else exceeds(
            net.lp.maximize(column, lower, with_closed(upper, np.fromiter(sorted(banned), dtype=int))), threshold)
        if failing:
            banned, kept = banned | set(kept), []
    return kept, refused + [(i, why) for i in sorted(banned)]
