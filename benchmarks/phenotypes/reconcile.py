"""How far to trust a model reconciled with Biolog data (issue 32): E. coli K-12 or B. subtilis
168, the development organisms (the other organisms of CarveMe's benchmark stay held out). For
each random split of a plate's scored wells (70 % fitted, 30 % held out by default),
`reconcile_phenotypes`' service functions fit the gapfilled benchmark model on the fitted wells;
the MCC on the held-out
wells before and after says whether the fit generalises, the MCC on the fitted wells what it
reached. Observations are CarveMe's Biolog calls (score.py: '+'/'++' growth, '-'/'--' none),
compounds by ModelSEED's alias of the BiGG id (else the table's seed column), on M9 minus the
plate's reference source, each tested compound at 10 (plan_array, as predict_growth_phenotypes).

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.phenotypes.reconcile MODELS \\
        [--organism ecol|bsub] [--case reference] [--plates carbon] [--seeds 3] [--holdout 0.3]
        [--block-gene-backed] [--json out.json]

`--block-gene-backed` fits as `reconcile_phenotypes(block_gene_backed=true)` does: gene-backed
directions may be blocked too, after those without genome evidence.

With `--essentiality` (E. coli) it fits gene essentiality instead (no plate): CarveMe's E. coli
table lists essential genes only, so every other model gene is observed non-essential (score.py's
rule); the genes are split 70/30 alike, the fit runs on the essentiality medium (M9), and the
MCC of the essentiality calls (deletion below 10 % of the wild type's growth) is scored on the
held-out and fitted genes before and after.

`MODELS` is `run.py --models-dir`'s folder (`<organism>_<case>.json`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import cobra
from benchmarks.phenotypes import score

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling.reconcile import Gene, Well, split_wells
from gem_flux_mcp.services import reconcile

ORGANISM = "ecol"  # essentiality: E. coli's table
TEMPLATES = {"ecol": "GramNegative", "bsub": "GramPositive"}  # never the held-out organisms


def observations(plate: str, organism: str = ORGANISM) -> dict[str, bool]:
    """{ModelSEED id: grows} of a plate's scored rows; a compound with conflicting calls is left out."""
    rows = score.biolog_rows(organism, plate)
    mapped, _ = score.to_namespace([r["bigg_id"] for r in rows], "modelseed")
    calls: dict[str, set[bool]] = {}
    for row in rows:
        compound = mapped.get(row["bigg_id"]) or row.get("seed", "")
        if compound.startswith("cpd"):
            calls.setdefault(compound, set()).add(score.observed_growth(row["growth"]))
    return {c: next(iter(v)) for c, v in calls.items() if len(v) == 1}


def m9() -> dict[str, tuple[float, float]]:
    return {cpd: (lower, 1000.0) for cpd, lower in score.load_medium("M9", "modelseed").items()}


def one_split(model: cobra.Model, plate: str, observed: dict[str, bool], seed: int, holdout: float,
              settings: Settings, biochem: BiochemIndex, block_gene_backed: bool = False,
              template: str = "GramNegative") -> dict[str, Any]:
    wells = [Well(c, g) for c, g in sorted(observed.items())]
    fitted, held = split_wells(wells, holdout, seed)
    chosen = reconcile.WellSet(tuple((w.compound, w.grows) for w in fitted), tuple((w.compound, w.grows) for w in held),
                               tuple((c, c) for c in observed), (), plate)
    started = time.perf_counter()
    fit = reconcile.run_reconcile(model, m9(), chosen, template, settings.data_dir, biochem, None,
                                  block_gene_backed=block_gene_backed)
    seconds = time.perf_counter() - started
    answer = reconcile.describe(fit, chosen, {}, "fitted", reconcile.uptake_of(chosen, m9()))
    summary = answer["summary"]
    return {"plate": plate, "seed": seed, "seconds": round(seconds, 1), "agreement": answer["agreement"],
            "changes": {k: summary[k] for k in ("reactions_added", "directions_blocked", "reactions_removed",
                                                "conflicts", "unreconciled")},
            "timings": fit.timings}


