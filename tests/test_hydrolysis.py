"""Hydrolyses one way (modeling/hydrolysis.py): which reactions the rule takes, on ModelSEED
stoichiometries, and what it does to a model's bounds and to gapfilling's candidates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cobra
import pytest
from cobra.flux_analysis import single_gene_deletion

from gem_flux_mcp.modeling.gapfill.network import _offered_directions
from gem_flux_mcp.modeling.hydrolysis import hydrolysis_sign, orient_hydrolyses
from models import apply_exchange_medium, medium_of

H, H2O, PI = "cpd00067_c0", "cpd00001_c0", "cpd00009_c0"
NAD, NADH = "cpd00003_c0", "cpd00004_c0"
AMP, R5P, ADENINE = "cpd00018_c0", "cpd00101_c0", "cpd00128_c0"
ACYL_ACP, ACP, FATTY_ACID = "cpd15294_c0", "cpd11493_c0", "cpd15298_c0"
AMP_NUCLEOSIDASE = {H2O: -1, AMP: -1, R5P: 1, ADENINE: 1}  # rxn00131, ΔG'° -4.78 kcal/mol

CASES = {
    # AMP nucleosidase: AMP + H2O <=> ribose 5-phosphate + adenine; only the split
    "nucleosidase": (AMP_NUCLEOSIDASE, -4.78, 1),
    # written the other way round: the reverse takes up water
    "written as a condensation": ({R5P: -1, ADENINE: -1, H2O: 1, AMP: 1}, 4.78, -1),
    # fatty-acyl-ACP thioesterase (rxn08435): no estimate for ACP compounds, the chemistry decides
    "thioesterase without an estimate": ({H2O: -1, ACYL_ACP: -1, ACP: 1, FATTY_ACID: 1}, None, 1),
    # a phosphatase with the proton it releases: glucose 6-phosphate + H2O -> glucose + Pi
    "phosphatase": ({"cpd00079_c0": -1, H2O: -1, "cpd00027_c0": 1, PI: 1}, -3.0, 1),
    # fumarase: malate <=> fumarate + H2O, one molecule stays one (a hydration)
    "hydration": ({"cpd00130_c0": -1, "cpd00106_c0": 1, H2O: 1}, 0.9, None),
    # dihydroorotase: dihydroorotate + H2O <=> N-carbamoyl-L-aspartate + H+ (a ring opens)
    "ring opening": ({"cpd00282_c0": -1, H2O: -1, "cpd00343_c0": 1, H: 1}, None, None),
    # aldehyde dehydrogenase: acetaldehyde + NAD + H2O -> acetate + NADH + 2 H+ (an oxidation)
    "oxidation with water": ({"cpd00071_c0": -1, NAD: -1, H2O: -1, "cpd00029_c0": 1, NADH: 1, H: 2}, -11.0, None),
    # hydrogen peroxide reductase (thioredoxin): water is made; the reverse is no hydrolysis either
    "thiol redox": ({"cpd00025_c0": -1, "cpd11421_c0": -1, H2O: 2, "cpd11420_c0": 1}, None, None),
    # the estimate says splitting is uphill even at millimolar concentrations: the template decides
    "uphill estimate": ({"cpd00019_c0": -1, H2O: -1, "cpd00135_c0": 1, "cpd00182_c0": 1}, 5.0, None),
    # water across the membrane: not a reaction of one compartment
    "water transport": ({"cpd00001_e0": -1, H2O: 1}, None, None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_which_reactions_split_with_water_one_way(name: str) -> None:
    stoichiometry, deltag, expected = CASES[name]
    assert hydrolysis_sign(stoichiometry, deltag) == expected


def test_the_model_keeps_only_the_splitting_direction() -> None:
    model = cobra.Model("m")
    mets = {m: cobra.Metabolite(m, compartment="c0")
            for m in (H, H2O, AMP, R5P, ADENINE, "cpd00130_c0", "cpd00106_c0")}
    nucleosidase = cobra.Reaction("rxn00131_c0", lower_bound=-1000, upper_bound=1000)
    nucleosidase.add_metabolites({mets[k]: v for k, v in AMP_NUCLEOSIDASE.items()})
    fumarase = cobra.Reaction("rxn00799_c0", lower_bound=-1000, upper_bound=1000)
    fumarase.add_metabolites({mets["cpd00130_c0"]: -1, mets["cpd00106_c0"]: 1, mets[H2O]: 1})
    model.add_reactions([nucleosidase, fumarase])
    assert orient_hydrolyses(model, {"rxn00131": -4.78, "rxn00799": 0.9}) == ["rxn00131_c0"]
    assert nucleosidase.bounds == (0.0, 1000)
    assert nucleosidase.notes["gemflux_direction"].startswith("hydrolysis")
    assert fumarase.bounds == (-1000, 1000) and "gemflux_direction" not in fumarase.notes
    assert orient_hydrolyses(model, {"rxn00131": -4.78}) == []  # nothing left to change


def test_gapfilling_never_offers_the_joining_direction() -> None:
    assert _offered_directions("=", AMP_NUCLEOSIDASE, deltag=-4.78) == (1,)
    assert _offered_directions("<", AMP_NUCLEOSIDASE, deltag=-4.78) == ()
    assert _offered_directions("=", {"cpd00130_c0": -1, "cpd00106_c0": 1, H2O: 1}, deltag=0.9) == (1, -1)


# essential in vivo on glucose, bypassed by hydrolyses run backwards before the rule (as the
# shared E. coli proteome names them)
ESSENTIAL_ONCE_HYDROLYSES_SPLIT = {"gmk": "NP_418105.1", "murC": "NP_414633.1", "murE": "NP_414627.1"}


def test_genes_bypassed_by_reversed_hydrolyses_are_essential_on_glucose(ecoli_run: Any, data_dir: Path) -> None:
    """COBRApy's own single-gene deletions on the gapfilled E. coli model: with every hydrolysis
    one way, GTP no longer comes from guanosine and triphosphate (NTP triphosphohydrolase run
    backwards) and guanylate kinase is essential, as are the murein ligases murC and murE, as in
    vivo."""
    model = ecoli_run[0].model
    with model:
        apply_exchange_medium(model, medium_of(data_dir, "glucose_minimal_aerobic"))
        model.objective = "bio1"
        wild_type = model.slim_optimize()
        deletions = single_gene_deletion(model, gene_list=sorted(ESSENTIAL_ONCE_HYDROLYSES_SPLIT.values()),
                                         processes=1)
    growth = {next(iter(ids)): g for ids, g in zip(deletions["ids"], deletions["growth"], strict=True)}
    assert wild_type > 0.1
    assert {name: round(float(growth[gene]), 6) for name, gene in ESSENTIAL_ONCE_HYDROLYSES_SPLIT.items()} \
        == dict.fromkeys(ESSENTIAL_ONCE_HYDROLYSES_SPLIT, 0.0)
    triphosphohydrolase = model.reactions.get_by_id("rxn09016_c0")  # GTP + H2O -> guanosine + PPPi
    assert triphosphohydrolase.lower_bound == 0.0
    assert triphosphohydrolase.notes["gemflux_direction"].startswith("hydrolysis")
    with model:  # the hydrolyses the build made one-way, opened again: gmk is bypassed
        apply_exchange_medium(model, medium_of(data_dir, "glucose_minimal_aerobic"))
        model.objective = "bio1"
        for reaction in model.reactions:
            if reaction.notes.get("gemflux_direction", "").startswith("hydrolysis"):
                reaction.bounds = (-1000.0, 1000.0)
        model.genes.get_by_id(ESSENTIAL_ONCE_HYDROLYSES_SPLIT["gmk"]).knock_out()
        assert model.slim_optimize() > 0.1
