"""`gem-flux data index` builds the index ahead of the first serve."""

from __future__ import annotations

from pathlib import Path

from gem_flux_mcp.cli.main import main


def test_data_index_builds_once_then_reuses(data_dir: Path, cache_dir: Path, tmp_path: Path) -> None:
    # the session cache already holds the index (built by the biochem fixture users): reuse is instant
    assert main(["data", "index", "--data-dir", str(data_dir), "--cache-dir", str(cache_dir)]) == 0
    assert len(list(cache_dir.glob("biochem-v*.sqlite"))) == 1


def test_data_index_fails_clearly_without_data(tmp_path: Path, capsys: object) -> None:
    assert main(["data", "index", "--data-dir", str(tmp_path / "none"), "--cache-dir", str(tmp_path)]) == 1
    assert "not found" in capsys.readouterr().err  # type: ignore[attr-defined]
