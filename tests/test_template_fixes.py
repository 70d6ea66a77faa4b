"""Corrections applied to the ModelSEED templates as they are parsed (data/template_fixes.py).

Ferredoxin carries an electron pair in every parsed template (each ferredoxin reaction balances in
charge), the ATP-test template makes no ATP from nothing (COBRApy on the whole template), the
hydrogenases the genome-scale templates lacked are there for homology only, and BiGG's
[4Fe-4S] ferredoxin reactions (pyruvate:ferredoxin oxidoreductase, the hydrogenases) now reach them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import cobra
import pytest

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.reference import Reference
from gem_flux_mcp.data.template_fixes import ADDED_REACTIONS, DIRECTION_FIXES, WRONG_COMPLEXES, apply_template_fixes
from gem_flux_mcp.data.templates import ATP_TEMPLATE, load_template, template_path
from gem_flux_mcp.modeling.gapfill.network import _offered_directions

FERREDOXIN = ("cpd11620", "cpd11621")
WATER, PROTON, ATP, ADP, PHOSPHATE = "cpd00001", "cpd00067", "cpd00002", "cpd00008", "cpd00009"


def ferredoxins(reaction: Any) -> float:
    return sum(abs(c) for m, c in reaction.metabolites.items() if m.id.rsplit("_", 1)[0] == FERREDOXIN[0])


@pytest.mark.parametrize("name", ["GramNegative", "GramPositive", "Core", ATP_TEMPLATE])
def test_every_ferredoxin_reaction_balances_with_an_electron_pair_per_ferredoxin(data_dir: Path, name: str) -> None:
    template = load_template(data_dir, name)
    charges = {m.id.rsplit("_", 1)[0]: m.charge for m in template.compcompounds if m.id[:8] in FERREDOXIN}
    assert charges == {"cpd11620": 4.0, "cpd11621": 6.0}  # the database's: two charges apart
    with_ferredoxin = [r for r in template.reactions if any(m.id[:8] in FERREDOXIN for m in r.metabolites)]
    assert len(with_ferredoxin) >= 5
    unbalanced = {r.id for r in with_ferredoxin if abs(sum(c * m.charge for m, c in r.metabolites.items())) > 1e-6}
    # sul00002 (Core-V5.2 only) is off by two charges whatever its ferredoxins count
    assert unbalanced <= {"sul00002_c"}


def test_reactions_that_counted_ferredoxin_per_electron_are_halved(data_dir: Path) -> None:
    genome_scale, core = load_template(data_dir, "GramPositive"), load_template(data_dir, ATP_TEMPLATE)
    raw = {r["id"]: r for r in json.loads(template_path(data_dir, "GramPositive").read_text())["reactions"]}
    in_file = sum(abs(x["coefficient"]) for x in raw["rxn05893_c"]["templateReactionReagents"]
                  if "cpd11620" in x["templatecompcompound_ref"])
    assert in_file == 6 and ferredoxins(genome_scale.reactions.get_by_id("rxn05893_c")) == 3  # nitrite: 6 e-
    assert ferredoxins(genome_scale.reactions.get_by_id("rxn06874_c")) == 4  # nitrogenase: N2 -> 2 NH3 + H2, 8 e-
    assert ferredoxins(genome_scale.reactions.get_by_id("rxn05938_c")) == 1  # already per pair: unchanged
    assert ferredoxins(core.reactions.get_by_id("rxn05759_c")) == 1  # H2 is one pair


def test_directions_pyruvate_oxidation_and_nitrogen_reductions(data_dir: Path) -> None:
    template = load_template(data_dir, "GramNegative")
    pfor = template.reactions.get_by_id("rxn05938_c")  # written acetyl-CoA + CO2 + Fd_red -> pyruvate
    assert (pfor.lower_bound, pfor.upper_bound) == (-1000, 1000) and DIRECTION_FIXES["rxn05938"][0] == "="
    nitrite = template.reactions.get_by_id("rxn05893_c")  # written NH3 + Fd_ox -> nitrite + Fd_red
    assert (nitrite.lower_bound, nitrite.upper_bound) == (-1000, 0)
    # no ammonia or nitrite oxidised with cytochrome c: NrfA reduces nitrite, the nitrate reductase
    # that pumps protons only reduces nitrate, in drafts and as gapfilling offers them
    nrfa = template.reactions.get_by_id("rxn03978_c")  # written NH3 + 6 cyt c3+ -> nitrite + 6 cyt c2+
    assert (nrfa.lower_bound, nrfa.upper_bound, nrfa.GapfillDirection) == (-1000, 0, "<")
    nitrate = template.reactions.get_by_id("rxn14427_c")  # written nitrate + cyt c2+ + 3 H+ out -> nitrite
    assert (nitrate.lower_bound, nitrate.upper_bound, nitrate.GapfillDirection) == (0, 1000, ">")
    # nitrogenase only fixes N2 (backwards it makes 16 ATP from ammonia), pyruvate formate-lyase
    # only cleaves pyruvate, in drafts and as gapfilling offers them (both were "=" for gapfilling)
    for name in ("GramNegative", "GramPositive"):
        genome_template = load_template(data_dir, name)
        fixing = genome_template.reactions.get_by_id("rxn06874_c")  # written 16 ATP + N2 -> 2 NH3
        assert {m.id: c for m, c in fixing.metabolites.items()}["cpd00002_c"] == -16
        assert (fixing.lower_bound, fixing.upper_bound, fixing.GapfillDirection) == (0, 1000, ">")
        pfl = genome_template.reactions.get_by_id("rxn00157_c")  # written acetyl-CoA + formate -> pyruvate
        assert {m.id: c for m, c in pfl.metabolites.items()}["cpd00020_c"] == 1
        assert (pfl.lower_bound, pfl.upper_bound, pfl.GapfillDirection) == (-1000, 0, "<")
    assert load_template(data_dir, ATP_TEMPLATE).reactions.get_by_id("rxn13974_c").lower_bound == -1000


def atp_from_nothing(template: Any) -> float:
    """COBRApy: the most ATP the whole template makes with only water and protons crossing the
    membrane (anything above zero is a cycle)."""
    model = cobra.Model("template")
    model.add_reactions([r.to_reaction(model, "0") for r in template.reactions])
    met = {m.id.rsplit("_", 1)[0]: m for m in model.metabolites if m.compartment == "c0"}
    hydrolysis = cobra.Reaction("atp_hydrolysis", lower_bound=0, upper_bound=1000)
    hydrolysis.add_metabolites({met[ATP]: -1, met[WATER]: -1, met[ADP]: 1, met[PHOSPHATE]: 1, met[PROTON]: 1})
    model.add_reactions([hydrolysis])
    for outside in [m for m in model.metabolites if m.compartment == "e0" and m.id.split("_")[0] in (WATER, PROTON)]:
        model.add_boundary(outside, type="exchange", lb=-1000, ub=1000)
    model.objective = hydrolysis
    return float(model.slim_optimize())


def test_the_atp_test_template_makes_no_atp_from_nothing_and_why_it_gets_no_added_reactions(data_dir: Path) -> None:
    """Core-V5.2's yields are what the ATP tests hold every model to. Parsed, it makes no ATP
    from nothing; with the bifurcating hydrogenase added it would make 750 per unit of flux
    (its methanogenesis and ferredoxin reactions close a cycle), and every ATP test would pass."""
    from modelseedpy.core.mstemplate import MSTemplateBuilder

    assert atp_from_nothing(load_template(data_dir, ATP_TEMPLATE)) == pytest.approx(0.0, abs=1e-6)
    content = json.loads(template_path(data_dir, ATP_TEMPLATE).read_text())
    with_added = MSTemplateBuilder.from_dict(apply_template_fixes(copy.deepcopy(content), add_reactions=True)).build()
    assert atp_from_nothing(with_added) > 100


def test_added_hydrogenases_are_balanced_and_for_homology_only(data_dir: Path) -> None:
    template = load_template(data_dir, "GramNegative")
    for added in ADDED_REACTIONS:
        reaction = template.reactions.get_by_id(f"{added['id']}_c")
        assert abs(sum(c * m.charge for m, c in reaction.metabolites.items())) < 1e-6
        assert not reaction.complexes  # no role brings it: only homology
        stoichiometry = {m.id: c for m, c in reaction.metabolites.items()}
        assert _offered_directions(reaction.GapfillDirection, stoichiometry) == ()  # never gapfilled
    assert "rxn16350_c" not in load_template(data_dir, ATP_TEMPLATE).reactions


def test_bigg_ferredoxin_reactions_reach_the_template(data_dir: Path, biochem: BiochemIndex, tmp_path: Path) -> None:
    """BiGG writes the clostridial enzymes with the [4Fe-4S] ferredoxin (fdxo_42/fdxr_42, two
    electrons): pyruvate:ferredoxin oxidoreductase (POR), the ferredoxin hydrogenase (HYDFDi) and the
    bifurcating one (HYDFDN) now match the template's reactions by stoichiometry."""
    from gem_flux_mcp.modeling.bigg_match import StoichiometricAliases

    template = load_template(data_dir, "GramPositive")
    universe = Reference.installed().reaction_stoichiometry(tmp_path)
    assert universe["POR"]["fdxr_42_c"] == 1.0
    found = StoichiometricAliases(biochem, universe, template).reaction_ids_for_external(
        "BiGG", ["POR", "HYDFDi", "HYDFDN"])
    assert "rxn05938" in found["POR"]
    assert "rxn05759" in found["HYDFDi"]
    assert "rxn16350" in found["HYDFDN"]


