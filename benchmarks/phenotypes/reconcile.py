"""How far to trust a model reconciled with Biolog data (issue 32): E. coli K-12 only, the
development organism (the other organisms of CarveMe's benchmark stay held out). For each random
split of a plate's scored wells (70 % fitted, 30 % held out by default), `reconcile_phenotypes`'
service functions fit the gapfilled benchmark model on the fitted wells; the MCC on the held-out
wells before and after says whether the fit generalises, the MCC on the fitted wells what it
reached. Observations are CarveMe's Biolog calls (score.py: '+'/'++' growth, '-'/'--' none),
compounds by ModelSEED's alias of the BiGG id (else the table's seed column), on M9 minus the
plate's reference source, each tested compound at 10 (plan_array, as predict_growth_phenotypes).

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.phenotypes.reconcile MODELS \\
        [--case reference] [--plates carbon] [--seeds 3] [--holdout 0.3] [--json out.json]

`MODELS` is `run.py --models-dir`'s folder (`ecol_<case>.json`).
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
from gem_flux_mcp.modeling.reconcile import Well, split_wells
from gem_flux_mcp.services import reconcile

ORGANISM = "ecol"  # never the held-out organisms


def observations(plate: str) -> dict[str, bool]:
    """{ModelSEED id: grows} of a plate's scored rows; a compound with conflicting calls is left out."""
    rows = score.biolog_rows(ORGANISM, plate)
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
              settings: Settings, biochem: BiochemIndex) -> dict[str, Any]:
    wells = [Well(c, g) for c, g in sorted(observed.items())]
    fitted, held = split_wells(wells, holdout, seed)
    chosen = reconcile.WellSet(tuple((w.compound, w.grows) for w in fitted), tuple((w.compound, w.grows) for w in held),
                               tuple((c, c) for c in observed), (), plate)
    started = time.perf_counter()
    fit = reconcile.run_reconcile(model, m9(), chosen, "GramNegative", settings.data_dir, biochem, None)
    seconds = time.perf_counter() - started
    answer = reconcile.describe(fit, chosen, {}, "fitted", reconcile.uptake_of(chosen, m9()))
    summary = answer["summary"]
    return {"plate": plate, "seed": seed, "seconds": round(seconds, 1), "agreement": answer["agreement"],
            "changes": {k: summary[k] for k in ("reactions_added", "directions_blocked", "reactions_removed",
                                                "conflicts", "unreconciled")},
            "timings": fit.timings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", type=Path)
    parser.add_argument("--case", default="reference", choices=("reference", "left_out"))
    parser.add_argument("--plates", default="carbon")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--holdout", type=float, default=0.3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    settings = Settings.resolve()
    biochem = BiochemIndex.open(settings.data_dir, settings.cache_dir)
    model = cobra.io.load_json_model(str(args.models / f"{ORGANISM}_{args.case}.json"))
    runs = []
    for plate in args.plates.split(","):
        observed = observations(plate)
        for seed in range(args.seeds):
            result = one_split(model, plate, observed, seed, args.holdout, settings, biochem)
            runs.append(result)
            a = result["agreement"]
            print(f"{plate} seed {seed}: held-out MCC {a['held_out']['before']['mcc']} -> "
                  f"{a['held_out']['after']['mcc']}, fitted {a['fitted']['before']['mcc']} -> "
                  f"{a['fitted']['after']['mcc']}; {result['changes']}; {result['seconds']} s", flush=True)
    for plate in args.plates.split(","):
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
