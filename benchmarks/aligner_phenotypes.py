"""DIAMOND against MMseqs2 where it matters: the phenotype scores of the models they lead to.

Runs the phenotype benchmark (E. coli and B. subtilis, each with the full homology reference and
with its own models left out: Biolog and gene essentiality, `benchmarks.phenotypes.run`) and the
fermentation benchmark (the eight bacteria of `GEMFLUX_DATA_DIR/fermentation`,
`benchmarks.phenotypes.fermentation`) once per aligner, in one run, each in its own process with
`GEMFLUX_ALIGNER` set, and prints them side by side: draft reactions, build time, scores.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.aligner_phenotypes \\
        [--diamond /path/to/diamond] [--only phenotypes|fermentation] [--json out.json]

DIAMOND must be on PATH or given with `--diamond` (Debian: `apt-get install diamond-aligner`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)

ALIGNERS = ("mmseqs", "diamond")
BENCHMARKS = {"phenotypes": "benchmarks.phenotypes.run", "fermentation": "benchmarks.phenotypes.fermentation"}


def run_benchmark(module: str, aligner: str, env: dict[str, str], out: Path) -> tuple[Any, float]:
    """One benchmark with one aligner: its JSON results and its wall time."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", module, "--json", str(out)], env={**env, "GEMFLUX_ALIGNER": aligner},
                   check=True, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text()), time.perf_counter() - started


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a is not None and b else "n/a"


def print_phenotypes(by_aligner: dict[str, list[dict[str, Any]]]) -> None:
    print("\n| organism, case | aligner | draft reactions / genes | build s | Biolog MCC (TP/FP/TN/FN) "
          "| essentiality MCC (TP/FP/TN/FN) |")
    print("|---|---|---|---|---|---|")
    for i, first in enumerate(by_aligner[ALIGNERS[0]]):
        for aligner in ALIGNERS:
            r = by_aligner[aligner][i]
            biolog, ess = r["biolog"]["plates"]["all"], r["essentiality"]["metrics"]
            counts = ["/".join(str(m[k]) for k in ("TP", "FP", "TN", "FN")) for m in (biolog, ess)]
            print(f"| {first['organism']}, {first['case']} | {aligner} | {r['draft_reactions']:,} / "
                  f"{r['draft_genes']:,} | {r['build_s']} | {biolog['mcc']:.3f} ({counts[0]}) | "
                  f"{ess['mcc']:.3f} ({counts[1]}) |")
    for i, first in enumerate(by_aligner[ALIGNERS[0]]):
        other = by_aligner[ALIGNERS[1]][i]
        print(f"build time {ALIGNERS[1]}/{ALIGNERS[0]}, {first['organism']} {first['case']}: "
              f"{_ratio(other['build_s'], first['build_s'])}")


def print_fermentation(by_aligner: dict[str, dict[str, Any]]) -> None:
    print("\n| organism | aligner | template | draft reactions | build s | TP/FP/TN/FN |")
    print("|---|---|---|---|---|---|")
    for i, first in enumerate(by_aligner[ALIGNERS[0]]["organisms"]):
        for aligner in ALIGNERS:
            r = by_aligner[aligner]["organisms"][i]
            calls = [tuple(v) for v in r["calls"].values()]
            tp = sum(p and o for p, o in calls)
            fp = sum(p and not o for p, o in calls)
            fn = sum(o and not p for p, o in calls)
            print(f"| {first['organism']} | {aligner} | {r['template']} | {r['draft_reactions']} | "
                  f"{r['timings'].get('build')} | {tp}/{fp}/{len(calls) - tp - fp - fn}/{fn} |")
    for aligner in ALIGNERS:
        pooled = by_aligner[aligner]["pooled"]
        builds = sum(r["timings"].get("build") or 0 for r in by_aligner[aligner]["organisms"])
        print(f"{aligner}: pooled MCC {pooled['mcc']} (TP/FP/TN/FN {pooled['TP']}/{pooled['FP']}/{pooled['TN']}/"
              f"{pooled['FN']}), sensitivity {pooled['sensitivity']}; builds {builds:.1f} s in all")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--diamond", type=Path, help="the diamond binary (default: the one on PATH)")
    parser.add_argument("--only", choices=sorted(BENCHMARKS), help="run one of the two benchmarks")
    parser.add_argument("--json", type=Path, help="write every result here")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if args.diamond:
        env["PATH"] = f"{args.diamond.resolve().parent}{os.pathsep}{env.get('PATH', '')}"
    if not shutil.which("diamond", path=env.get("PATH")):
        parser.error("diamond is not on PATH; give it with --diamond")
    names = [args.only] if args.only else list(BENCHMARKS)
    everything: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            everything[name] = {}
            for aligner in ALIGNERS:
                found, seconds = run_benchmark(BENCHMARKS[name], aligner, env, Path(tmp) / f"{name}-{aligner}.json")
                everything[name][aligner] = found
                print(f"{name} with {aligner}: {seconds:.0f} s", flush=True)
    if "phenotypes" in everything:
        print_phenotypes(everything["phenotypes"])
    if "fermentation" in everything:
        print_fermentation(everything["fermentation"])
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))


if __name__ == "__main__":
    main()
