"""Flux variability in the library (`modeling.variability.flux_variability`), checked against
`cobra.flux_analysis.flux_variability_analysis` on the same model: the gapfilled E. coli model on
M9 glucose, COBRApy's textbook model, and a small model with known internal loops."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cobra
import pandas as pd
import pytest
from cobra.flux_analysis import flux_variability_analysis

from gem_flux_mcp.errors import InfeasibilityError, ValidationError
from gem_flux_mcp.modeling.variability import Variability, flux_variability
from models import apply_exchange_medium, medium_of, textbook

TOLERANCE = 1e-6


def snapshot(model: cobra.Model) -> tuple[Any, ...]:
    """What the analysis must leave as it found it."""
    return ({r.id: r.bounds for r in model.reactions}, str(model.objective.expression), model.objective.direction,
            len(model.constraints), len(model.variables))


def worst_difference(ours: Variability, reference: pd.DataFrame) -> float:
    assert list(ours.minimum) == list(reference.index) == list(ours.maximum)
    return max((max(abs(ours.minimum[r] - reference.at[r, "minimum"]),
                    abs(ours.maximum[r] - reference.at[r, "maximum"])) for r in reference.index), default=0.0)


@pytest.fixture(scope="module")
def ecoli_m9(ecoli_run: Any, data_dir: Path) -> Iterator[cobra.Model]:
    """The gapfilled E. coli model with M9 glucose applied by hand and bio1 as objective (undone afterwards)."""
    model: cobra.Model = ecoli_run[0].model
    with model:
        apply_exchange_medium(model, medium_of(data_dir, "glucose_minimal_aerobic"))
        model.objective = "bio1"
        yield model


@pytest.fixture(scope="module")
def ecoli_reference(ecoli_m9: cobra.Model) -> pd.DataFrame:
    return flux_variability_analysis(ecoli_m9, fraction_of_optimum=0.9, processes=2)


@pytest.mark.slow
def test_every_reaction_of_ecoli_equals_cobrapy(ecoli_m9: cobra.Model, ecoli_reference: pd.DataFrame) -> None:
    model = ecoli_m9
    before, optimum = snapshot(model), model.slim_optimize()
    calls: list[tuple[float, str, float, str]] = []

    def progress(stage: str, done: float, message: str) -> None:
        calls.append((time.monotonic(), stage, done, message))

    ours = flux_variability(model, fraction_of_optimum=0.9, progress=progress)
    assert snapshot(model) == before  # bounds, objective, direction, constraints
    assert model.slim_optimize() == pytest.approx(optimum, abs=1e-9) == ours.optimum
    assert len(ours.minimum) == len(model.reactions) > 1000
    assert worst_difference(ours, ecoli_reference) <= TOLERANCE
    assert ours.resolved == 0
    assert ours.solves < 2 * len(model.reactions)  # bounds reached by earlier solutions are not solved again
    assert all(stage == "variability" and 0 <= done <= 1 for _, stage, done, _ in calls)
    assert all(b[0] - a[0] >= 0.9 for a, b in itertools.pairwise(calls))  # about once a second at most


def test_a_subset_of_ecoli_reactions(ecoli_m9: cobra.Model, ecoli_reference: pd.DataFrame) -> None:
    wanted = ["bio1", *[r.id for r in ecoli_m9.reactions[10:40]], *[r.id for r in ecoli_m9.exchanges[:10]]]
    before = snapshot(ecoli_m9)
    ours = flux_variability(ecoli_m9, wanted + wanted[:3], fraction_of_optimum=0.9)  # repeats count once
    assert list(ours.minimum) == wanted
    assert worst_difference(ours, ecoli_reference.loc[wanted]) <= TOLERANCE
    assert snapshot(ecoli_m9) == before
    assert ours.solves <= 2 * len(wanted) + 1


@pytest.mark.parametrize("fraction", [0.0, 0.5, 0.9, 1.0])
def test_textbook_fractions_equal_cobrapy(fraction: float) -> None:
    model = textbook()
    before = snapshot(model)
    ours = flux_variability(model, fraction_of_optimum=fraction)
    assert snapshot(model) == before
    assert ours.optimum == pytest.approx(model.slim_optimize()) and ours.fraction_of_optimum == fraction
    reference = flux_variability_analysis(model, fraction_of_optimum=fraction, processes=1)
    assert worst_difference(ours, reference) <= TOLERANCE
    assert ours.maximum["Biomass_Ecoli_core"] == pytest.approx(ours.optimum)
    assert ours.minimum["Biomass_Ecoli_core"] == pytest.approx(fraction * ours.optimum)


def test_fixed_reactions_and_a_minimised_objective() -> None:
    model = textbook()
    with model:
        model.reactions.ATPM.bounds = (8.39, 8.39)  # lower == upper: no solve needed
        model.objective = "EX_glc__D_e"
        model.objective_direction = "min"  # optimum -10 (all glucose taken up); objective kept <= -9
        before = snapshot(model)
        ours = flux_variability(model, fraction_of_optimum=0.9)
        assert snapshot(model) == before
        reference = flux_variability_analysis(model, fraction_of_optimum=0.9, processes=1)
    assert ours.optimum == pytest.approx(-10.0)
    assert (ours.minimum["EX_glc__D_e"], ours.maximum["EX_glc__D_e"]) == (pytest.approx(-10), pytest.approx(-9))
    assert ours.minimum["ATPM"] == ours.maximum["ATPM"] == 8.39
    assert worst_difference(ours, reference) <= TOLERANCE


def test_another_solver_and_a_failing_direct_call_give_the_same_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    model = textbook()
    reference = flux_variability_analysis(model, fraction_of_optimum=0.9, processes=1)
    import swiglpk

    with monkeypatch.context() as patch:  # every direct GLPK solve "fails": each is solved again through optlang
        patch.setattr(swiglpk, "glp_simplex", lambda problem, parameters: swiglpk.GLP_EFAIL)
        failing = flux_variability(model, fraction_of_optimum=0.9)
    assert failing.resolved == failing.solves - 1 > 0
    assert worst_difference(failing, reference) <= TOLERANCE
    model.solver = "hybrid"  # HiGHS through optlang: no direct calls at all
    before = snapshot(model)
    other = flux_variability(model, fraction_of_optimum=0.9)
    assert snapshot(model) == before and other.resolved == 0
    assert worst_difference(other, reference) <= TOLERANCE


def loop_model() -> cobra.Model:
    """UPTAKE -> A, A -> B directly or through E, B -> GROWTH (the objective); C <-> D twice over.
    DIRECT with VIA_E1/VIA_E2 backwards is a loop, and so is L1 with L2 (which touch nothing else)."""
    model = cobra.Model("loops")
    a, b, c, d, e = (cobra.Metabolite(m, compartment="c") for m in "ABCDE")
    stoichiometry = {"UPTAKE": {a: 1}, "GROWTH": {b: -1}, "DIRECT": {a: -1, b: 1}, "VIA_E1": {a: -1, e: 1},
                     "VIA_E2": {e: -1, b: 1}, "L1": {c: -1, d: 1}, "L2": {d: -1, c: 1}}
    for reaction_id, metabolites in stoichiometry.items():
        reaction = cobra.Reaction(reaction_id, lower_bound=-1000, upper_bound=1000)
        reaction.add_metabolites(metabolites)
        model.add_reactions([reaction])
    model.reactions.UPTAKE.bounds = (0, 10)
    model.reactions.GROWTH.bounds = (0, 1000)
    model.objective = "GROWTH"
    return model


def test_loopless_removes_internal_loops() -> None:
    model = loop_model()
    before = snapshot(model)
    normal = flux_variability(model, fraction_of_optimum=0.9)
    loopless = flux_variability(model, fraction_of_optimum=0.9, loopless=True)
    assert snapshot(model) == before
    assert not normal.loopless and loopless.loopless and normal.optimum == loopless.optimum == pytest.approx(10)
    for reaction_id in ("L1", "L2"):
        assert (normal.minimum[reaction_id], normal.maximum[reaction_id]) == (-1000, 1000)
        assert loopless.minimum[reaction_id] == pytest.approx(0) and loopless.maximum[reaction_id] == pytest.approx(0)
        assert loopless.span(reaction_id) == pytest.approx(0)
    for reaction_id in ("DIRECT", "VIA_E1", "VIA_E2"):
        assert normal.maximum[reaction_id] == 1000 and normal.minimum[reaction_id] == pytest.approx(-991)
        assert (loopless.minimum[reaction_id], loopless.maximum[reaction_id]) == (pytest.approx(0), pytest.approx(10))
    for reaction_id in ("UPTAKE", "GROWTH"):  # no loop: the same either way
        assert (normal.minimum[reaction_id], normal.maximum[reaction_id]) == (pytest.approx(9), pytest.approx(10))
        assert (loopless.minimum[reaction_id], loopless.maximum[reaction_id]) == (pytest.approx(9), pytest.approx(10))


def test_loopless_textbook_equals_cobrapy() -> None:
    model = textbook()
    wanted = [r.id for r in model.reactions]
    before = snapshot(model)
    ours = flux_variability(model, wanted, fraction_of_optimum=0.9, loopless=True)
    assert snapshot(model) == before
    with pytest.warns(DeprecationWarning):
        reference = flux_variability_analysis(model, wanted, loopless=True, fraction_of_optimum=0.9, processes=1)
    assert worst_difference(ours, reference) <= TOLERANCE
    normal = flux_variability(model, fraction_of_optimum=0.9)
    assert all(normal.minimum[r] <= ours.minimum[r] + TOLERANCE and ours.maximum[r] <= normal.maximum[r] + TOLERANCE
               for r in wanted)  # loopless ranges lie inside the normal ones


def test_unknown_reactions_are_all_reported_at_once() -> None:
    model = textbook()
    with pytest.raises(ValidationError) as info:
        flux_variability(model, ["PGI", "no_such_1", "ATPM", "no_such_2"])
    assert info.value.code == "INVALID_REACTION"
    assert info.value.details["invalid_reactions"] == ["no_such_1", "no_such_2"]
    with pytest.raises(ValidationError):
        flux_variability(model, ["no_such_1"], loopless=True)


@pytest.mark.parametrize("fraction", [-0.1, 1.5, math.nan, True])
def test_fraction_outside_zero_to_one_is_refused(fraction: float) -> None:
    with pytest.raises(ValidationError) as info:
        flux_variability(textbook(), ["PGI"], fraction_of_optimum=fraction)
    assert info.value.code == "INVALID_THRESHOLD" and "fraction_of_optimum" in info.value.message


@pytest.mark.parametrize("loopless", [False, True])
def test_infeasible_model_raises(loopless: bool) -> None:
    model = textbook()
    with model:
        model.reactions.ATPM.lower_bound = 900  # far more maintenance than glucose can pay for
        before = snapshot(model)
        with pytest.raises(InfeasibilityError) as info:
            flux_variability(model, loopless=loopless)
        assert info.value.code == "MODEL_INFEASIBLE"
        assert snapshot(model) == before


def test_an_objective_bound_nothing_can_meet_raises() -> None:
    """A minimised objective with a positive optimum cannot be at most 0.9 x that optimum (COBRApy
    fails the same way): an error, never a number."""
    model = textbook()
    with model:
        model.objective = "ATPM"
        model.objective_direction = "min"  # optimum 8.39, its lower bound
        before = snapshot(model)
        with pytest.raises(InfeasibilityError):
            flux_variability(model, ["PGI", "ATPM"], fraction_of_optimum=0.9)
        assert snapshot(model) == before
        assert flux_variability(model, ["ATPM"], fraction_of_optimum=1.0).maximum["ATPM"] == pytest.approx(8.39)