def gene_observations(model: cobra.Model) -> dict[str, bool]:
    """{model gene: essential} by CarveMe's E. coli table (every unlisted model gene non-essential)."""
    essential, non_essential = score.essentiality_table(ORGANISM)
    return {g.id: g.id.removeprefix("G_") in essential for g in model.genes
            if non_essential is None or g.id.removeprefix("G_") in essential | non_essential}


def essentiality_split(model: cobra.Model, observed: dict[str, bool], seed: int, holdout: float,
                       settings: Settings, biochem: BiochemIndex) -> dict[str, Any]:
    genes = [Gene(g, e) for g, e in sorted(observed.items())]
    fitted, held = split_wells(genes, holdout, seed)
    chosen = reconcile.GeneSet(tuple((g.gene, g.essential) for g in fitted),
                               tuple((g.gene, g.essential) for g in held), tuple((g, g) for g in observed), ())
    no_wells = reconcile.WellSet((), (), (), (), None)
    medium = {cpd: (lower, 1000.0) for cpd, lower in score.load_medium(
        score.organism_info(ORGANISM).essentiality_medium, "modelseed").items()}
    started = time.perf_counter()
    fit = reconcile.run_reconcile(model, medium, no_wells, "GramNegative", settings.data_dir, biochem, None,
                                  genes=chosen)
    seconds = time.perf_counter() - started
    answer = reconcile.describe(fit, no_wells, {}, "fitted", 10.0, chosen)
    summary = answer["summary"]
    return {"plate": "essentiality", "seed": seed, "seconds": round(seconds, 1),
            "agreement": answer["agreement"]["essentiality"],
            "changes": {k: summary[k] for k in ("reactions_added", "directions_blocked", "reactions_removed",
                                                "conflicts", "genes_unreconciled")},
            "base_growth": [summary["base_growth_before"], summary["base_growth_after"]],
            "quality_checks_passed": summary["quality_checks_passed"], "timings": fit.timings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", type=Path)
    parser.add_argument("--organism", default="ecol", choices=tuple(TEMPLATES))
    parser.add_argument("--case", default="reference", choices=("reference", "left_out"))
    parser.add_argument("--plates", default="carbon")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--holdout", type=float, default=0.3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--essentiality", action="store_true", help="fit gene essentiality instead of plates")
    parser.add_argument("--block-gene-backed", action="store_true",
                        help="let the fit block gene-backed directions too (the tool's block_gene_backed=true)")
    args = parser.parse_args()
    settings = Settings.resolve()
    biochem = BiochemIndex.open(settings.data_dir, settings.cache_dir)
    if args.essentiality and args.organism != ORGANISM:
        parser.error("--essentiality fits E. coli's table only")
    model = cobra.io.load_json_model(str(args.models / f"{args.organism}_{args.case}.json"))
    runs = []
    plates = ["essentiality"] if args.essentiality else args.plates.split(",")
    for plate in plates:
        observed = gene_observations(model) if args.essentiality else observations(plate, args.organism)
        for seed in range(args.seeds):
            result = (essentiality_split(model, observed, seed, args.holdout, settings, biochem) if args.essentiality
                      else one_split(model, plate, observed, seed, args.holdout, settings, biochem,
                                     args.block_gene_backed, TEMPLATES[args.organism]))
            runs.append(result)
            a = result["agreement"]
            print(f"{plate} seed {seed}: held-out MCC {a['held_out']['before']['mcc']} -> "
                  f"{a['held_out']['after']['mcc']}, fitted {a['fitted']['before']['mcc']} -> "
                  f"{a['fitted']['after']['mcc']}; {result['changes']}; {result['seconds']} s", flush=True)
    for plate in plates:
        mine = [r for r in runs if r["plate"] == plate]
        for part in ("held_out", "fitted"):
            for when in ("before", "after"):
                values = [r["agreement"][part][when]["mcc"] for r in mine]
                spread = statistics.stdev(values) if len(values) > 1 else 0.0
                print(f"{plate} {part} {when}: MCC mean {statistics.mean(values):.3f} sd {spread:.3f} "
                      f"(n={len(values)})")
        print(f"{plate}: {statistics.mean(r['seconds'] for r in mine):.1f} s per fit")
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1) + "\n")


if __name__ == "__main__":
    main()
