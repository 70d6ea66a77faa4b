"""Steps both gapfilling stages use on a Network: cheapest completion, bans until a test
passes, re-opening blocks made unnecessary, finding the offending direction."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from gem_flux_mcp.modeling.fluxlp import FluxLP
from gem_flux_mcp.modeling.gapfill.network import (
    ACTIVE,
    FLUX_MAX,
    INTEGER_PASS_LIMIT_S,
    MAX_OFFENDER_TRIALS,
    AtpTest,
    Medium,
    Network,
)

# ---- generic steps ----------------------------------------------------------------------------


class CostedLP(Protocol):
    """An LP whose columns have gapfilling costs: a Network, or several stacked (joint.py)."""

    lp: FluxLP
    costs: np.ndarray


@dataclass
class Solution:
    columns: list[int]
    cost: float
    integer_pass: bool = False


def cheapest_completion(net: CostedLP, lower: np.ndarray, upper: np.ndarray, candidates: np.ndarray,
                        target_column: int, target: float, integer_pass: bool,
                        banned: AbstractSet[int] = frozenset()) -> Solution | None:
    """Cheapest set of `candidates` columns giving `target` flux through `target_column`."""
    lower, upper = lower.copy(), upper.copy()
    upper[candidates] = FLUX_MAX
    upper[np.fromiter(banned, dtype=int)] = 0.0
    lower[target_column] = max(lower[target_column], target)
    costs = np.where(candidates, net.costs, 0.0)
    values = net.lp.solve(costs, lower, upper)
    if values is None:
        return None
    chosen = [int(i) for i in np.flatnonzero(candidates & (values > ACTIVE))]
    solution = Solution(chosen, float(sum(net.costs[i] for i in chosen)))
    if integer_pass and len(chosen) > 1:
        subset = net.lp.cheapest_subset(chosen, {i: float(net.costs[i]) for i in chosen}, lower,
                                        _only_open(upper, candidates, chosen), INTEGER_PASS_LIMIT_S)
        # re-checked as a plain LP: guards against the integrality tolerance
        if subset is not None and net.lp.solve(np.zeros(len(net.costs)), lower,
                                               _only_open(upper, candidates, subset)) is not None:
            solution = Solution(subset, float(sum(net.costs[i] for i in subset)), True)
    return solution


def _only_open(upper: np.ndarray, candidates: np.ndarray, keep: Iterable[int]) -> np.ndarray:
    """`upper` with every candidate column closed except those in `keep`."""
    closed = np.where(candidates, 0.0, upper)
    kept = np.fromiter(keep, dtype=int)
    closed[kept] = upper[kept]
    return closed


def with_open(upper: np.ndarray, columns: Iterable[int]) -> np.ndarray:
    upper = upper.copy()
    for i in columns:
        upper[i] = FLUX_MAX
    return upper


def with_closed(upper: np.ndarray, columns: np.ndarray) -> np.ndarray:
    upper = upper.copy()
    upper[columns] = 0.0
    return upper


def atp_test_bounds(net: Network, test: AtpTest, atp_media: Mapping[str, Medium],
                    cache: dict[str, tuple[np.ndarray, np.ndarray]],
                    opened: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """An ATP test's bounds on the network (kept in `cache` per medium) with `opened` columns open."""
    if test.medium not in cache:
        cache[test.medium] = net.bounds(atp_media[test.medium], atp_test=True)
    lower, upper = cache[test.medium]
    return lower, with_open(upper, opened)


def exceeds(value: float, threshold: float) -> bool:
    """Above a test's threshold by more than the solver's tolerance."""
    return value > threshold * (1 + 1e-6) + 1e-9


@dataclass
class Bans:
    """What `ban_until_passing` closed, and whether the test passes with them closed: True, False
    (it fails and no single suspect's closing helps), None (the rounds ran out before it was asked)."""

    closed: set[int]
    passing: bool | None


def ban_until_passing(net: Network, lower: np.ndarray, upper: np.ndarray, suspects: list[int],
                      target_column: int, threshold: float, max_rounds: int = 400, most: float | None = None) -> Bans:
    """Close suspect columns one at a time until the most flux through `target_column` is at
    most `threshold` (`most`: that flux under these bounds, when known already)."""
    banned: set[int] = set()
    upper = upper.copy()
    for _ in range(max_rounds):
        if most is None:
            most = net.lp.maximize(target_column, lower, upper)
        if not exceeds(most, threshold):
            return Bans(banned, True)
        # banned columns are closed (upper 0, and no column runs below 0), so they carry no flux;
        # leaving them among the suspects keeps the cost LP's objective the same every round,
        # and HiGHS starts each round from the last one's basis (fluxlp.FluxLP._instance)
        offender = find_offender(net, lower, upper, suspects, target_column, threshold, most)
        if offender is None:
            return Bans(banned, False)
        banned.add(offender)
        upper[offender] = 0.0
        most = None
    return Bans(banned, None)


