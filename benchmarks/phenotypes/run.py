"""Phenotype benchmark: build E. coli K-12 from CarveMe's benchmark proteome, gapfill on M9
glucose, and score Biolog growth and gene essentiality with CarveMe's protocol (score.py).

Two builds: with the full homology reference, and with the E. coli and Shigella models left out
(what a user with a new genome gets). The proteome is CarveMe's `fasta/Ecoli_K12_MG1655.faa`
(b-number ids, no header functions); 47 pseudogene translations with internal stops are left
out and a trailing stop '*' is removed. Reference figures with this protocol: iML1515 Biolog
0.685 / essentiality 0.945, CarveMe 0.634 / 0.922.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.phenotypes.run [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.phenotypes import score

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling import gapfill
from gem_flux_mcp.modeling.annotate import Protein, read_fasta_file, validate_proteins
from gem_flux_mcp.modeling.build import BuildOptions, build_draft

ECOLI_MODELS = ("iML1515", "iSSON_1240", "iSF_1195", "iSbBS512_1146", "iSDY_1059")
CASES = {"with E. coli reference": (), "E. coli + Shigella left out": ECOLI_MODELS}


def proteome() -> tuple[list[Protein], int]:
    path = score.BENCH / "fasta" / "Ecoli_K12_MG1655.faa"
    proteins = read_fasta_file(path)
    kept = []
    for protein in proteins:
        sequence = protein.sequence.strip().rstrip("*")
        if "*" not in sequence:
            kept.append(Protein(protein.id, sequence, protein.description))
    return validate_proteins(kept), len(proteins) - len(kept)


def m9_medium() -> dict[str, tuple[float, float]]:
    return {cpd: (lower, 1000.0) for cpd, lower in score.load_m9("modelseed").items()}


def run_case(name: str, excluded: tuple[str, ...], proteins: list[Protein], data_dir: Path, cache: Path,
             biochem: BiochemIndex) -> dict[str, Any]:
    started = time.perf_counter()
    built = build_draft("ecoli_bench", proteins, BuildOptions(exclude_reference_models=excluded), data_dir, cache,
                        biochem)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    run = gapfill.gapfill_from_data(built.model, m9_medium(), gapfill.GapfillOptions(), template_name="GramNegative",
                                    data_dir=data_dir, biochem=biochem)
    gapfill_s = time.perf_counter() - started
    model = run.model
    biolog = score.score_biolog(model, "modelseed")
    essentiality = score.score_essentiality(model, "modelseed")
    added = (len(run.genome_scale.added) + len(run.genome_scale.reversed)) if run.genome_scale else 0
    return {
        "case": name, "excluded_reference_models": list(excluded),
        "draft_reactions": len(built.model.reactions), "draft_genes": len(built.model.genes),
        "gapfill_reactions_added": added + (len(run.atp.added) if run.atp else 0),
        "atp_directions_blocked": len(run.atp.blocked) if run.atp else 0,
        "growth_m9": round(run.growth_after, 4), "quality_checks_passed": run.quality["all_passed"],
        "build_s": round(build_s, 1), "gapfill_s": round(gapfill_s, 1),
        "biolog": biolog, "essentiality": essentiality,
    }


def _cell(m: dict[str, Any]) -> str:
    mcc = "n/a" if m.get("mcc") is None else f"{m['mcc']:.3f}"
    return f"{m['accuracy']:.3f} (TP {m['TP']} FP {m['FP']} TN {m['TN']} FN {m['FN']}, MCC {mcc})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the full results here")
    args = parser.parse_args(argv)
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"])
    proteins, dropped = proteome()
    print(f"proteome: {len(proteins)} proteins ({dropped} pseudogenes with internal stops left out)")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        biochem = BiochemIndex.open(data_dir, cache)
        for name, excluded in CASES.items():
            result = run_case(name, excluded, proteins, data_dir, cache, biochem)
            results.append(result)
            print(f"\n## {name}: draft {result['draft_reactions']} reactions / {result['draft_genes']} genes, "
                  f"+{result['gapfill_reactions_added']} gapfill, growth {result['growth_m9']} /h on M9, "
                  f"checks {'pass' if result['quality_checks_passed'] else 'FAIL'}, "
                  f"build {result['build_s']} s, gapfill {result['gapfill_s']} s")
            for plate, metrics in result["biolog"]["plates"].items():
                print(f"  Biolog {plate:<10} {_cell(metrics)}")
            print(f"  Essentiality      {_cell(result['essentiality']['metrics'])}")
    if args.json:
        args.json.write_text(json.dumps(score._finite(results), indent=1))


if __name__ == "__main__":
    main()
