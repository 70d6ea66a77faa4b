"""Batch reconstruction throughput on this machine: the same genomes built + gapfilled + exported
(1) in a plain loop calling the library in this process, (2) on a Dask LocalCluster with 1 worker
process and (3) with 2 worker processes. Genomes: the E. coli K-12 and B. subtilis 168 proteomes
of the data folder, C. diphtheriae NCTC11397 (pyrodigal's test genome, genes called), and a copy
of the E. coli proteome under another name, so two workers always have work.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/batch.py [--skip-loop]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import pyrodigal

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.media_library import load_media_library
from gem_flux_mcp.services.batch import BatchSpec, find_inputs, run_batch
from gem_flux_mcp.services.batch.runner import plan_tasks
from gem_flux_mcp.services.batch.task import reconstruct_genome

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)

GENOME = Path(pyrodigal.__file__).parent / "tests" / "data" / "GCF_001457455.1_NCTC11397_genomic.fna.gz"
MEDIUM = "glucose_minimal_aerobic"


def inputs(settings: Settings, folder: Path) -> list[Path]:
    genomes = settings.data_dir / "genomes"
    copy = folder / "ecoli_k12_copy.faa"
    shutil.copy(genomes / "ecoli_k12_mg1655.faa", copy)
    return [genomes / "ecoli_k12_mg1655.faa", genomes / "bsubtilis_168.faa", GENOME, copy]


def spec(settings: Settings, paths: list[Path], out: Path) -> BatchSpec:
    medium = dict(load_media_library(settings.data_dir)[MEDIUM].compounds)
    return BatchSpec(tuple(find_inputs(paths)), {MEDIUM: medium}, out, settings.data_dir, settings.cache_dir)


def plain_loop(batch: BatchSpec) -> tuple[float, list[dict[str, Any]]]:
    todo, _ = plan_tasks(batch)
    started = time.perf_counter()
    rows = [reconstruct_genome(task) for task in todo]
    return time.perf_counter() - started, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-loop", action="store_true", help="only the Dask runs")
    args = parser.parse_args()
    settings = Settings.resolve()
    runs: dict[str, tuple[float, list[dict[str, Any]]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = inputs(settings, Path(tmp))
        if not args.skip_loop:
            runs["plain loop (this process)"] = plain_loop(spec(settings, paths, Path(tmp) / "loop"))
        for workers in (1, 2):
            started = time.perf_counter()
            outcome = run_batch(spec(settings, paths, Path(tmp) / f"dask{workers}"), workers=workers)
            runs[f"Dask LocalCluster, {workers} worker(s)"] = (time.perf_counter() - started, outcome.rows)
    n = len(paths)
    print(f"{n} genomes: {', '.join(p.name for p in paths)}; gapfilled on {MEDIUM}; 2 cores")
    print("| run | wall s | genomes/hour | median genome s | peak RSS per worker MB | all ok |")
    print("|---|---|---|---|---|---|")
    for name, (wall, rows) in runs.items():
        print(f"| {name} | {wall:.1f} | {3600 * n / wall:.0f} | {statistics.median(r['total_s'] for r in rows):.1f} | "
              f"{max(r['worker_peak_rss_mb'] for r in rows):.0f} | {all(r['status'] == 'ok' for r in rows)} |")
    one = runs["Dask LocalCluster, 1 worker(s)"][0]
    two = runs["Dask LocalCluster, 2 worker(s)"][0]
    print(f"scaling 1 → 2 workers: {one / two:.2f}x faster")
    if "plain loop (this process)" in runs:
        loop = runs["plain loop (this process)"][0]
        print(f"Dask overhead against the plain loop (1 worker): {(one - loop) / n:+.1f} s per genome "
              f"({one / loop:.2f}x the loop's wall time; includes starting the cluster and loading templates once "
              "per worker)")
    per_genome = statistics.mean(r["total_s"] for r in runs["Dask LocalCluster, 1 worker(s)"][1])
    print(f"mean core-seconds per genome (1 worker): {per_genome:.1f}")


if __name__ == "__main__":
    main()
