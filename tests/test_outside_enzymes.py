"""modeling/outside_enzymes.py: a genome with a broad outside phosphatase gets the outside
hydrolysis of the phosphate esters its template knows outside the cell, hydrolysing only, and a
cell can then take its phosphorus from them (checked with COBRApy on a small hand-made model)."""

from __future__ import annotations

import cobra
import pytest

from gem_flux_mcp.modeling.outside_enzymes import (
    NOTE,
    add_outside_phosphatases,
    broad_phosphatase_genes,
    hydrolysis_sides,
    outside_hydrolyses,
)
from models import toy_template

WATER, PI, H, PPI = "cpd00001", "cpd00009", "cpd00067", "cpd00012"
PG2, GLYCERATE, DTMP, THYMIDINE, G6P, GLC, AMP, ADO = ("cpd00482", "cpd00223", "cpd00298", "cpd00184",
                                                      "cpd00079", "cpd00027", "cpd00018", "cpd00182")
MAN6P, MANNOSE = "cpd00235", "cpd00138"
EC = {"rxn01282": ["3.1.3.20"], "rxn01145": ["3.1.3.35", "3.1.3.5"], "rxn00220": ["3.1.3.58", "3.1.3.9"],
      "rxn00132": ["3.1.3.5"], "rxn03167": ["3.1.3.1"], "rxn09999": ["2.7.1.1"]}


def template() -> object:
    """Cytosolic hydrolyses of 2-phosphoglycerate (written backwards), dTMP, glucose-6-phosphate,
    AMP and mannose-6-phosphate (no EC number, as in ModelSEED); a kinase-numbered reaction of the
    same shape."""
    return toy_template({
        "rxn01282": ({f"{PI}_c": -1, f"{GLYCERATE}_c": -1, f"{PG2}_c": 1, f"{WATER}_c": 1}, 1.0, "="),
        "rxn01145": ({f"{DTMP}_c": -1, f"{WATER}_c": -1, f"{THYMIDINE}_c": 1, f"{PI}_c": 1, f"{H}_c": 1}, 1.0, "="),
        "rxn00220": ({f"{G6P}_c": -1, f"{WATER}_c": -1, f"{GLC}_c": 1, f"{PI}_c": 1}, 1.0, ">"),
        "rxn00132": ({f"{AMP}_c": -1, f"{WATER}_c": -1, f"{ADO}_c": 1, f"{PI}_c": 1}, 1.0, "="),
        "rxn09999": ({f"{AMP}_c": -1, f"{WATER}_c": -1, f"{ADO}_c": 1, f"{PI}_c": 1}, 1.0, "="),
        "rxn08948": ({f"{MAN6P}_c": -1, f"{WATER}_c": -1, f"{MANNOSE}_c": 1, f"{PI}_c": 1}, 1.0, "="),
    }, (WATER, PI, H, PG2, GLYCERATE, DTMP, THYMIDINE, G6P, GLC, AMP, ADO, MAN6P, MANNOSE))


def outside_reaction(model: cobra.Model, rid: str, ester: str, product: str, gene: str) -> cobra.Reaction:
    def met(cid: str) -> cobra.Metabolite:
        mid = f"{cid}_e0"
        return model.metabolites.get_by_id(mid) if mid in model.metabolites else cobra.Metabolite(mid, compartment="e0")

    reaction = cobra.Reaction(rid, lower_bound=0, upper_bound=1000)
    reaction.add_metabolites({met(ester): -1, met(WATER): -1, met(product): 1, met(PI): 1})
    model.add_reactions([reaction])
    reaction.gene_reaction_rule = gene
    return reaction


def test_hydrolysis_sides_read_either_direction_and_refuse_other_shapes() -> None:
    assert hydrolysis_sides({PG2: -1, WATER: -1, GLYCERATE: 1, PI: 1, H: 1}) == (PG2, GLYCERATE, 1.0)
    assert hydrolysis_sides({PI: -1, GLYCERATE: -1, PG2: 1, WATER: 1}) == (PG2, GLYCERATE, -1.0)
    assert hydrolysis_sides({PG2: -1, WATER: -1, GLYCERATE: 1, PI: 2}) is None  # two phosphates
    assert hydrolysis_sides({PG2: -1, GLYCERATE: 1, PI: 1}) is None  # no water
    assert hydrolysis_sides({PG2: -1, DTMP: -1, WATER: -1, GLYCERATE: 1, PI: 1}) is None  # two esters
    assert hydrolysis_sides({PPI: -1, WATER: -1, PI: 2, H: 1}) == (PPI, PI, 1.0)  # diphosphate
    assert hydrolysis_sides({PPI: -1, WATER: -1, PI: 2, GLYCERATE: 1}) is None


