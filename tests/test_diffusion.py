"""Passive diffusion (modeling/diffusion.py): the small uncharged compounds a draft has inside but
cannot move across its membrane get the template's diffusion, both ways, without a gene; acids
and compounds already transported are left alone; COBRApy then moves them in and out. Where the
template moves a permeant only with a proton, the database's reaction that moves it alone."""

from __future__ import annotations

from pathlib import Path

import cobra
import pytest

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.templates import load_template
from gem_flux_mcp.modeling.database_transport import database_index, moving_alone
from gem_flux_mcp.modeling.diffusion import NEUTRAL, NOTE, add_diffusion


def cell(*compounds: str) -> cobra.Model:
    """A model with cytosolic compounds and nothing else."""
    model = cobra.Model("cell")
    model.add_metabolites([cobra.Metabolite(f"{c}_c0", compartment="c0") for c in (*compounds, "cpd00067")])
    return model


@pytest.fixture(scope="module")
def template(data_dir: Path) -> object:
    return load_template(data_dir, "GramPositive")


def test_permeant_compounds_diffuse_both_ways(template: object) -> None:
    model = cell("cpd00157", "cpd00073", "cpd00029", "cpd00027")  # dihydroxyacetone, urea, acetate, glucose
    added = add_diffusion(model, template)
    reactions = [model.reactions.get_by_id(r) for r in added]
    moved = {m.id.split("_")[0] for r in reactions for m in r.metabolites}
    assert moved == {"cpd00157", "cpd00073"}  # not acetate (left to gapfilling), not glucose
    for reaction in reactions:
        assert reaction.bounds == (-1000.0, 1000.0) and not reaction.genes and reaction.notes[NOTE]
    # COBRApy moves urea in (up to the exchange's 10) and out (all the 5 the cell makes)
    model.add_boundary(model.metabolites.cpd00073_e0, type="exchange", lb=-10, ub=1000)
    inside = model.add_boundary(model.metabolites.cpd00073_c0, type="sink", lb=-5, ub=1000)
    model.objective = inside
    assert model.slim_optimize() == pytest.approx(10.0)
    model.objective_direction = "min"
    assert model.slim_optimize() == pytest.approx(-5.0)


def test_a_transported_compound_gets_no_diffusion(template: object) -> None:
    model = cell("cpd00073")
    carrier = cobra.Reaction("urea_carrier", lower_bound=0, upper_bound=1000)
    model.add_reactions([carrier])
    carrier.add_metabolites({cobra.Metabolite("cpd00073_e0", compartment="e0"): -1,
                             model.metabolites.cpd00073_c0: 1})
    assert add_diffusion(model, template) == []


def test_permeants_the_template_moves_only_with_a_proton_take_the_databases_reaction(
        template: object, biochem: BiochemIndex) -> None:
    # thymine, saligenin and hydroquinone: what thymidine, salicin and arbutin leave behind
    model = cell("cpd00151", "cpd01553", "cpd00415", "cpd00073")
    alone = moving_alone(model, NEUTRAL, database_index(biochem), biochem)
    assert {c: r.id for c, r in alone.items() if c in ("cpd00151", "cpd01553", "cpd00415")} == {
        "cpd00151": "rxn09309_c0", "cpd01553": "rxn40826_c0", "cpd00415": "rxn42691_c0"}
    assert add_diffusion(model, template) == ["rxn05667_c0"]  # urea alone, without the database
    added = add_diffusion(model, template, alone)
    assert sorted(added) == ["rxn09309_c0", "rxn40826_c0", "rxn42691_c0"]
    for rid in added:
        reaction = model.reactions.get_by_id(rid)
        (compound,) = {m.id.split("_")[0] for m in reaction.metabolites}  # the compound alone, no proton
        assert {m.compartment for m in reaction.metabolites} == {"c0", "e0"}
        assert reaction.bounds == (-1000.0, 1000.0) and not reaction.genes and "database" in reaction.notes[NOTE]
        # COBRApy moves the 5 the cell makes out, and takes up to the exchange's 10 in
        model.add_boundary(model.metabolites.get_by_id(f"{compound}_e0"), type="exchange", lb=-10, ub=1000)
        made = model.add_boundary(model.metabolites.get_by_id(f"{compound}_c0"), type="sink", lb=-5, ub=1000)
        model.objective = made
        model.objective_direction = "min"
        assert model.slim_optimize() == pytest.approx(-5.0)
        model.objective_direction = "max"
        assert model.slim_optimize() == pytest.approx(10.0)
        made.bounds = (0.0, 0.0)
