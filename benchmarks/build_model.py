"""Draft reconstruction benchmark (issue 4): what an offline build gives, and what it costs.

Each case runs `gem-flux build` in a fresh process (so wall time includes imports, template parsing
and the aligner) and reads the JSON report it writes. Peak memory is what the build reports: the
largest resident set of the build process or of the aligner it started.

Cases:
  ecoli-headers      E. coli K-12 proteome with its RefSeq headers (header roles + homology)
  ecoli-ids          the same with headers stripped to ids (homology only has something to use)
  ecoli-ids-no-ecoli ids only, E. coli and Shigella models left out of the homology reference
  ecoli-headers-only headers, no homology (what name matching alone gives)
  bsub-headers       B. subtilis 168, GramPositive template
  bsub-ids-no-bsub   B. subtilis ids only, iYO844 left out of the reference

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/build_model.py [CASE ...] [--aligner mmseqs]
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

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)

ECOLI_MODELS = "iML1515,iSSON_1240,iSF_1195,iSbBS512_1146,iSDY_1059"
CASES: dict[str, tuple[str, str, bool, list[str]]] = {
    # name: (genome file, template, keep headers, extra options)
    "ecoli-headers": ("ecoli_k12_mg1655.faa", "GramNegative", True, []),
    "ecoli-ids": ("ecoli_k12_mg1655.faa", "GramNegative", False, []),
    "ecoli-ids-no-ecoli": ("ecoli_k12_mg1655.faa", "GramNegative", False, ["--exclude-reference", ECOLI_MODELS]),
    "ecoli-headers-only": ("ecoli_k12_mg1655.faa", "GramNegative", True, ["--no-homology"]),
    "bsub-headers": ("bsubtilis_168.faa", "GramPositive", True, []),
    "bsub-ids-no-bsub": ("bsubtilis_168.faa", "GramPositive", False, ["--exclude-reference", "iYO844"]),
}


def strip_headers(source: Path, target: Path) -> None:
    with source.open() as src, target.open("w") as out:
        for line in src:
            out.write(line.split(" ", 1)[0].rstrip("\n") + "\n" if line.startswith(">") else line)


def run_case(name: str, data_dir: Path, work: Path, aligner: str | None) -> dict[str, object]:
    genome, template, headers, extra = CASES[name]
    fasta = data_dir / "genomes" / genome
    if not headers:
        stripped = work / f"{name}.faa"
        strip_headers(fasta, stripped)
        fasta = stripped
    report = work / f"{name}.report.json"
    cmd = [sys.executable, "-m", "gem_flux_mcp.cli.main", "build", str(fasta), "--template", template,
           "--out", str(work / f"{name}.json"), "--report", str(report), *extra]
    env = dict(os.environ)
    if aligner:
        env["GEMFLUX_ALIGNER"] = aligner
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, err = proc.communicate()
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{name} failed:\n{err.decode()[-3000:]}")
    data = json.loads(report.read_text())
    return {"case": name, "wall_s": round(wall, 1), **data}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", default=list(CASES))
    parser.add_argument("--aligner", choices=["diamond", "mmseqs"])
    args = parser.parse_args()
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.cases:
            row = run_case(name, data_dir, Path(tmp), args.aligner)
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    print("| case | reactions | gene-associated | genes | metabolites | exchanges | by source | aligner | wall s |"
          " peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ann = r["annotation"]
        assert isinstance(ann, dict)
        print(f"| {r['case']} | {r['num_reactions']} | {ann['gene_associated_reactions']} | {r['num_genes']} |"
              f" {r['num_metabolites']} | {r['num_exchange_reactions']} |"
              f" {', '.join(f'{k} {v}' for k, v in ann['reactions_by_source'].items())} |"
              f" {ann.get('homology', {}).get('aligner', '-')} | {r['wall_s']} | {r['peak_rss_mb']} |")


if __name__ == "__main__":
    main()
