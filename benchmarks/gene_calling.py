"""Gene calling with the genetic code chosen from the genome (`translation_table='auto'`) against
pyrodigal called directly with table 11 (what a user runs without Gem-Flux) and against our own
call with the table given: what choosing the table costs, and what it chooses.

Genomes: pyrodigal's test genomes, Corynebacterium diphtheriae NCTC11397 (2.46 Mb, table 11) and
the E. coli contig MIIJ01000039 (870 kb, table 11), and that contig recoded as a table-4 genome
reads (every in-frame TGG -> TGA, every TGA stop -> TAA; tests/models.py).

    .venv/bin/python benchmarks/gene_calling.py [--runs 5]
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pyrodigal

from gem_flux_mcp.modeling.inputs import Protein, parse_fasta
from gem_flux_mcp.modeling.inputs.genome import call_genes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from models import recoded_to_table_4

DATA = Path(pyrodigal.__file__).parent / "tests" / "data"


def genome(name: str) -> list[Protein]:
    records = parse_fasta(gzip.decompress((DATA / name).read_bytes()).decode())
    return [Protein(r.id, r.sequence.upper()) for r in records]


def pyrodigal_direct(contigs: list[Protein]) -> int:
    finder = pyrodigal.GeneFinder()
    finder.train(*(c.sequence for c in contigs), translation_table=11)
    return sum(len(finder.find_genes(c.sequence)) for c in contigs)


def timed(run: Callable[[], Any], runs: int) -> tuple[float, Any]:
    seconds, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = run()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    contig = genome("MIIJ01000039.fna.gz")
    genomes = {"C. diphtheriae (2.46 Mb)": genome("GCF_001457455.1_NCTC11397_genomic.fna.gz"),
               "E. coli contig (870 kb)": contig,
               "E. coli contig recoded to table 4": [recoded_to_table_4(contig[0])]}
    print(f"gene calling, median of {args.runs} runs (s); pyrodigal {version('pyrodigal')}")
    print(f"{'genome':36s} {'pyrodigal 11':>12s} {'ours 11':>8s} {'ours auto':>9s} {'auto/11':>8s} "
          f"{'auto/pyrodigal':>14s}  genes (11 / auto)  table chosen")
    for name, contigs in genomes.items():
        direct, _ = timed(lambda c=contigs: pyrodigal_direct(c), args.runs)  # type: ignore[misc]
        fixed, eleven = timed(lambda c=contigs: call_genes(c, "single", 11), args.runs)  # type: ignore[misc]
        auto, chosen = timed(lambda c=contigs: call_genes(c, "single", "auto"), args.runs)  # type: ignore[misc]
        print(f"{name:36s} {direct:12.2f} {fixed:8.2f} {auto:9.2f} {auto / fixed:7.2f}x {auto / direct:13.2f}x  "
              f"{len(eleven.proteins):5d} / {len(chosen.proteins):<5d}      {chosen.translation_tables[0]}")
        print(f"    {chosen.translation_table_reason}")


if __name__ == "__main__":
    main()