def test_broad_genes_are_those_with_three_outside_esters_or_an_alkaline_phosphatase() -> None:
    model = cobra.Model("genes")
    outside_reaction(model, "rxn00132_e0", AMP, ADO, "broad")
    outside_reaction(model, "rxn01145_e0", DTMP, THYMIDINE, "broad or narrow")
    outside_reaction(model, "rxn00220_e0", G6P, GLC, "broad or narrow")
    alkaline = cobra.Reaction("rxn03167_c0")
    alkaline.add_metabolites({cobra.Metabolite("cpd00001_c0", compartment="c0"): -1})
    model.add_reactions([alkaline])
    alkaline.gene_reaction_rule = "phoA"
    assert broad_phosphatase_genes(model, EC) == {"broad", "phoA"}  # narrow has two esters only


def test_outside_hydrolyses_are_the_phosphatases_of_the_template() -> None:
    found = outside_hydrolyses(template(), EC)
    assert found == {"rxn01282_c": (PG2, -1.0), "rxn01145_c": (DTMP, 1.0), "rxn00220_c": (G6P, 1.0),
                     "rxn00132_c": (AMP, 1.0), "rxn08948_c": (MAN6P, 1.0)}  # not the kinase-numbered rxn09999


def small_cell(with_phoa: bool) -> cobra.Model:
    """A cell that needs phosphate (a biomass of cytosolic Pi), takes it up, and may have phoA."""
    model = cobra.Model("cell")
    pi_c, pi_e = cobra.Metabolite(f"{PI}_c0", compartment="c0"), cobra.Metabolite(f"{PI}_e0", compartment="e0")
    uptake = cobra.Reaction("rxn05145_c0", lower_bound=0, upper_bound=1000)
    uptake.add_metabolites({pi_e: -1, pi_c: 1})
    biomass = cobra.Reaction("bio1", lower_bound=0, upper_bound=1000)
    biomass.add_metabolites({pi_c: -1})
    model.add_reactions([uptake, biomass])
    model.objective = "bio1"
    if with_phoa:
        alkaline = cobra.Reaction("rxn03167_c0")
        alkaline.add_metabolites({cobra.Metabolite("cpd00001_c0", compartment="c0"): -1})
        model.add_reactions([alkaline])
        alkaline.gene_reaction_rule = "phoA"
    return model


def test_a_genome_with_alkaline_phosphatase_takes_phosphorus_from_esters_outside() -> None:
    model = small_cell(with_phoa=True)
    there = {m.id for m in model.metabolites}
    added = add_outside_phosphatases(model, template(), EC)
    assert sorted(added) == ["rxn00132_e0", "rxn00220_e0", "rxn01145_e0", "rxn01282_e0", "rxn08948_e0"]
    for rid in added:
        reaction = model.reactions.get_by_id(rid)
        assert reaction.compartments == {"e0"} and reaction.gene_reaction_rule == "phoA" and NOTE in reaction.notes
    # hydrolysing only: 2-phosphoglycerate's reaction is written backwards, so it runs backwards
    assert model.reactions.rxn01282_e0.bounds == (-1000.0, 0.0)
    assert model.reactions.rxn01145_e0.bounds == (0.0, 1000.0)
    assert add_outside_phosphatases(model, template(), EC) == []  # nothing twice
    made_outside = [m for m in model.metabolites if m.id not in there]  # named for where they are
    names = [m.name for m in made_outside if m.name]  # the toy water has none
    assert len(names) >= 8 and all(name.endswith(" [e0]") for name in names), names

    for metabolite in [m for m in model.metabolites if m.compartment == "e0"]:
        model.add_boundary(metabolite, type="exchange", lb=-1000.0 if metabolite.id == f"{WATER}_e0" else 0.0)
    assert model.slim_optimize(error_value=0.0) == 0.0  # no phosphorus source
    for ester in (PG2, DTMP, G6P, MAN6P):
        with model:
            model.reactions.get_by_id(f"EX_{ester}_e0").lower_bound = -1.0
            assert model.slim_optimize(error_value=0.0) == pytest.approx(1.0)
    with model:  # and no ester made from phosphate outside: the hydrolyses do not run backwards
        model.reactions.get_by_id(f"EX_{PI}_e0").lower_bound = -1.0
        model.reactions.get_by_id(f"EX_{GLYCERATE}_e0").lower_bound = -1.0
        model.objective = f"EX_{PG2}_e0"
        assert model.slim_optimize(error_value=0.0) == 0.0


def test_a_genome_without_one_gets_nothing() -> None:
    model = small_cell(with_phoa=False)
    assert add_outside_phosphatases(model, template(), EC) == []
    assert {r.id for r in model.reactions} == {"rxn05145_c0", "bio1"}
