"""`gem-flux reconstruct | gapfill | fba` run as a user runs them (the installed console script),
each result checked with COBRApy on the written model file."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path
from typing import Any

import cobra
import pyrodigal
import pytest
from Bio import SeqIO
from cobra.io import read_sbml_model, save_json_model

from conftest import GEM_FLUX, CliRun
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling.gram import gram_from_draft
from models import apply_exchange_medium, medium_of

GENOME = Path(pyrodigal.__file__).parent / "tests" / "data" / "GCF_001457455.1_NCTC11397_genomic.fna.gz"


def gem_flux(*args: str, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GEM_FLUX, *args], capture_output=True, text=True, timeout=timeout, env=env)


def growth(model: cobra.Model, medium: dict[str, tuple[float, float]]) -> float:
    with model:
        apply_exchange_medium(model, medium)
        model.objective = "bio1"
        return float(model.slim_optimize(error_value=0.0))


@pytest.mark.slow
def test_reconstruct_a_genome_in_one_command(server_env: dict[str, str], data_dir: Path, tmp_path: Path) -> None:
    """Corynebacterium diphtheriae (pyrodigal's test genome, 2.5 Mb, Gram-positive): genes called,
    the template chosen from the genome, built, gapfilled, written as SBML that grows in COBRApy."""
    with gzip.open(GENOME, "rt") as handle:
        contig = str(next(SeqIO.parse(handle, "fasta")).seq)
    finder = pyrodigal.GeneFinder()
    finder.train(contig)
    genes = len(finder.find_genes(contig))
    out, report = tmp_path / "cdiph.xml", tmp_path / "report.json"
    proc = gem_flux("reconstruct", str(GENOME), "--out", str(out), "--report", str(report), env=server_env)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(report.read_text())
    assert result["input"]["input_kind"] == "genome_fasta" and result["input"]["genes_called"] == genes
    assert result["template"] == "GramPositive" and "Gram-positive" in result["template_reason"]
    assert "template GramPositive" in proc.stdout and "growth: glucose_minimal_aerobic" in proc.stdout
    model = read_sbml_model(str(out))
    assert len(model.reactions) == result["num_reactions"] and len(model.genes) == result["num_genes"] > 100
    assert {g.id for g in model.genes} <= {f"NZ_LN831026.1_{n}" for n in range(1, genes + 1)}
    rate = growth(model, medium_of(data_dir, "glucose_minimal_aerobic"))
    assert rate > 0.01 and rate == pytest.approx(result["growth"]["glucose_minimal_aerobic"], rel=1e-4)
    assert result["gapfills"][0]["quality_checks_passed"]


def test_gapfill_on_two_media_then_fba(ecoli: cobra.Model, server_env: dict[str, str], data_dir: Path,
                                       tmp_path: Path) -> None:
    draft, gapfilled = tmp_path / "draft.json", tmp_path / "gf.json"
    save_json_model(ecoli, str(draft))
    proc = gem_flux("gapfill", str(draft), "--media", "glucose_minimal_aerobic", "--media",
                    "glucose_minimal_anaerobic", "--out", str(gapfilled), "--json", "--quiet", env=server_env)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert [g["medium"] for g in result["gapfills"]] == ["glucose_minimal_aerobic", "glucose_minimal_anaerobic"]
    model = cobra.io.load_json_model(str(gapfilled))
    for name in ("glucose_minimal_aerobic", "glucose_minimal_anaerobic"):
        assert growth(model, medium_of(data_dir, name)) >= 0.01
    assert growth(ecoli, medium_of(data_dir, "glucose_minimal_aerobic")) < 1e-6  # the draft file was the input

    # --together: one gapfill on both media (one step), which COBRApy finds growing on each
    together = tmp_path / "together.json"
    proc = gem_flux("gapfill", str(draft), "--media", "glucose_minimal_aerobic", "--media",
                    "glucose_minimal_anaerobic", "--together", "--out", str(together), "--json", "--quiet",
                    env=server_env)
    assert proc.returncode == 0, proc.stderr
    (step,) = json.loads(proc.stdout)["gapfills"]
    assert step["medium"] == "glucose_minimal_aerobic + glucose_minimal_anaerobic"
    joint = cobra.io.load_json_model(str(together))
    for name, rates in step["growth_by_medium"].items():
        assert growth(joint, medium_of(data_dir, name)) == pytest.approx(rates["after"], rel=1e-4)
        assert rates["after"] >= 0.01

    proc = gem_flux("fba", str(gapfilled), "--medium", "glucose_minimal_aerobic", "--json", "--out",
                    str(tmp_path / "fluxes.tsv"), env=server_env)
    assert proc.returncode == 0, proc.stderr
    fba = json.loads(proc.stdout)
    assert fba["objective_value"] == pytest.approx(growth(model, medium_of(data_dir, "glucose_minimal_aerobic")),
                                                   rel=1e-5)
    assert len((tmp_path / "fluxes.tsv").read_text().splitlines()) == len(fba["fluxes"]) + 1


def test_workflow_commands_refuse_bad_input_before_working(cli_in_process: CliRun, tmp_path: Path) -> None:
    proteins = tmp_path / "p.faa"
    proteins.write_text(">a\nMKV\n")
    code, _, said = cli_in_process("reconstruct", str(proteins), "--out", str(tmp_path / "m.txt"))
    assert code == 1 and "UNSUPPORTED_FORMAT" in said
    code, _, said = cli_in_process("reconstruct", str(proteins), "--out", str(tmp_path / "m.xml"),
                                   "--media", "no_such_medium")
    assert code == 1 and "INVALID_MEDIA" in said
    code, _, said = cli_in_process("gapfill", str(tmp_path / "missing.json"), "--media", "glucose_minimal_aerobic",
                                   "--out", str(tmp_path / "o.json"))
    assert code == 1 and "FILE_NOT_FOUND" in said
    for bad in ("-1", "0", "11", "nan"):  # the rule gapfill_model applies, with its code, before any work
        code, _, said = cli_in_process("gapfill", str(tmp_path / "missing.json"), "--media",
                                       "glucose_minimal_aerobic", "--target-growth", bad, "--out",
                                       str(tmp_path / "o.json"))
        assert code == 1 and "INVALID_TARGET_GROWTH_RATE" in said, (bad, said)
    assert not list(tmp_path.glob("*.xml")) and not list(tmp_path.glob("o.json"))


def test_ecoli_draft_is_called_gram_negative(ecoli: cobra.Model, biochem: BiochemIndex) -> None:
    call = gram_from_draft(ecoli, biochem)
    assert call.template == "GramNegative"
    assert {"LpxA", "LpxC", "LpxD"} <= set(call.markers_found)


def test_a_draft_with_two_lipid_a_genes_is_called_unsure(ecoli: cobra.Model, biochem: BiochemIndex) -> None:
    from gem_flux_mcp.modeling.gram import LPS_MARKERS

    draft = ecoli.copy()
    kept = {"UAGAAT", "KDOCT2"}  # LpxA and KdsB keep their genes, as in Zymomonas mobilis' draft
    for bigg, ids in biochem.reaction_ids_for_external("BiGG", LPS_MARKERS).items():
        for rid in ids:
            if bigg not in kept and f"{rid}_c0" in draft.reactions:
                draft.reactions.get_by_id(f"{rid}_c0").gene_reaction_rule = ""
    call = gram_from_draft(draft, biochem)
    assert call.markers_found == ("KdsB", "LpxA") and call.template == "GramPositive"
    assert call.unsure and "unsure" in call.reason and "template='GramNegative'" in call.reason
    assert not gram_from_draft(ecoli, biochem).unsure
