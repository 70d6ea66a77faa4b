"""`gem-flux essentiality|phenotypes|fva|compare` on model files, run as a user runs them (the
installed console script), checked against COBRApy on the same model and medium. What a command
refuses before any work is checked in this process (`cli_in_process`)."""

from __future__ import annotations

import csv
import json
import math
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cobra.flux_analysis import flux_variability_analysis, single_gene_deletion
from cobra.io import save_json_model

from conftest import GEM_FLUX, CliRun
from models import TEXTBOOK_MEDIUM, textbook


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    """The textbook model as a JSON file and its own medium as a medium JSON file."""
    model = textbook()
    save_json_model(model, str(tmp_path / "textbook.json"))
    medium = {cpd: {"bounds": [-dict(model.medium)[ex], 1000.0]} for ex, cpd in TEXTBOOK_MEDIUM.items()}
    (tmp_path / "medium.json").write_text(json.dumps({"compounds": medium}))
    return {"model": tmp_path / "textbook.json", "medium": tmp_path / "medium.json"}


def gem_flux(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GEM_FLUX, *args], capture_output=True, text=True, timeout=300, env=env)


def table(path: Path) -> list[dict[str, Any]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_essentiality_command_equals_cobrapy(files: dict[str, Path], server_env: dict[str, str],
                                             tmp_path: Path) -> None:
    (tmp_path / "observed.tsv").write_text("# gene\tessential\nb1779\tE\nb2416\tNE\nb0008\tE\n")
    proc = gem_flux("essentiality", str(files["model"]), "--medium", str(files["medium"]),
                    "--objective", "Biomass_Ecoli_core", "--observed", str(tmp_path / "observed.tsv"),
                    "--out", str(tmp_path / "ess.tsv"), env=server_env)
    assert proc.returncode == 0, proc.stderr
    reference = textbook()
    wild = reference.slim_optimize()
    deletions = single_gene_deletion(reference, processes=1)
    expected = {next(iter(i)): 0.0 if math.isnan(g) else g for i, g in zip(deletions["ids"], deletions["growth"],
                                                                             strict=True)}
    rows = table(tmp_path / "ess.tsv")
    assert {r["id"]: float(r["growth"]) for r in rows} == pytest.approx(expected, abs=1e-6)
    essential = sorted(g for g, v in expected.items() if v < 0.1 * wild)
    assert sorted(r["id"] for r in rows if r["status"] == "essential") == essential
    assert f"{len(expected)} genes of e_coli_core" in proc.stdout and f"{len(essential)} essential" in proc.stdout
    assert "against observed (3 compared)" in proc.stdout


def test_a_medium_the_model_cannot_take_up_is_refused_as_the_tools_refuse_it(
        files: dict[str, Path], cli_in_process: CliRun, tmp_path: Path) -> None:
    (tmp_path / "trehalose.json").write_text(json.dumps({"compounds": {"cpd00794": {"bounds": [-10, 1000]}}}))
    code, _, said = cli_in_process("essentiality", str(files["model"]), "--medium", str(tmp_path / "trehalose.json"))
    assert code == 1 and "MEDIA_INCOMPATIBLE" in said
    assert "None of the 1 compounds of medium trehalose has an exchange reaction" in said


@pytest.mark.slow
def test_phenotypes_fva_and_compare_commands(files: dict[str, Path], server_env: dict[str, str],
                                             cli_in_process: CliRun, tmp_path: Path) -> None:
    reference = textbook()
    # phenotypes: acetate as the carbon source, by hand in COBRApy
    proc = gem_flux("phenotypes", str(files["model"]), "--medium", str(files["medium"]), "--panel", "carbon",
                    "--objective", "Biomass_Ecoli_core", "--out", str(tmp_path / "carbon.tsv"), "--json",
                    env=server_env)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    by_id = {r["compound_id"]: r for r in table(tmp_path / "carbon.tsv")}
    with reference:
        reference.reactions.EX_glc__D_e.lower_bound = 0.0
        reference.reactions.EX_ac_e.lower_bound = -10.0
        acetate = reference.slim_optimize()
    assert float(by_id["cpd00029"]["growth"]) == pytest.approx(acetate, abs=1e-6) and acetate > 0.1
    assert by_id["cpd00029"]["status"] == "growth" and answer["base_growth"] == pytest.approx(0.0, abs=1e-9)
    assert sum(r["status"] == "no_uptake" for r in by_id.values()) > 50
    # fva
    proc = gem_flux("fva", str(files["model"]), "--medium", str(files["medium"]), "--objective",
                    "Biomass_Ecoli_core", "--out", str(tmp_path / "fva.tsv"), env=server_env)
    assert proc.returncode == 0, proc.stderr
    expected = flux_variability_analysis(reference, fraction_of_optimum=0.9)
    rows = table(tmp_path / "fva.tsv")
    assert len(rows) == len(reference.reactions)
    for row in rows:
        assert float(row["minimum"]) == pytest.approx(expected.loc[row["reaction_id"], "minimum"], abs=1e-6)
        assert float(row["maximum"]) == pytest.approx(expected.loc[row["reaction_id"], "maximum"], abs=1e-6)
    # compare against a copy without PFL
    other = textbook()
    other.remove_reactions(["PFL"])
    save_json_model(other, str(tmp_path / "nopfl.json"))
    proc = gem_flux("compare", str(files["model"]), str(tmp_path / "nopfl.json"), "--medium", str(files["medium"]),
                    "--out", str(tmp_path / "diff.tsv"), env=server_env)
    assert proc.returncode == 0, proc.stderr
    assert "reactions: 1 only in A, 0 only in B" in proc.stdout
    assert {"kind": "reaction", "side": "only_a", "id": "PFL"} in table(tmp_path / "diff.tsv")
    # the growth of each, as the compare_models tool computes it, and as COBRApy does (the medium
    # is the textbook's own, so its optimum)
    grown = next(line for line in proc.stdout.splitlines() if line.startswith("growth on medium:"))
    a_text, b_text = (part.split()[-1] for part in grown.split(":", 1)[1].split(","))
    assert float(a_text) == pytest.approx(reference.slim_optimize(), abs=1e-6)
    assert float(b_text) == pytest.approx(other.slim_optimize(), abs=1e-6)
    # errors: clear message, exit 1
    code, _, said = cli_in_process("fva", str(files["model"]), "--medium", "no_such_medium")
    assert code == 1 and "INVALID_MEDIA" in said
    code, _, said = cli_in_process("phenotypes", str(files["model"]), "--medium", str(files["medium"]),
                                   "--compounds", "cpd99999")
    assert code == 1 and "INVALID_COMPOUND_IDS" in said


@pytest.mark.slow
def test_diagnose_command_names_what_a_broken_model_cannot_make(files: dict[str, Path], server_env: dict[str, str],
                                                                 tmp_path: Path) -> None:
    """The textbook model without its glutamine synthetase (GLNS) cannot make glutamine, a
    biomass substrate: COBRApy confirms no growth, the command names L-glutamine."""
    broken = textbook()
    broken.remove_reactions(["GLNS"])
    assert broken.slim_optimize(error_value=0.0) < 1e-6
    save_json_model(broken, str(tmp_path / "broken.json"))
    proc = gem_flux("diagnose", str(tmp_path / "broken.json"), "--medium", str(files["medium"]), "--biomass",
                    "Biomass_Ecoli_core", "--out", str(tmp_path / "diag.tsv"), "--json", env=server_env)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["diagnosis"]["growth"] == pytest.approx(0.0, abs=1e-9)
    assert "gln__L_c" in answer["diagnosis"]["precursors"]["missing"]
    # a BiGG-namespace model shares no metabolite with the ModelSEED template: no fix, and it says so
    assert answer["fix"]["error_code"] == "GAPFILL_INFEASIBLE" and answer["fix"]["template"] == "GramNegative"
    healthy = gem_flux("diagnose", str(files["model"]), "--medium", str(files["medium"]), "--biomass",
                       "Biomass_Ecoli_core", env=server_env)
    assert healthy.returncode == 0 and "cannot make" not in healthy.stdout


def test_fermentation_command_equals_cobrapy_pfba(files: dict[str, Path], server_env: dict[str, str],
                                                  cli_in_process: CliRun, tmp_path: Path) -> None:
    from cobra.flux_analysis import pfba

    medium = json.loads(files["medium"].read_text())
    del medium["compounds"]["cpd00007"]  # no O2: the core model ferments
    (tmp_path / "anaerobic.json").write_text(json.dumps(medium))
    proc = gem_flux("fermentation", str(files["model"]), "--medium", str(tmp_path / "anaerobic.json"),
                    "--objective", "Biomass_Ecoli_core", "--observed", "acetate,formate,ethanol,lactate",
                    "--out", str(tmp_path / "products.tsv"), "--json", env=server_env)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    reference = textbook()
    reference.reactions.EX_o2_e.lower_bound = 0.0
    solution = pfba(reference)
    growth = solution.fluxes["Biomass_Ecoli_core"]
    expected = {rid: v for rid, v in solution.fluxes.items() if rid.startswith("EX_") and v >= 0.25 * growth}
    assert answer["growth"] == pytest.approx(growth, rel=1e-6)
    assert {"EX_ac_e", "EX_for_e", "EX_etoh_e"} <= set(expected)
    assert [k for k, v in answer["predicted"].items() if v] == ["acetate", "formate", "ethanol"]
    rows = {r["compound_id"]: float(r["flux"]) for r in table(tmp_path / "products.tsv")}
    for rid, cpd in (("EX_ac_e", "cpd00029"), ("EX_for_e", "cpd00047"), ("EX_etoh_e", "cpd00363")):
        assert rows[cpd] == pytest.approx(expected[rid], rel=1e-4)
    assert answer["comparison"]["metrics"]["tp"] == 3 and answer["comparison"]["metrics"]["fn"] == 1
    code, out, said = cli_in_process("fermentation", str(files["model"]), "--medium", str(tmp_path / "anaerobic.json"),
                                     "--objective", "Biomass_Ecoli_core", "--min-ratio", "0")
    assert code != 0 and "INVALID_THRESHOLD" in out + said


def test_file_commands_check_the_model_as_the_tools_do(files: dict[str, Path], server_env: dict[str, str],
                                                      cli_in_process: CliRun) -> None:
    """The file commands build the services' own jobs, so a bad objective or id is refused with the
    tools' codes before any analysis; `gem-flux fba` answers what COBRApy finds."""
    base = ("--medium", str(files["medium"]))
    for command, extra, code in (("essentiality", ("--objective", "no_such_reaction"), "INVALID_OBJECTIVE"),
                                 ("fva", ("--objective", "no_such_reaction"), "INVALID_OBJECTIVE"),
                                 ("fva", ("--objective", "Biomass_Ecoli_core", "--reactions", "PGI,NOPE"),
                                  "INVALID_REACTION"),
                                 ("explain", ("--objective", "Biomass_Ecoli_core", "--gene", "b9999"), "INVALID_GENE"),
                                 ("fba", ("--objective", "no_such_reaction"), "INVALID_OBJECTIVE")):
        exit_code, _, said = cli_in_process(command, str(files["model"]), *base, *extra)
        assert exit_code == 1 and code in said, (command, said)
    proc = gem_flux("fba", str(files["model"]), *base, "--objective", "Biomass_Ecoli_core", "--json", env=server_env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["objective_value"] == pytest.approx(textbook().slim_optimize(), abs=1e-6)
