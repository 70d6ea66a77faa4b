"""What the built models predict, checked with COBRApy on the gapfilled E. coli K-12 model:
protein is made from charged tRNAs, so a tRNA synthetase with one gene is essential on glucose
minimal medium and one with two isozymes is not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cobra
import pytest

from gem_flux_mcp.data.templates import load_template
from gem_flux_mcp.modeling import gapfill as gf
from gem_flux_mcp.modeling.translation import CHARGING_NOTE, PROTEIN, trna_ligases
from models import apply_exchange_medium, medium_of

AMINO_ACIDS = {"cpd00023", "cpd00033", "cpd00035", "cpd00039", "cpd00041", "cpd00051", "cpd00053", "cpd00054",
               "cpd00060", "cpd00065", "cpd00066", "cpd00069", "cpd00084", "cpd00107", "cpd00119", "cpd00129",
               "cpd00132", "cpd00156", "cpd00161", "cpd00322"}

# the test proteome's RefSeq ids: leucine--tRNA ligase, lysine--tRNA ligase (lysS, and the
# heat-inducible lysU)
LEUS, LYSS, LYSU = "NP_415175.1", "NP_417366.1", "NP_418579.2"


def growth_without(model: cobra.Model, data_dir: Path, genes: list[str]) -> tuple[float, float]:
    """(wild type, with the genes knocked out) on glucose minimal medium, in COBRApy."""
    with model:
        apply_exchange_medium(model, medium_of(data_dir, "glucose_minimal_aerobic"))
        model.objective = "bio1"
        wild = model.slim_optimize(error_value=0.0)
        for gene in genes:
            model.genes.get_by_id(gene).knock_out()
        return wild, model.slim_optimize(error_value=0.0)


@pytest.mark.parametrize("template", ["GramNegative", "GramPositive"])
def test_templates_charge_every_amino_acid(data_dir: Path, template: str) -> None:
    ligases = trna_ligases(load_template(data_dir, template))
    assert set(ligases) == AMINO_ACIDS
    assert ligases["cpd00322"].reaction == "rxn06440_c" and ligases["cpd00039"].reaction == "rxn08857_c"
    assert len({c.trna for c in ligases.values()}) == 20


def test_protein_is_made_from_charged_trnas(ecoli_run: tuple[gf.GapfillRun, dict[str, Any]], data_dir: Path) -> None:
    """No free amino acid goes into protein; the tRNA ligases carry it, so leucyl-tRNA
    synthetase (leuS) is essential while lysyl-tRNA synthetase has two genes (lysS, lysU) and
    neither alone is; the biomass costs as much ATP as before."""
    model = ecoli_run[0].model
    protein = model.metabolites.get_by_id(f"{PROTEIN}_c0")
    synthesis = next(r for r in protein.reactions if r.id != "bio1")
    assert CHARGING_NOTE in synthesis.notes
    used = {m.id.rsplit("_", 1)[0]: c for m, c in synthesis.metabolites.items() if c < 0}
    assert not AMINO_ACIDS & set(used)
    assert "cpd12256" in used and synthesis.metabolites[model.metabolites.get_by_id("cpd11915_c0")] == -used["cpd12256"]

    assert model.reactions.get_by_id("rxn08857_c0").gene_reaction_rule == f"{LYSS} or {LYSU}"
    wild, without_leu = growth_without(model, data_dir, [LEUS])
    assert wild > 0.5 and without_leu < 1e-6
    assert growth_without(model, data_dir, [LYSS])[1] > 0.9 * wild
    assert growth_without(model, data_dir, [LYSS, LYSU])[1] < 1e-6

    # charging costs 2 ATP per amino acid; the biomass hydrolyses that many ATP fewer than the template's 40
    bio1 = model.reactions.get_by_id("bio1")
    per_gram = 2 * sum(-used[c] for c in used if c.startswith("cpd1")) * -bio1.metabolites[protein]
    atp = -bio1.metabolites[model.metabolites.get_by_id("cpd00002_c0")]
    assert atp + per_gram == pytest.approx(40.0, abs=1e-6) and per_gram > 5
