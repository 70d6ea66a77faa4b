"""Model helpers that replace COBRApy calls for memory reasons must agree with COBRApy."""

from __future__ import annotations

from cobra.io import load_model
from cobra.util.solver import linear_reaction_coefficients

from gem_flux_mcp.modeling.model_io import objective_reaction_ids, summarize
from gem_flux_mcp.modeling.solver_memory import release_model


def test_objective_ids_match_cobrapy() -> None:
    model = load_model("textbook")
    assert objective_reaction_ids(model) == [r.id for r in linear_reaction_coefficients(model)]
    model.objective = {model.reactions.ATPM: 1, model.reactions.PGK: 2}
    assert sorted(objective_reaction_ids(model)) == ["ATPM", "PGK"]
    assert summarize(model)["objective"] == objective_reaction_ids(model)


def test_release_frees_the_glpk_problem() -> None:
    model = load_model("textbook")
    assert model.solver.problem is not None
    release_model(model)
    assert model.solver.problem is None
    release_model(model)  # twice is harmless
