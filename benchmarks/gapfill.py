"""Gapfilling, side by side in one run: Gem-Flux (`modeling.gapfill`, sparse LPs on HiGHS) and
ModelSEEDpy 0.4.2 (`MSATPCorrection` + `MSGapfill`, the reference implementation), on the same
draft and medium. Prints wall time, reactions added, growth after, the ratio of times, and the
three quality checks for both results (checked with COBRApy by the same code).

The drafts are built by `gem-flux build` from the E. coli K-12 (GramNegative) and B. subtilis 168
(GramPositive) proteomes of the data folder. ModelSEEDpy runs once per draft (about 10 minutes
for E. coli on 2 cores); `--ours-only` skips it.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/gapfill.py [--genomes ecoli,bsub] [--ours-only]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import cobra

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gapfill_modelseedpy import load_medium_file, run_modelseedpy_reference
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling import gapfill

GENOMES = {"ecoli": ("ecoli_k12_mg1655.faa", "GramNegative"), "bsub": ("bsubtilis_168.faa", "GramPositive")}
MEDIUM = "glucose_minimal_aerobic"


def build(data_dir: Path, genome: str, template: str, out: Path) -> None:
    gem_flux = Path(sys.executable).with_name("gem-flux")
    subprocess.run([str(gem_flux), "build", str(data_dir / "genomes" / genome), "--template", template,
                    "--out", str(out), "--quiet"], check=True)


def checks(model: cobra.Model, medium: dict[str, tuple[float, float]], formulas: dict[str, str]) -> dict[str, Any]:
    return gapfill.quality_checks(model, medium, gapfill.carbon_free(medium, formulas), "bio1", 0.01)


def ours(draft: Path, medium: dict[str, tuple[float, float]], template: str, data_dir: Path,
         biochem: BiochemIndex) -> tuple[dict[str, Any], cobra.Model]:
    model = cobra.io.load_json_model(draft)
    started = time.perf_counter()
    run = gapfill.gapfill_from_data(model, medium, gapfill.GapfillOptions(), template_name=template,
                                    data_dir=data_dir, biochem=biochem)
    wall = time.perf_counter() - started
    genome = run.genome_scale
    added = (len({r for r, _ in genome.added + genome.reversed}) + len(genome.exchanges)) if genome else 0
    atp_added = len(run.atp.added) if run.atp else 0
    return {"seconds": round(wall, 1), "stage_seconds": run.timings, "reactions_added": added + atp_added,
            "atp_stage_added": atp_added, "atp_tests": len(run.atp.tests) if run.atp else 0,
            "atp_directions_blocked": len(run.atp.blocked) if run.atp else 0,
            "growth_after": round(run.growth_after, 4)}, run.model


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--genomes", default="ecoli,bsub")
    parser.add_argument("--ours-only", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"]).resolve()
    medium = load_medium_file(data_dir / "media" / f"{MEDIUM}.json")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        biochem = BiochemIndex.open(data_dir, Path(tmp))
        formulas = {c: f for c, (_, f) in biochem.compound_names(medium).items()}
        for key in args.genomes.split(","):
            genome, template = GENOMES[key]
            draft = Path(tmp) / f"{key}.json"
            build(data_dir, genome, template, draft)
            row, model = ours(draft, medium, template, data_dir, biochem)
            row["checks"] = checks(model, medium, formulas)
            result: dict[str, Any] = {"gem_flux": row}
            if not args.ours_only:
                saved = Path(tmp) / f"{key}_modelseedpy.json"
                reference = run_modelseedpy_reference(draft, medium, data_dir, template_name=template,
                                                      save_model=saved)
                ref = {"seconds": reference.get("total_seconds"),
                       "reactions_added": (reference.get("stage1_added") or 0) + (reference.get("stage2_new") or 0)
                       + (reference.get("stage2_reversed") or 0),
                       "atp_tests": reference.get("atp_tests"), "growth_after": reference.get("growth_after"),
                       "errors": reference.get("errors")}
                if saved.exists():
                    ref["checks"] = checks(cobra.io.load_json_model(saved), medium, formulas)
                result["modelseedpy"] = ref
            results[key] = result
            print(f"\n## {key} ({template}) on {MEDIUM}")
            for name, r in result.items():
                quality = r.get("checks", {})
                print(f"  {name:<12} {r['seconds']:>7} s  {r['reactions_added']:>4} reactions  "
                      f"growth {r['growth_after']}  ATP tests {r['atp_tests']}  checks: no-carbon "
                      f"{quality.get('growth_without_carbon', {}).get('passed')}, ATP-closed "
                      f"{quality.get('atp_with_all_uptakes_closed', {}).get('passed')}, target "
                      f"{quality.get('growth_on_medium', {}).get('passed')}")
            if "modelseedpy" in result and result["modelseedpy"]["seconds"]:
                ratio = result["gem_flux"]["seconds"] / result["modelseedpy"]["seconds"]
                print(f"  time ratio gem-flux / ModelSEEDpy = {ratio:.3f} ({1 / ratio:.1f}x faster)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