def first_failing(net: Network, column: int, checks: Sequence[tuple[np.ndarray, np.ndarray, float]],
                  start: int = 0) -> tuple[int, float] | None:
    """The first of `checks` (lower, upper, threshold), from `start`, under which the most flux
    through `column` exceeds the threshold, with that flux; None when all pass. Solved two at a
    time (fluxlp's side thread): at most one solve more than asking them in turn."""
    for k in range(start, len(checks), 2):
        pair = checks[k:k + 2]
        for n, most in enumerate(net.lp.maximize_many(column, [(lower, upper) for lower, upper, _ in pair])):
            if exceeds(most, pair[n][2]):
                return k + n, most
    return None


def reopen_unneeded(net: Network, tests: list[AtpTest], media: Mapping[str, Medium], added: Iterable[int],
                    blocked: set[int], order: list[int], use_prices: bool = True,
                    origin: Mapping[int, int] | None = None) -> set[int]:
    """Blocking one direction per cycle, early blocks can become unnecessary once later ones
    close the same cycles: re-open each (last blocked first) if every test still passes.

    A test need not be solved again when its last solution proves it still passes: the most ATP
    is concave in the bounds, so it can rise by at most each re-opened direction's bound price
    times its bound (`use_prices=False` solves every test, for checking; the answer is the same).
    `origin` (column -> index of the test whose bans closed it) says which test to ask first: most
    blocks are still needed, and the test that needed one is the likeliest to fail again. The
    order of the tests changes how many are solved, not the answer: a block stays if any fails."""
    added = list(added)
    checks = [(test, *net.bounds(media[test.medium], allowed=added, atp_test=True)) for test in tests]
    kept = set(blocked)
    # per test: the most ATP at its last solve, bound prices there, and how much re-opening since
    # then may have added at most
    closed = np.fromiter(kept, dtype=int)
    proven: list[tuple[float, np.ndarray | None, float]] = [
        (most, prices, 0.0) for most, prices in net.lp.maximize_many_with_bound_prices(
            net.atp_column, [(lower, with_closed(upper, closed)) for _test, lower, upper in checks])
    ] if use_prices else [(np.inf, None, 0.0)] * len(checks)
    for i in reversed(order):
        kept.discard(i)
        closed = np.fromiter(kept, dtype=int)
        updated = list(proven)
        first = origin.get(i, 0) if origin else 0
        unproven = []
        for n in (first, *(n for n in range(len(checks)) if n != first)):
            most, prices, added_at_most = proven[n]
            rise = added_at_most + (prices[i] * checks[n][2][i] if prices is not None else np.inf)
            if most + rise <= checks[n][0].threshold:
                updated[n] = (most, prices, rise)
            else:
                unproven.append(n)
        # the tests their last solution does not prove until one fails: the likeliest to fail
        # alone, the others two at a time
        for pair in [unproven[:1], *(unproven[k:k + 2] for k in range(1, len(unproven), 2))]:
            answers = net.lp.maximize_many_with_bound_prices(
                net.atp_column, [(checks[n][1], with_closed(checks[n][2], closed)) for n in pair])
            if any(exceeds(most, checks[n][0].threshold) for n, (most, _) in zip(pair, answers, strict=True)):
                kept.add(i)
                break
            for n, (most, prices) in zip(pair, answers, strict=True):
                updated[n] = (most, prices, 0.0) if use_prices else (np.inf, None, 0.0)
        else:
            proven = updated
    return kept


def find_offender(net: Network, lower: np.ndarray, upper: np.ndarray, suspects: list[int],
                  target_column: int, threshold: float, most: float | None = None) -> int | None:
    """Which one of `suspects` (open columns) to close so flux through `target_column` drops
    below `threshold` (`most` = its current maximum): first the cheapest way above the threshold
    tells who takes part."""
    if most is None:
        most = net.lp.maximize(target_column, lower, upper)
    lower_t = lower.copy()
    # well above the threshold (fluxes of ~1e-6 would hide among solver tolerances), but feasible
    lower_t[target_column] = min(threshold + max(0.01 * threshold, 1.0), (threshold + most) / 2)
    costs = np.zeros(len(net.fluxes))
    for i in suspects:
        costs[i] = 1.0 + net.costs[i]
    values = net.lp.solve(costs, lower_t, upper)
    if values is None:
        return None
    active = [i for i in suspects if values[i] > ACTIVE]
    # a direction ModelSEED's thermodynamics says is impossible is closed first (e.g. an ABC
    # transporter running backwards): the one carrying most of that flux
    disfavored = [i for i in active if net.disfavored[i]]
    if disfavored:
        return max(disfavored, key=lambda i: (values[i], net.costs[i]))
    # then the step that runs most steeply uphill by its standard ΔG'°
    uphill = [i for i in active if net.uphill[i] > 0]
    if uphill:
        return max(uphill, key=lambda i: (net.uphill[i], net.costs[i]))
    # otherwise the one whose closing lowers the flux most (ties: the costliest)
    active.sort(key=lambda i: -net.costs[i])
    trials = active[:MAX_OFFENDER_TRIALS]
    lefts = net.lp.maximize_many(target_column, [(lower, with_closed(upper, np.array([i]))) for i in trials])
    keys = [(round(left, 6), -net.costs[i], i) for i, left in zip(trials, lefts, strict=True)]
    return min(keys)[2] if keys else None
