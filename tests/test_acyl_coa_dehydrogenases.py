"""Acyl-CoA dehydrogenases oxidise only (modeling/acyl_coa_dehydrogenases.py): which reactions the
rule takes, on ModelSEED stoichiometries, what it does to a model's bounds and what gapfilling
may offer."""

from __future__ import annotations

import cobra
import pytest

from gem_flux_mcp.modeling.acyl_coa_dehydrogenases import acyl_coa_oxidation_sign, orient_acyl_coa_dehydrogenases
from gem_flux_mcp.modeling.gapfill.network import ReactionFacts, _offered_directions
from gem_flux_mcp.modeling.gapfill.run import orient_for_gapfilling

FAD, FADH2, H, CO2 = ("cpd00015_c0", "FAD"), ("cpd00982_c0", "FADH2"), ("cpd00067_c0", "H+"), ("cpd00011_c0", "CO2")
NAD, NADH = ("cpd00003_c0", "NAD"), ("cpd00004_c0", "NADH")
OCTANOYL_COA, OCTENOYL_COA = ("cpd01335_c0", "Octanoyl-CoA [c0]"), ("cpd03130_c0", "(2E)-Octenoyl-CoA [c0]")
STEAROYL_COA = ("cpd00327_c0", "strcoa [c0]")  # a BiGG-style name, as in some ModelSEED entries
OCTADECENOYL_COA = ("cpd15238_c0", "(2E)-Octadecenoyl-CoA [c0]")
GLUTARYL_COA, CROTONYL_COA = ("cpd00338_c0", "Glutaryl-CoA [c0]"), ("cpd00650_c0", "Crotonyl-CoA [c0]")
SUCCINATE, FUMARATE = ("cpd00036_c0", "Succinate [c0]"), ("cpd00106_c0", "Fumarate [c0]")
D_ALANINE, PYRUVATE, NH3 = ("cpd00117_c0", "D-Alanine"), ("cpd00020_c0", "Pyruvate"), ("cpd00013_c0", "NH3")

Species = tuple[str, str]
CASES: dict[str, tuple[dict[Species, float], int | None]] = {
    # FadE (rxn02679): FAD + octanoyl-CoA <=> FADH2 + (2E)-octenoyl-CoA
    "medium-chain acyl-CoA dehydrogenase": ({FAD: -1, OCTANOYL_COA: -1, FADH2: 1, OCTENOYL_COA: 1}, 1),
    # written the other way round: the reverse is the oxidation
    "written as a reduction": ({FADH2: -1, OCTENOYL_COA: -1, FAD: 1, OCTANOYL_COA: 1}, -1),
    "a BiGG-style name": ({FAD: -1, STEAROYL_COA: -1, FADH2: 1, OCTADECENOYL_COA: 1}, 1),
    # glutaryl-CoA dehydrogenase (rxn01802): decarboxylating, still an acyl-CoA oxidation by FAD
    "glutaryl-CoA dehydrogenase": ({FAD: -1, H: -1, GLUTARYL_COA: -1, CO2: 1, CROTONYL_COA: 1, FADH2: 1}, 1),
    # succinate dehydrogenase: FAD, but no CoA thioester (fumarate reductases stay as written)
    "succinate dehydrogenase": ({FAD: -1, SUCCINATE: -1, FUMARATE: 1, FADH2: 1}, None),
    # D-amino acid dehydrogenase: FAD, not a CoA thioester
    "D-amino acid dehydrogenase": ({FAD: -1, D_ALANINE: -1, ("cpd00001_c0", "H2O"): -1, PYRUVATE: 1, NH3: 1,
                                    FADH2: 1}, None),
    # an enoyl-CoA reductase paid by NADH is another enzyme, and may reduce
    "trans-enoyl-CoA reductase (NADH)": ({NADH: -1, H: -1, OCTENOYL_COA: -1, NAD: 1, OCTANOYL_COA: 1}, None),
    # flavin reductase: no organic substrate besides the carriers
    "NAD(P)H:flavin reductase": ({NADH: -1, H: -1, FAD: -1, NAD: 1, FADH2: 1}, None),
    # a transporter of an acyl-CoA with FAD in another compartment is not one compartment
    "two compartments": ({("cpd00015_e0", "FAD"): -1, OCTANOYL_COA: -1, FADH2: 1, OCTENOYL_COA: 1}, None),
}


def _reaction(stoichiometry: dict[Species, float], bounds: tuple[float, float] = (-1000.0, 1000.0)) -> cobra.Reaction:
    reaction = cobra.Reaction("rxn02679_c0")
    reaction.add_metabolites({cobra.Metabolite(mid, name=name, compartment=mid[-2]): c
                              for (mid, name), c in stoichiometry.items()})
    reaction.bounds = bounds
    return reaction


@pytest.mark.parametrize("name", list(CASES))
def test_which_reactions_are_acyl_coa_dehydrogenations(name: str) -> None:
    stoichiometry, expected = CASES[name]
    assert acyl_coa_oxidation_sign(_reaction(stoichiometry).metabolites) == expected


def test_a_draft_keeps_the_oxidation_and_a_reduction_only_direction_stays() -> None:
    model = cobra.Model("m")
    reversible = _reaction(CASES["medium-chain acyl-CoA dehydrogenase"][0])
    # butyryl-CoA dehydrogenase as the template writes it (rxn00872, '<'): the bifurcating Bcd-EtfAB
    butyryl = _reaction({FAD: -1, ("cpd00120_c0", "Butyryl-CoA [c0]"): -1, FADH2: 1, CROTONYL_COA: 1},
                        (-1000.0, 0.0))
    butyryl.id = "rxn00872_c0"
    reductase = _reaction(CASES["trans-enoyl-CoA reductase (NADH)"][0])
    reductase.id = "rxn_ter_c0"
    model.add_reactions([reversible, butyryl, reductase])
    assert orient_acyl_coa_dehydrogenases(model) == ["rxn02679_c0"]
    assert reversible.bounds == (0.0, 1000.0) and "acyl-CoA dehydrogenase" in reversible.notes["gemflux_direction"]
    assert butyryl.bounds == (-1000.0, 0.0) and reductase.bounds == (-1000.0, 1000.0)
    assert orient_acyl_coa_dehydrogenases(model) == []  # once is enough


def test_gapfilling_offers_the_oxidation_only_where_the_template_allows_both() -> None:
    stoichiometry = {"cpd00015_c0": -1.0, "cpd01335_c0": -1.0, "cpd00982_c0": 1.0, "cpd03130_c0": 1.0}
    assert _offered_directions("=", stoichiometry, oxidation=1) == (1,)
    assert _offered_directions("=", stoichiometry, oxidation=-1) == (-1,)
    assert _offered_directions("<", stoichiometry, oxidation=1) == (-1,)  # the template's reduction stays
    assert _offered_directions("=", stoichiometry) == (1, -1)  # not an acyl-CoA dehydrogenation


def test_gapfilling_closes_the_reduction_in_an_older_draft_first() -> None:
    model = cobra.Model("older")
    model.add_reactions([_reaction(CASES["medium-chain acyl-CoA dehydrogenase"][0])])
    *_, acyl_coa = orient_for_gapfilling(model, ReactionFacts())
    assert acyl_coa == ["rxn02679_c0"] and model.reactions.rxn02679_c0.bounds == (0.0, 1000.0)
