"""The bypass report's classifier (benchmarks/phenotypes/bypasses.py) on COBRApy's textbook
model: an isozyme, a planted reversed reaction, a planted gapfilled and a planted gene-less one, a
medium compound taken up instead of made, and why an isozyme's reaction stays open by a curated
rule."""

from __future__ import annotations

import json

import cobra
import pytest
from benchmarks.phenotypes.bypasses import (
    ALTERNATIVE,
    COMPLEX_SPLIT,
    CURATED_ISOZYME,
    GAPFILLED,
    GENELESS,
    HOMOLOGY_ONLY,
    ISOZYME,
    LETHAL,
    MEDIUM,
    REVERSED,
    classify,
    compare,
    keeper_kind,
)

from models import textbook

BIOMASS = "Biomass_Ecoli_core"
ICD = "b1136"  # isocitrate dehydrogenase (ICDHyr), essential in the textbook model on glucose


def directions(model: cobra.Model) -> dict[str, dict[str, str]]:
    """The textbook's own reaction directions, as a direction table."""
    return {"textbook": {r.id: "=" if r.reversibility else ">" if r.lower_bound >= 0 else "<"
                         for r in model.reactions}}


def test_an_isozyme_closes_nothing() -> None:
    found = classify(textbook(), "b1854", BIOMASS)  # pykA: pykF also catalyses PYK
    assert found.reactions_closed == [] and found.rule_partners == ["b1676"]
    assert found.primary == ISOZYME and found.classes == [ISOZYME]


def test_a_planted_reversed_carboxylation_is_the_bypass() -> None:
    model = textbook()
    table = directions(model)
    assert classify(model, ICD, BIOMASS, table).primary == LETHAL
    model.reactions.AKGDH.lower_bound = -1000.0  # succinyl-CoA + CO2 + NADH -> 2-oxoglutarate, opened
    found = classify(model, ICD, BIOMASS, table)
    assert found.reactions_closed == ["ICDHyr"] and found.primary == REVERSED
    akgdh = next(s for s in found.main_route if s.reaction_id == "AKGDH")
    assert akgdh.direction == "reverse" and akgdh.change == "reverses"
    assert akgdh.against == ["wild type", "textbook"] and akgdh.flags == [REVERSED]
    with model:  # COBRApy: the deletion is lethal again once AKGDH runs forward only
        model.genes.get_by_id(ICD).knock_out()
        assert model.slim_optimize() > 0.1
        model.reactions.AKGDH.lower_bound = 0.0
        assert model.slim_optimize(error_value=0.0) < 1e-6
    model.reactions.AKGDH.notes["gemflux_sources"] = "template_gapfill"  # as if gapfilling had added it
    planted = classify(model, ICD, BIOMASS, table)
    assert planted.primary == REVERSED and GAPFILLED in planted.classes  # precedence: reversed first
    assert next(s for s in planted.main_route if s.reaction_id == "AKGDH").origin == "gapfill"


def test_gene_backed_and_gene_less_routes() -> None:
    model = textbook()
    found = classify(model, "b4025", BIOMASS, directions(model))  # pgi: the pentose phosphate way round
    assert found.primary == ALTERNATIVE and found.classes == [ALTERNATIVE]
    assert found.main_route[0].reaction_id == "NADTRHD"
    model.reactions.NADTRHD.gene_reaction_rule = ""
    without_genes = classify(model, "b4025", BIOMASS, directions(model))
    assert without_genes.primary == GENELESS and without_genes.main_route[0].flags == [GENELESS]


def toy_with_a_cheap_synthesis() -> cobra.Model:
    """Glucose makes X (capped: growth is not carbon-limited) and, one step and two for one, Y;
    Y is also offered outside, but taking it up costs more flux than making it (pFBA makes it)."""
    model = cobra.Model("toy")
    met = {m: cobra.Metabolite(m, compartment=m[-1]) for m in ("glc_e", "glc_c", "x_c", "y_c", "y_e")}
    reactions = {"EX_glc_e": ({"glc_e": -1}, -10.0, 1000.0, ""), "EX_y_e": ({"y_e": -1}, -10.0, 1000.0, ""),
                 "GLCt": ({"glc_e": -1, "glc_c": 1}, 0.0, 1000.0, "gT"),
                 "RX": ({"glc_c": -1, "x_c": 1}, 0.0, 5.0, "gX"),
                 "RY": ({"glc_c": -1, "y_c": 2}, 0.0, 1000.0, "gY"),
                 "YT": ({"y_e": -1, "y_c": 1}, 0.0, 1000.0, "gU"),
                 "BIO": ({"x_c": -1, "y_c": -1}, 0.0, 1000.0, "")}
    for rid, (stoichiometry, lower, upper, rule) in reactions.items():
        reaction = cobra.Reaction(rid, lower_bound=lower, upper_bound=upper)
        reaction.add_metabolites({met[m]: c for m, c in stoichiometry.items()})
        model.add_reactions([reaction])
        reaction.gene_reaction_rule = rule
    model.objective = "BIO"
    return model


def test_a_medium_compound_taken_up_instead_of_made() -> None:
    model = toy_with_a_cheap_synthesis()
    found = classify(model, "gY", "BIO", medium={"glc", "y"})
    assert found.reactions_closed == ["RY"] and found.growth_ratio == pytest.approx(1.0)
    steps = {s.reaction_id: s for s in found.main_route}
    assert steps["EX_y_e"].change == "appears" and steps["EX_y_e"].flux_deleted == pytest.approx(-5.0)
    assert steps["EX_y_e"].flags == [MEDIUM] and steps["YT"].flags == [MEDIUM]  # y_e is offered
    assert found.primary == MEDIUM and found.classes == [MEDIUM]
    model.reactions.YT.notes["gemflux_sources"] = "medium_uptake"  # a transporter gapfilling added for it
    transporter = next(s for s in classify(model, "gY", "BIO").main_route if s.reaction_id == "YT")
    assert transporter.flags == [MEDIUM] and transporter.origin == "gapfill"  # medium uptake, not gapfilled


@pytest.mark.parametrize(("enzymes", "kind"), [
    ({"PYK": [frozenset({"b1676"}), frozenset({"b1854"})]}, CURATED_ISOZYME),
    ({"PYK": [frozenset({"b1676", "b1854"})]}, COMPLEX_SPLIT),
    ({"PYK": [frozenset({"b1854"})]}, HOMOLOGY_ONLY),
])
def test_why_an_isozymes_reaction_stays_open(enzymes: dict[str, list[frozenset[str]]], kind: str) -> None:
    model = textbook()
    model.reactions.PYK.notes["gemflux_evidence"] = json.dumps({"homology": {"bigg_reactions": ["PYK"]}})
    assert keeper_kind(model.reactions.PYK, "b1854", enzymes) == (kind, ["b1676"])
    found = classify(model, "b1854", BIOMASS, enzymes=enzymes)
    assert found.kept_open["PYK"]["kind"] == kind and found.isozyme_kind == kind


def test_a_comparison_says_which_false_negatives_a_change_removed() -> None:
    def report(**primary: str) -> dict[str, object]:
        return {"model": "/x/ecol_reference.json", "bypasses": [{"gene": g, "primary": c} for g, c in primary.items()]}

    old = [report(b1=ISOZYME, b2=REVERSED, b3=REVERSED)]
    new = [report(b1=ISOZYME, b3=GAPFILLED, b4=MEDIUM)]
    assert compare(old, new) == [
        f"ecol_reference.json: false negatives 3 -> 3; removed {REVERSED} 1 (b2); new: b4",
        f"  class changed: {REVERSED} -> {GAPFILLED} 1"]
