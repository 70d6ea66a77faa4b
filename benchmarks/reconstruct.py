"""`gem-flux reconstruct` on a real genome, as a user runs it: pyrodigal's test genome
(Corynebacterium diphtheriae NCTC11397, 2.46 Mb, one contig) → genes called → draft → gapfilled
on M9 glucose → validated SBML. Once with `--template auto` (a Gram-negative draft first, then
the GramPositive rebuild) and once with the template given, so the cost of choosing it from the
genome shows as a ratio.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/reconstruct.py [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import pyrodigal

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)

GENOME = Path(pyrodigal.__file__).parent / "tests" / "data" / "GCF_001457455.1_NCTC11397_genomic.fna.gz"


def run(template: str, folder: Path) -> tuple[float, dict[str, object]]:
    gem_flux = shutil.which("gem-flux") or str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "gem-flux")
    report = folder / f"{template}.json"
    started = time.perf_counter()
    subprocess.run([gem_flux, "reconstruct", str(GENOME), "--template", template, "--media", "m9_glucose_aerobic",
                    "--out", str(folder / f"{template}.xml"), "--report", str(report), "--quiet"],
                   check=True, capture_output=True, text=True)
    return time.perf_counter() - started, json.loads(report.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    walls: dict[str, list[float]] = {"auto": [], "GramPositive": []}
    last: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            for template in walls:
                wall, report = run(template, Path(tmp))
                walls[template].append(wall)
                last[template] = report
    auto = last["auto"]
    genes = auto["input"]["genes_called"]  # type: ignore[index]
    print(f"genome {GENOME.name}: {genes} genes called in {auto['input']['gene_calling_s']} s "  # type: ignore[index]
          f"(pyrodigal, {auto['input']['gene_calling_mode']} mode)")  # type: ignore[index]
    print(f"template auto → {auto['template']}: {auto['template_reason']}")
    print("| run | wall s (median) | build s | gapfill s | reactions | growth on M9 glucose |")
    print("|---|---|---|---|---|---|")
    for template, values in walls.items():
        report = last[template]
        timings = report["timings_s"]
        print(f"| --template {template} | {statistics.median(values):.1f} | {timings['build']} | "  # type: ignore[index]
              f"{timings['gapfill']} | {report['num_reactions']} | {report['growth']} |")  # type: ignore[index]
    ratio = statistics.median(walls["auto"]) / statistics.median(walls["GramPositive"])
    print(f"auto / given template: {ratio:.2f}x wall time")


if __name__ == "__main__":
    main()
