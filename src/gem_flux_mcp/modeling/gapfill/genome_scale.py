"""Stage 2, genome-scale gapfilling: the cheapest template reactions that reach the target
growth on every medium asked for, re-solved with bans while an addition breaks an ATP or
no-carbon test."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling.fluxlp import SolverDeadline
from gem_flux_mcp.modeling.gapfill.changes import apply_changes
from gem_flux_mcp.modeling.gapfill.directions import open_both_ways
from gem_flux_mcp.modeling.gapfill.joint import search_on
from gem_flux_mcp.modeling.gapfill.network import (
    EMPTY_THRESHOLD,
    MAX_BAN_ROUNDS,
    AtpTest,
    GapfillOptions,
    Medium,
    Network,
    Progress,
    ReactionFacts,
)
from gem_flux_mcp.modeling.gapfill.steps import (
    Solution,
    atp_test_bounds,
    ban_until_passing,
    cheapest_completion,
    first_failing,
)

if TYPE_CHECKING:
    import cobra

# ---- stage 2: genome-scale ---------------------------------------------------------------------


@dataclass
class GenomeScaleResult:
    added: list[tuple[str, int]]  # new template reactions (reaction, direction)
    reversed: list[tuple[str, int]]  # model reactions opened in a new direction
    exchanges: list[str]
    banned: list[tuple[str, int, str]]  # (reaction, direction, which test it broke)
    cost: float
    integer_pass: bool
    lp_solves: int
    # transporters added in both directions (the second one not needed for growth; directions.py)
    both_ways: list[str] = field(default_factory=list)


def gapfill_genome_scale(model: cobra.Model, template: Any, media: Sequence[Medium], objective: str, target: float,
                         tests: list[AtpTest], atp_media: Mapping[str, Medium], carbon_free: Sequence[Medium],
                         options: GapfillOptions, excluded: set[str], discounts: Mapping[str, float],
                         deadline: SolverDeadline, progress: Progress,
                         facts: ReactionFacts | None = None) -> GenomeScaleResult | None:
    """Stage 2 in place on `model`: one cheapest set of template reactions with which the
    objective reaches `target` on every medium of `media` (joint.py). None when there is none."""
    facts = facts or ReactionFacts()
    net = Network(model, template, deadline, excluded=excluded, discounts=discounts,
                  reversibility=facts.reversibility, deltag=facts.deltag)
    target_column = net.col.get((objective, 1))
    if target_column is None:
        raise ValidationError(ErrorCode.OBJECTIVE_NOT_FORWARD, f"The objective {objective} cannot carry forward flux.")
    search = search_on(net, media, target_column, target)
    banned: set[int] = set()  # network columns
    banned_why: list[tuple[str, int, str]] = []
    pending_tests = list(tests)
    cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def solve(integer_pass: bool) -> Solution | None:
        return cheapest_completion(search, search.lower, search.upper, search.candidates, search.target_column,
                                   target, integer_pass, search.to_search(banned))

    for round_ in range(MAX_BAN_ROUNDS):
        progress("genomescale", 0.45 + min(round_, 10) * 0.03,
                 "solving the gapfilling LP" if round_ == 0 else f"re-solving without {len(banned)} banned reactions")
        # LP answers while banning: any subset of a passing answer passes too (closing columns
        # only lowers ATP and growth), so the integer pass runs once, at the end
        solution = solve(False)
        if solution is None:
            return None
        offenders = break_tests(net, search.to_network(solution.columns), pending_tests, atp_media, carbon_free,
                                 target_column, cache)
        if not offenders:
            break
        for offender, why in offenders:
            banned.add(offender)
            banned_why.append((net.fluxes[offender].reaction, net.fluxes[offender].direction, why))
    else:
        return None
    if options.integer_pass:
        progress("genomescale", 0.80, "integer pass: the cheapest subset of the LP answer")
        solution = solve(True) or solution
    chosen = search.to_network(solution.columns)
    other_ways, refused = open_both_ways(net, chosen, pending_tests, atp_media, carbon_free, target_column, cache)
    banned_why += [(net.fluxes[i].reaction, net.fluxes[i].direction, why) for i, why in refused]
    chosen = [*chosen, *other_ways]
    added = [(net.fluxes[i].reaction, net.fluxes[i].direction) for i in chosen if net.fluxes[i].kind == "template"]
    reversed_ = [(net.fluxes[i].reaction, net.fluxes[i].direction) for i in chosen if net.fluxes[i].kind == "reverse"]
    exchanges = apply_changes(model, template, added + reversed_, source="template_gapfill",
                              weak=discounts)
    return GenomeScaleResult(added, reversed_, exchanges, banned_why, solution.cost, solution.integer_pass,
                             net.lp.solves + (search.lp.solves if search.lp is not net.lp else 0),
                             sorted(net.fluxes[i].reaction for i in other_ways))


def break_tests(net: Network, chosen: list[int], tests: list[AtpTest], atp_media: Mapping[str, Medium],
                 carbon_free: Sequence[Medium], target_column: int,
                 cache: dict[str, tuple[np.ndarray, np.ndarray]]) -> list[tuple[int, str]]:
    """Chosen columns to ban so the answer passes the ATP tests and cannot grow without carbon.
    Tests run in order and stop at the first that needed bans; a test that failed moves to the
    front of `tests` (a new answer usually fails the same test), so the rounds stay cheap and
    only an answer that passes everything has been checked against every test."""
    checks = [(*atp_test_bounds(net, test, atp_media, cache, chosen), test.threshold) for test in tests]
    found = first_failing(net, net.atp_column, checks)
    while found is not None:
        k, most = found
        newly = ban_until_passing(net, checks[k][0], checks[k][1], list(chosen), net.atp_column, checks[k][2],
                                  max_rounds=20, most=most).closed
        if newly:
            tests.insert(0, tests.pop(k))
            return [(i, f"ATP test {tests[0].medium}") for i in newly]
        found = first_failing(net, net.atp_column, checks, k + 1)
    for without_carbon in carbon_free:
        lower, upper = net.bounds(without_carbon, allowed=chosen)
        newly = ban_until_passing(net, lower, upper, list(chosen), target_column, EMPTY_THRESHOLD,
                                  max_rounds=20).closed
        if newly:
            return [(i, "growth without carbon") for i in newly]
    return []