def test_ribokinase_no_longer_brings_adp_phosphofructokinase(data_dir: Path) -> None:
    """In the template files ribokinase (EC 2.7.1.15) is the one role of a complex of ADP-dependent
    phosphofructokinase (rxn04043, EC 2.7.1.146), so every genome with a ribokinase had it; run
    backwards it made bifidobacteria and lactobacilli split all sugar to acetate."""
    raw = next(r for r in json.loads(template_path(data_dir, "GramPositive").read_text())["reactions"]
               if r["id"] == "rxn04043_c")
    assert "~/complexes/id/cpx32729" in raw["templatecomplex_refs"]
    for name in ("GramNegative", "GramPositive"):
        reaction = load_template(data_dir, name).reactions.get_by_id("rxn04043_c")
        roles = {role.name for complex_ in reaction.complexes for role in complex_.roles}
        assert not any("ribokinase" in r for r in roles)


@pytest.mark.parametrize("reaction_id, wrong_role, kept_role", [
    ("rxn00257", "levansucrase", "Citrate lyase"),  # ATP-citrate lyase keeps its citrate lyase subunits
    ("rxn00503", "Succinyl-CoA ligase", None),
    ("rxn02818", "tyrosine---tRNA ligase", None),
])
def test_roles_that_name_another_enzyme_are_taken_off(data_dir: Path, reaction_id: str, wrong_role: str,
                                                       kept_role: str | None) -> None:
    raw = next(r for r in json.loads(template_path(data_dir, "GramNegative").read_text())["reactions"]
               if r["id"] == f"{reaction_id}_c")
    assert f"~/complexes/id/{WRONG_COMPLEXES[reaction_id][0]}" in raw["templatecomplex_refs"]
    for name in ("GramNegative", "GramPositive"):
        reaction = load_template(data_dir, name).reactions.get_by_id(f"{reaction_id}_c")
        roles = {role.name for complex_ in reaction.complexes for role in complex_.roles}
        assert not any(wrong_role in r for r in roles)
        assert kept_role is None or any(kept_role in r for r in roles)
