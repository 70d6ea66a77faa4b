"""`gem-flux data index` and `gem-flux build`."""

from __future__ import annotations

from pathlib import Path

import pytest

from gem_flux_mcp.cli.main import main


def test_data_index_builds_once_then_reuses(data_dir: Path, cache_dir: Path, tmp_path: Path) -> None:
    # the session cache already holds the index (built by the biochem fixture users): reuse is instant
    assert main(["data", "index", "--data-dir", str(data_dir), "--cache-dir", str(cache_dir)]) == 0
    assert len(list(cache_dir.glob("biochem-v*.sqlite"))) == 1
    # and the aligner's index of the homology reference, which builds then use, made once (a
    # cache kept between test runs may also hold the index of an older reference)
    def indexes() -> dict[Path, int]:
        return {path: path.stat().st_mtime_ns for path in (cache_dir / "reference").glob("mmseqs-*/target.idx")}

    indexed = indexes()
    assert indexed
    assert main(["data", "index", "--data-dir", str(data_dir), "--cache-dir", str(cache_dir)]) == 0
    assert indexes() == indexed


def test_data_index_fails_clearly_without_data(tmp_path: Path, capsys: object) -> None:
    assert main(["data", "index", "--data-dir", str(tmp_path / "none"), "--cache-dir", str(tmp_path)]) == 1
    assert "not found" in capsys.readouterr().err  # type: ignore[attr-defined]


@pytest.mark.slow
def test_build_command_writes_a_valid_sbml_model(data_dir: Path, cache_dir: Path, tmp_path: Path,
                                                 biochem: object) -> None:
    import json
    import subprocess
    import sys

    import cobra

    source = (data_dir / "genomes" / "bsubtilis_168.faa").read_text().split(">")[1:151]
    fasta = tmp_path / "bsub150.faa"
    fasta.write_text("".join(">" + block for block in source))
    out, report = tmp_path / "bsub.xml", tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "gem_flux_mcp.cli.main", "build", str(fasta), "--template", "GramPositive",
         "--out", str(out), "--report", str(report), "--data-dir", str(data_dir), "--cache-dir", str(cache_dir)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""  # progress goes to stderr
    for stage in ("parse", "annotate", "assemble", "store", "done"):
        assert f"] {stage}:" in proc.stderr
    summary = json.loads(report.read_text())
    model = cobra.io.read_sbml_model(str(out))
    assert len(model.reactions) == summary["num_reactions"] and len(model.genes) == summary["num_genes"] > 20
    assert summary["template_used"] == "GramPositive" and "bio1" in model.reactions
    assert summary["annotation"]["homology"]["template_reactions_supported"] > 20


def test_build_command_reports_input_errors(tmp_path: Path, data_dir: Path, capsys: object) -> None:
    fasta = tmp_path / "dna.faa"
    fasta.write_text(">a\nMK*VL\n>b\n*\n")
    code = main(["build", str(fasta), "--out", str(tmp_path / "m.xml"), "--data-dir", str(data_dir),
                 "--cache-dir", str(tmp_path)])
    assert code == 1
    assert "INVALID_AMINO_ACIDS" in capsys.readouterr().err  # type: ignore[attr-defined]
