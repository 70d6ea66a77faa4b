"""How much a gapfilled model rests on its additions (modeling/gapfill/reliance.py), on small
COBRApy models whose answer is known, checked against COBRApy's pfba called directly."""

from __future__ import annotations

import cobra
from cobra.flux_analysis import pfba

from gem_flux_mcp.modeling.gapfill.reliance import SHARE_WARNING, addition_contexts, flux_through_added


def _pathway(genes: dict[str, str]) -> cobra.Model:
    """A_e -> A -> B -> C -> D -> biomass; `genes` gives the rules of the internal steps."""
    model = cobra.Model("toy")
    mets = {name: cobra.Metabolite(f"{name}_c0", compartment="c0") for name in "ABCD"}
    outside = cobra.Metabolite("cpd00001_e0", compartment="e0")
    exchange = cobra.Reaction("EX_cpd00001_e0", lower_bound=-10, upper_bound=1000)
    exchange.add_metabolites({outside: -1})
    uptake = cobra.Reaction("T_A", lower_bound=0, upper_bound=1000)
    uptake.add_metabolites({outside: -1, mets["A"]: 1})
    uptake.gene_reaction_rule = "gT"
    steps = []
    for rid, (s, p) in {"R1": ("A", "B"), "R2": ("B", "C"), "R3": ("C", "D")}.items():
        step = cobra.Reaction(rid, lower_bound=0, upper_bound=1000)
        step.add_metabolites({mets[s]: -1, mets[p]: 1})
        step.gene_reaction_rule = genes.get(rid, "")
        steps.append(step)
    biomass = cobra.Reaction("bio1", lower_bound=0, upper_bound=1000)
    biomass.add_metabolites({mets["D"]: -1})
    model.add_reactions([exchange, uptake, *steps, biomass])
    model.objective = "bio1"
    return model


def _entries(*ids: str) -> list[dict[str, object]]:
    return [{"id": rid, "direction": ">", "source": "template_gapfill", "evidence": None} for rid in ids]


def test_one_missing_step_between_gene_backed_steps_is_a_gap_of_a_covered_pathway() -> None:
    model = _pathway({"R1": "g1", "R3": "g3"})
    contexts = addition_contexts(model, _entries("R2"))
    assert contexts["gap_in_covered_pathway"] == 1 and contexts["stretch_without_genes"] == 0
    assert contexts["examples"]["gap_in_covered_pathway"] == ["R2"]


def test_consecutive_missing_steps_are_a_stretch_without_genes() -> None:
    model = _pathway({"R3": "g3"})
    contexts = addition_contexts(model, _entries("R1", "R2"))
    # R1's substrate comes from the gene-backed transporter, but its product only feeds R2 (no gene)
    assert contexts["stretch_without_genes"] == 2 and contexts["gap_in_covered_pathway"] == 0


def test_additions_with_evidence_or_genes_and_exchanges_are_counted_apart() -> None:
    model = _pathway({"R1": "g1", "R3": "g3"})
    entries = [*_entries("R2"), {"id": "R1", "direction": ">", "source": "reversed", "evidence": None},
               {"id": "EX_cpd00001_e0", "direction": "=", "source": "auto_generated", "evidence": None}]
    contexts = addition_contexts(model, entries)
    assert contexts["without_evidence"] == 1 and contexts["with_genes_or_evidence"] == 1


def test_share_of_the_optimum_through_added_reactions_matches_cobrapy() -> None:
    model = _pathway({"R1": "g1", "R3": "g3"})
    medium = {"cpd00001": (-10.0, 1000.0)}
    found = flux_through_added(model, medium, "bio1", ["R2"])
    fluxes = pfba(model).fluxes  # the same medium: the exchange's bounds are the model's own
    active = [rid for rid, v in fluxes.items() if abs(v) > 1e-9 and rid not in ("EX_cpd00001_e0", "bio1")]
    assert found["active_reactions"] == len(active) == 4  # T_A, R1, R2, R3
    assert found["active_gapfilled"] == 1 and found["reaction_share"] == 0.25
    assert found["flux_share"] == round(abs(fluxes["R2"]) / sum(abs(fluxes[r]) for r in active), 4)
    assert found["passed"] is (found["reaction_share"] <= SHARE_WARNING)
    assert found["largest"] == [{"id": "R2", "flux": 10.0}]


def test_a_medium_without_growth_measures_nothing() -> None:
    model = _pathway({"R1": "g1"})
    model.reactions.R3.bounds = (0.0, 0.0)
    found = flux_through_added(model, {"cpd00001": (-10.0, 1000.0)}, "bio1", ["R2"])
    assert found["reaction_share"] is None and found["passed"] is True
