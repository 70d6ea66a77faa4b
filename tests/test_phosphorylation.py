"""Phosphorylations one way (modeling/phosphorylation.py): which reactions the rule takes, on
ModelSEED stoichiometries and ΔG'° estimates, and what it does to bounds and gapfill candidates."""

from __future__ import annotations

import cobra
import pytest

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling.energy import runs_against
from gem_flux_mcp.modeling.gapfill.network import _offered_directions
from gem_flux_mcp.modeling.phosphorylation import orient_phosphorylations, phosphorylating_sign

H, ATP, ADP, AMP = "cpd00067_c0", "cpd00002_c0", "cpd00008_c0", "cpd00018_c0"
PEP, PYR = "cpd00061_c0", "cpd00020_c0"
DEOXYURIDINE, DUMP = "cpd00412_c0", "cpd00299_c0"
THYMIDINE_KINASE = {ATP: -1, DEOXYURIDINE: -1, ADP: 1, H: 1, DUMP: 1}  # rxn01518, ΔG'° -3.07 kcal/mol

CASES = {
    # thymidine kinase (rxn01518): ATP + deoxyuridine -> ADP + dUMP, downhill
    "nucleoside kinase": (THYMIDINE_KINASE, -3.07, 1),
    # the same written from the ester's side: its reverse spends ATP
    "written backwards": ({k: -v for k, v in THYMIDINE_KINASE.items()}, 3.07, -1),
    # dihydroxyacetone kinase, PEP-dependent (rxn00745): PEP + glycerone -> pyruvate + DHAP
    "PEP-dependent": ({PEP: -1, "cpd00157_c0": -1, PYR: 1, "cpd00095_c0": 1}, -9.7, 1),
    # glucokinase with GTP (another triphosphate)
    "GTP donor": ({"cpd00038_c0": -1, "cpd00027_c0": -1, "cpd00031_c0": 1, H: 1, "cpd00079_c0": 1}, -4.0, 1),
    # phosphoglycerate kinase (rxn01100): a carboxyl-phosphate, uphill in the ATP-spending direction
    "acyl phosphate": ({ATP: -1, "cpd00169_c0": -1, ADP: 1, "cpd00203_c0": 1}, 4.42, None),
    # adenylate kinase-like NMP kinase (rxn00119): a phosphoanhydride, near equilibrium
    "NMP kinase": ({ATP: -1, H: -1, "cpd00091_c0": -1, ADP: 1, "cpd00014_c0": 1}, -1.13, None),
    # glycerate 2-kinase (rxn08647): downhill, but less than the threshold
    "near equilibrium": ({ATP: -1, "cpd00223_c0": -1, ADP: 1, H: 1, "cpd00482_c0": 1}, -1.69, None),
    # no estimate: the template decides
    "no estimate": (THYMIDINE_KINASE, None, None),
    # pyruvate kinase: a donor pair on each side (energy.py's rule, not this one)
    "pyruvate kinase": ({ATP: -1, PYR: -1, ADP: 1, PEP: 1, H: 1}, 6.53, None),
    # PEP synthase spends ATP to AMP: no triphosphate-to-diphosphate pair
    "PEP synthase": ({ATP: -1, PYR: -1, "cpd00001_c0": -1, AMP: 1, PEP: 1, "cpd00009_c0": 1, H: 3}, 0.79, None),
    # a sugar kinase across the membrane is no reaction of one compartment
    "two compartments": ({ATP: -1, "cpd00027_e0": -1, ADP: 1, "cpd00079_c0": 1}, -4.0, None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_which_phosphorylations_run_one_way(name: str) -> None:
    stoichiometry, deltag, expected = CASES[name]
    assert phosphorylating_sign(stoichiometry, deltag) == expected


def test_the_model_keeps_only_the_donor_spending_direction() -> None:
    model = cobra.Model("m")
    mets = {m: cobra.Metabolite(m, compartment="c0") for m in {*THYMIDINE_KINASE, "cpd00091_c0", "cpd00014_c0"}}
    kinase = cobra.Reaction("rxn01518_c0", lower_bound=-1000, upper_bound=1000)
    kinase.add_metabolites({mets[k]: v for k, v in THYMIDINE_KINASE.items()})
    nmp_kinase = cobra.Reaction("rxn00119_c0", lower_bound=-1000, upper_bound=1000)
    nmp_kinase.add_metabolites({mets[ATP]: -1, mets["cpd00091_c0"]: -1, mets[ADP]: 1, mets["cpd00014_c0"]: 1})
    model.add_reactions([kinase, nmp_kinase])
    assert orient_phosphorylations(model, {"rxn01518": -3.07, "rxn00119": -1.13}) == ["rxn01518_c0"]
    assert kinase.bounds == (0.0, 1000)
    assert kinase.notes["gemflux_direction"].startswith("phosphorylation")
    assert nmp_kinase.bounds == (-1000, 1000) and "gemflux_direction" not in nmp_kinase.notes
    assert orient_phosphorylations(model, {"rxn01518": -3.07}) == []  # nothing left to change


def test_gapfilling_never_offers_the_atp_making_direction() -> None:
    assert _offered_directions("=", THYMIDINE_KINASE, deltag=-3.07) == (1,)
    assert _offered_directions("<", THYMIDINE_KINASE, deltag=-3.07) == ()
    assert _offered_directions("=", THYMIDINE_KINASE, deltag=None) == (1, -1)


def test_the_built_draft_never_remakes_atp_from_an_ester(ecoli: cobra.Model, biochem: BiochemIndex) -> None:
    """In the E. coli draft, thymidine kinase run backwards (dUMP + ADP -> deoxyuridine + ATP)
    fed a route around glyceraldehyde-3-phosphate dehydrogenase; no kinase the rule takes is left
    open in its ATP-making direction."""
    details = biochem.reaction_details({r.id.split("_")[0] for r in ecoli.reactions})
    taken = {}
    for reaction in ecoli.reactions:
        deltag = details.get(reaction.id.split("_")[0], {}).get("deltag")
        sign = phosphorylating_sign({m.id: c for m, c in reaction.metabolites.items()}, deltag)
        if sign is not None:
            taken[reaction.id] = sign
    assert len(taken) > 20
    assert [rid for rid, sign in taken.items() if runs_against(ecoli.reactions.get_by_id(rid), sign)] == []
    kinase = ecoli.reactions.get_by_id("rxn01518_c0")
    assert kinase.bounds == (0.0, 1000.0) and kinase.notes["gemflux_direction"].startswith("phosphorylation")
