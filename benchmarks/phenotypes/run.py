"""Phenotype benchmark: build E. coli K-12 and B. subtilis 168 from CarveMe's benchmark proteomes,
gapfill on the organism's benchmark media, and score Biolog growth and gene essentiality with
CarveMe's protocol (score.py).

Per organism, two builds: with the full homology reference, and with the organism's own models left
out of it (what a user with a new genome gets): E. coli + Shigella models for E. coli (template
GramNegative), iYO844 for B. subtilis (template GramPositive). The proteomes are CarveMe's
`fasta/Ecoli_K12_MG1655.faa` and `fasta/Bsubtilis_168.faa` (locus-tag ids, no header functions);
a trailing stop '*' is removed and translations with internal stops (48 E. coli pseudogenes, none in
B. subtilis) are left out.

Gapfilling: on the union of the organism's Biolog and essentiality media at once, as CarveMe's
benchmark (`carve -g M9,LB`): one gapfill on M9 (glucose) and LB (B. subtilis; E. coli needs M9
only) that finds the cheapest set of reactions reaching the target on both. Every media_db.tsv
compound is offered at an uptake of 10, mapped from BiGG to ModelSEED ids with the project's
biochemistry index.

Reference figures with this protocol (E. coli): iML1515 Biolog 0.685 / essentiality 0.945,
CarveMe 0.634 / 0.922; CarveMe's B. subtilis model (`models/bsub.xml`): Biolog 0.452 /
essentiality 0.901.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.phenotypes.run \\
        [--organisms ecol,bsub] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

import cobra
from benchmarks.phenotypes import score

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.reference import Reference
from gem_flux_mcp.modeling import gapfill
from gem_flux_mcp.modeling.annotate import prepare_reference_index
from gem_flux_mcp.modeling.build import BuildOptions, build_draft
from gem_flux_mcp.modeling.inputs import Protein, read_proteins_file

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)

ECOLI_MODELS = ("iML1515", "iSSON_1240", "iSF_1195", "iSbBS512_1146", "iSDY_1059")
BSUB_MODELS = ("iYO844",)


class Setup(NamedTuple):
    template: str
    model_id: str
    cases: dict[str, tuple[str, ...]]  # case name -> reference models left out


SETUPS = {
    "ecol": Setup("GramNegative", "ecoli_bench",
                  {"with E. coli reference": (), "E. coli + Shigella left out": ECOLI_MODELS}),
    "bsub": Setup("GramPositive", "bsub_bench",
                  {"with B. subtilis reference": (), "iYO844 left out": BSUB_MODELS}),
}
CASES = SETUPS["ecol"].cases  # (the E. coli cases, as before)


def proteome(organism: str = "ecol") -> tuple[list[Protein], int]:
    """The benchmark proteome as the file is (the reader strips trailing '*' and skips
    sequences with internal stops), and how many were skipped."""
    found = read_proteins_file(score.BENCH / "fasta" / score.organism_info(organism).fasta, "proteins")
    return found.proteins, found.report["num_skipped"]


def gapfill_media(organism: str) -> list[str]:
    """The media_db.tsv media to gapfill on, in order: the Biolog medium, then the essentiality one."""
    info = score.organism_info(organism)
    return list(dict.fromkeys((info.biolog_medium, info.essentiality_medium)))


def medium_bounds(name: str) -> dict[str, tuple[float, float]]:
    return {cpd: (lower, 1000.0) for cpd, lower in score.load_medium(name, "modelseed").items()}


def m9_medium() -> dict[str, tuple[float, float]]:
    return medium_bounds("M9")


def _added(run: gapfill.GapfillRun) -> int:
    genome = len({r for r, _ in run.genome_scale.added + run.genome_scale.reversed}) if run.genome_scale else 0
    return genome + (len(run.atp.added) if run.atp and not run.atp_reused else 0)


def run_case(organism: str, name: str, excluded: tuple[str, ...], proteins: list[Protein], data_dir: Path,
             cache: Path, biochem: BiochemIndex, models_dir: Path | None = None) -> dict[str, Any]:
    setup = SETUPS[organism]
    # the aligner's index of the reference is built once per installation (`gem-flux data index`,
    # or the first build): timed apart, so build_s is what every later build takes
    started = time.perf_counter()
    prepare_reference_index(Reference.installed(excluded), cache)
    index_s = time.perf_counter() - started
    started = time.perf_counter()
    built = build_draft(setup.model_id, proteins,
                        BuildOptions(template=setup.template, exclude_reference_models=excluded),
                        data_dir, cache, biochem)
    build_s = time.perf_counter() - started
    names = gapfill_media(organism)
    started = time.perf_counter()
    run = gapfill.gapfill_from_data(built.model, {name: medium_bounds(name) for name in names},
                                    gapfill.GapfillOptions(), template_name=setup.template, data_dir=data_dir,
                                    biochem=biochem)
    steps = [{"medium": " + ".join(names), "reactions_added": _added(run),
              "atp_directions_blocked": len(run.atp.blocked) if run.atp else 0,
              "growth_before": round(run.growth_before, 4), "growth_after": round(run.growth_after, 4),
              "growth_by_medium": {name: round(after, 4) for name, (_, after) in run.by_medium.items()},
              "quality_checks_passed": run.quality["all_passed"],
              "atp_per_glucose": run.quality["atp_per_glucose"],
              "seconds": round(time.perf_counter() - started, 1)}]
    model = run.model
    if models_dir is not None:
        models_dir.mkdir(parents=True, exist_ok=True)
        slug = "reference" if not excluded else "left_out"
        cobra.io.save_json_model(model, str(models_dir / f"{organism}_{slug}.json"))
    biolog = score.score_biolog(model, "modelseed", organism)
    essentiality = score.score_essentiality(model, "modelseed", organism=organism)
    return {
        "organism": organism, "case": name, "template": setup.template, "excluded_reference_models": list(excluded),
        "draft_reactions": len(built.model.reactions), "draft_genes": len(built.model.genes),
        "model_reactions": len(model.reactions), "model_genes": len(model.genes),
        "gapfill": steps, "gapfill_reactions_added": sum(s["reactions_added"] for s in steps),
        "quality_checks_passed": all(s["quality_checks_passed"] for s in steps),
        "reference_index_s": round(index_s, 1), "build_s": round(build_s, 1),
        "gapfill_s": round(sum(s["seconds"] for s in steps), 1),
        "biolog": biolog, "essentiality": essentiality,
        "genome_completeness": built.annotation.get("genome_completeness"),
    }


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _line(label: str, m: dict[str, Any], extra: str = "") -> str:
    counts = "".join(f"{m[k]:>5}" for k in ("n", "TP", "FP", "TN", "FN"))
    return f"  {label:<16}{counts}  {_num(m['accuracy']):>6} {_num(m['mcc']):>6}{extra}"


def print_case(result: dict[str, Any]) -> None:
    steps = ", ".join(f"{s['medium']} +{s['reactions_added']} (growth {s['growth_before']} -> {s['growth_after']} /h, "
                      f"{s['seconds']} s, checks {'pass' if s['quality_checks_passed'] else 'FAIL'}, ATP/glucose "
                      f"{s['atp_per_glucose']['aerobic']:g} with O2, {s['atp_per_glucose']['anaerobic']:g} without)"
                      for s in result["gapfill"])
    print(f"\n## {result['organism']}, {result['case']} ({result['template']}): draft {result['draft_reactions']} "
          f"reactions / {result['draft_genes']} genes, build {result['build_s']} s (reference index, once per "
          f"installation: {result['reference_index_s']} s); gapfill {steps}")
    print(f"  {'':<16}{'n':>5}{'TP':>5}{'FP':>5}{'TN':>5}{'FN':>5}  {'acc':>6} {'MCC':>6}  blank-well  no-exchange")
    biolog = result["biolog"]
    for plate, metrics in biolog["plates"].items():
        extra = ""
        if plate in biolog["blank_growth"]:
            extra = f"  {_num(biolog['blank_growth'][plate], 4):>10}  {len(biolog['without_exchange'][plate]):>5}"
        print(_line(f"Biolog {plate}", metrics, extra))
    ess = result["essentiality"]
    print(_line(f"Essential. {ess['medium']}", ess["metrics"]))
    print(f"  Biolog ({biolog['medium']}): {biolog['compounds_with_exchange']}/{biolog['compounds']} compounds with "
          f"an exchange; essentiality ({ess['medium']}): wild type {_num(ess['wild_type_growth'], 4)} /h, "
          f"{ess['listed_in_model']}/{ess['genes_listed']} listed genes in the model "
          f"({ess['essential_in_model']}/{ess['essential_listed']} essential), "
          f"{ess['model_genes']} model genes")
    missing = ", ".join(BIGG_OF.get(c, c) for c in ess["medium_without_exchange"]) or "none"
    print(f"  {ess['medium']} compounds without an exchange in the model: {missing}")


BIGG_OF: dict[str, str] = {}  # ModelSEED id -> BiGG id of the media printed, for readable output


def print_summary(results: list[dict[str, Any]]) -> None:
    print("\n| organism | build | draft rxns / genes | gapfill added | Biolog C | N | P | S | all plates "
          "| essentiality | build / gapfill s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        plates = r["biolog"]["plates"]
        cells = [_num(plates[p]["accuracy"]) for p in ("carbon", "nitrogen", "phosphorus", "sulfur")]
        everything = plates["all"]
        ess = r["essentiality"]["metrics"]
        counts = "/".join(str(everything[k]) for k in ("TP", "FP", "TN", "FN"))
        ess_counts = "/".join(str(ess[k]) for k in ("TP", "FP", "TN", "FN"))
        added = " + ".join(f"{s['reactions_added']} ({s['medium']})" for s in r["gapfill"])
        print(f"| {r['organism']} | {r['case']} | {r['draft_reactions']:,} / {r['draft_genes']:,} | {added} | "
              f"{' | '.join(cells)} | {_num(everything['accuracy'])} ({counts}, MCC {_num(everything['mcc'])}) | "
              f"{_num(ess['accuracy'])} ({ess_counts}, MCC {_num(ess['mcc'])}) | {r['build_s']} / {r['gapfill_s']} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--organisms", default="ecol,bsub", help="comma-separated: ecol, bsub (default both)")
    parser.add_argument("--json", type=Path, help="write the full results here")
    parser.add_argument("--models-dir", type=Path, help="also save each gapfilled model here (COBRApy JSON)")
    args = parser.parse_args(argv)
    organisms = [o.strip() for o in args.organisms.split(",") if o.strip()]
    for organism in organisms:
        if organism not in SETUPS:
            parser.error(f"unknown organism {organism!r}; choose from {', '.join(SETUPS)}")
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"])
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        biochem = BiochemIndex.open(data_dir, cache)
        for organism in organisms:
            info = score.organism_info(organism)
            proteins, dropped = proteome(organism)
            print(f"\n# {organism}: {info.name}; proteome {info.fasta}: {len(proteins)} proteins ({dropped} with "
                  f"internal stops left out); template {SETUPS[organism].template}")
            for medium_name in gapfill_media(organism):
                mapped, unmapped = score.to_namespace(score.medium_bigg(medium_name), "modelseed")
                BIGG_OF.update({cpd: bigg for bigg, cpd in mapped.items()})
                print(f"{medium_name}: {len(mapped)} compounds mapped to ModelSEED ids, without a ModelSEED id: "
                      f"{', '.join(unmapped) or 'none'}")
            print(f"gapfill media, in order: {' then '.join(gapfill_media(organism))}; Biolog on "
                  f"{info.biolog_medium}, essentiality on {info.essentiality_medium}")
            for name, excluded in SETUPS[organism].cases.items():
                result = run_case(organism, name, excluded, proteins, data_dir, cache, biochem, args.models_dir)
                results.append(result)
                print_case(result)
    print_summary(results)
    if args.json:
        args.json.write_text(json.dumps(score._finite(results), indent=1))


if __name__ == "__main__":
    main()
