"""Decarboxylations one way (modeling/decarboxylation.py): which reactions the rule takes, on
ModelSEED stoichiometries, and what it does to a model's bounds."""

from __future__ import annotations

import cobra
import pytest

from gem_flux_mcp.modeling.decarboxylation import decarboxylating_sign, orient_decarboxylations
from gem_flux_mcp.modeling.gapfill.network import _offered_directions

H, H2O, CO2, HCO3, PI = "cpd00067_c0", "cpd00001_c0", "cpd00011_c0", "cpd00242_c0", "cpd00009_c0"
NADPH, NADP, NADH, NAD = "cpd00005_c0", "cpd00006_c0", "cpd00004_c0", "cpd00003_c0"
MALONYL_ACP, ACETYL_ACP, ACP = "cpd11492_c0", "cpd11494_c0", "cpd11493_c0"

CASES = {
    # malonyl-ACP <=> CO2 + acetyl-ACP: only the decarboxylation
    "malonyl-ACP carboxy-lyase": ({MALONYL_ACP: -1, CO2: 1, ACETYL_ACP: 1}, None, 1),
    # written the other way round: the reverse releases CO2
    "written as a carboxylation": ({CO2: -1, ACETYL_ACP: -1, MALONYL_ACP: 1}, None, -1),
    # KAS_HP2: NADPH + malonyl-ACP + palmitoyl-ACP <=> NADP + CO2 + ACP + 3-hydroxyoctadecanoyl-ACP
    "3-oxoacyl-ACP synthase, lumped with its reduction": (
        {NADPH: -1, H: -1, MALONYL_ACP: -1, "cpd11476_c0": -1, NADP: 1, CO2: 1, ACP: 1, "cpd11478_c0": 1}, None, 1),
    # malic enzyme: malate + NADP <=> pyruvate + CO2 + NADPH (reductive carboxylation is possible)
    "oxidative decarboxylation": ({"cpd00130_c0": -1, NADP: -1, "cpd00020_c0": 1, CO2: 1, NADPH: 1}, None, None),
    # NAD-dependent 6-phosphogluconate dehydrogenase (rxn11040), ΔG'° +2.54 kcal/mol: run backwards
    # with NADH it is uphill in a cell (+3.55 with the millimolar and NAD+/NADH terms)
    "reductive carboxylation NADH cannot pay": (
        {"cpd00284_c0": -1, NAD: -1, "cpd00171_c0": 1, CO2: 1, NADH: 1}, 2.54, 1),
    # the NADP-dependent one (rxn01115), same estimate: NADPH, kept above NADP+, may pay
    "reductive carboxylation NADPH may pay": (
        {"cpd00284_c0": -1, NADP: -1, "cpd00171_c0": 1, CO2: 1, NADPH: 1}, 2.54, None),
    # NADH without an estimate: the reduction may run, as before
    "NADH without an estimate": ({"cpd00284_c0": -1, NAD: -1, "cpd00171_c0": 1, CO2: 1, NADH: 1}, None, None),
    # malic enzyme (NAD) with an estimate of -0.07 for the oxidation (as rxn00900's): the reduction
    # is downhill at 1 M, yet costs 4.09 (one molecule fewer at 1 mM) + 0.07 + 2.0 (NAD+/NADH) in a cell
    "reductive carboxylation uphill by concentrations": (
        {"cpd00130_c0": -1, NAD: -1, "cpd00020_c0": 1, CO2: 1, NADH: 1}, -0.07, 1),
    # PEP carboxylase: PEP + HCO3- -> oxaloacetate + Pi (PEP pays)
    "carboxylase paid by PEP": ({"cpd00061_c0": -1, HCO3: -1, "cpd00032_c0": 1, PI: 1}, None, None),
    # pyruvate carboxylase: ATP-driven (energy.py's rule)
    "carboxylase paid by ATP": ({"cpd00002_c0": -1, "cpd00020_c0": -1, HCO3: -1, "cpd00008_c0": 1, PI: 1,
                                 "cpd00032_c0": 1}, None, None),
    # carbonic anhydrase: nothing organic
    "carbonic anhydrase": ({CO2: -1, H2O: -1, HCO3: 1, H: 1}, None, None),
    # RuBisCO: RuBP + CO2 + H2O -> 2 3PG, ΔG'° -6.24 kcal/mol: fixing CO2 is itself downhill
    "RuBisCO": ({H2O: -1, CO2: -1, "cpd00871_c0": -1, H: 2, "cpd00169_c0": 2}, -6.24, None),
    # the same stoichiometry without an estimate: the chemical rule alone
    "RuBisCO without an estimate": ({H2O: -1, CO2: -1, "cpd00871_c0": -1, H: 2, "cpd00169_c0": 2}, None, -1),
    # a transporter moves CO2 across; it is not a decarboxylation
    "CO2 transport": ({"cpd00011_e0": -1, CO2: 1}, None, None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_which_reactions_release_co2_one_way(name: str) -> None:
    stoichiometry, deltag, expected = CASES[name]
    assert decarboxylating_sign(stoichiometry, deltag) == expected


def test_the_model_keeps_only_the_co2_releasing_direction() -> None:
    model = cobra.Model("m")
    mets = {m: cobra.Metabolite(m, compartment="c0") for m in (MALONYL_ACP, CO2, ACETYL_ACP, "cpd00130_c0", NADP,
                                                                "cpd00020_c0", NADPH)}
    decarboxylase = cobra.Reaction("rxn08861_c0", lower_bound=-1000, upper_bound=1000)
    decarboxylase.add_metabolites({mets[MALONYL_ACP]: -1, mets[CO2]: 1, mets[ACETYL_ACP]: 1})
    backwards = cobra.Reaction("rxn99999_c0", lower_bound=-1000, upper_bound=1000)  # written as a carboxylation
    backwards.add_metabolites({mets[CO2]: -1, mets[ACETYL_ACP]: -1, mets[MALONYL_ACP]: 1})
    malic = cobra.Reaction("rxn00161_c0", lower_bound=-1000, upper_bound=1000)
    malic.add_metabolites({mets["cpd00130_c0"]: -1, mets[NADP]: -1, mets["cpd00020_c0"]: 1, mets[CO2]: 1,
                           mets[NADPH]: 1})
    model.add_reactions([decarboxylase, backwards, malic])
    changed = orient_decarboxylations(model, {"rxn08861": None})
    assert sorted(changed) == ["rxn08861_c0", "rxn99999_c0"]
    assert decarboxylase.bounds == (0.0, 1000) and backwards.bounds == (-1000, 0.0)
    assert malic.bounds == (-1000, 1000) and "gemflux_direction" not in malic.notes
    assert orient_decarboxylations(model, {}) == []  # nothing left to change


def test_gapfilling_never_offers_the_co2_fixing_direction() -> None:
    stoichiometry = {MALONYL_ACP: -1, CO2: 1, ACETYL_ACP: 1}
    assert _offered_directions("=", stoichiometry) == (1,)
    assert _offered_directions("<", stoichiometry) == ()
    assert _offered_directions("=", {"cpd00130_c0": -1, NADP: -1, "cpd00020_c0": 1, CO2: 1, NADPH: 1}) == (1, -1)
