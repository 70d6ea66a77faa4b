"""Fermentation benchmark: the products of the eight development bacteria in the reference data's
`fermentation/` folder, predicted with the gapseq paper's protocol (Zimmermann et al. 2021).

Each proteome is built as a user builds it (`gem-flux reconstruct --template auto`: the template
chosen from the genome), gapfilled on the anaerobic rich medium FT, and asked
`fermentation_products` on FT: growth optimal, the minimal-total-flux solution at that optimum, a
product is predicted when its secretion is at least 0.25 x the growth rate. Nine products are
scored (acetate, formate, ethanol, butyrate, propionate, lactate (L or D, once), succinate,
acetone, H2): 8 x 9 = 72 calls against the products organisms.tsv lists. Printed per organism and
pooled (TP/FP/TN/FN, sensitivity, MCC), with the energy check: no ATP-driven transporter runs in
its ATP-making direction in any growth-optimal solution.

The paper's other organisms are a held-out test: this script reads only the development set.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.phenotypes.fermentation \\
        [--organisms GCF_000005845.2_ASM584v2,...] [--json out.json] [--models-dir DIR]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import cobra

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling import media as media_ops
from gem_flux_mcp.modeling.fermentation import SCORED_PRODUCTS, fermentation_products
from gem_flux_mcp.modeling.inputs import Protein, read_proteins_file
from gem_flux_mcp.modeling.reconstruct import reconstruct

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)

# organisms.tsv's product names -> the scored product they are (others, e.g. n-butanol, are not scored)
OBSERVED_NAMES = {"acetic acid": "acetate", "formic acid": "formate", "ethanol": "ethanol",
                  "butyric acid": "butyrate", "propionic acid": "propionate", "dl-lactic acid": "lactate",
                  "succinic acid": "succinate", "acetone": "acetone", "h2": "H2"}


def organisms(data_dir: Path) -> list[dict[str, str]]:
    with (data_dir / "fermentation" / "organisms.tsv").open(newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def observed_products(row: dict[str, str]) -> set[str]:
    names = (n.strip().lower() for n in row["observed_products"].split(","))
    return {OBSERVED_NAMES[n] for n in names if n in OBSERVED_NAMES}


def ft_medium(data_dir: Path) -> dict[str, tuple[float, float]]:
    raw = json.loads((data_dir / "fermentation" / "FT.json").read_text())
    return {cpd: (float(v["bounds"][0]), float(v["bounds"][1])) for cpd, v in raw["compounds"].items()}


def confusion(pairs: list[tuple[bool, bool]]) -> dict[str, Any]:
    """(predicted, observed) calls -> counts, sensitivity, specificity, MCC."""
    tp = sum(p and o for p, o in pairs)
    fp = sum(p and not o for p, o in pairs)
    fn = sum(o and not p for p, o in pairs)
    tn = len(pairs) - tp - fp - fn
    denominator = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return {"TP": tp, "FP": fp, "TN": tn, "FN": fn,
            "sensitivity": round(tp / (tp + fn), 3) if tp + fn else None,
            "specificity": round(tn / (tn + fp), 3) if tn + fp else None,
            "mcc": round((tp * tn - fp * fn) / denominator, 3) if denominator else 0.0}


def read_proteome(data_dir: Path, row: dict[str, str]) -> list[Protein]:
    return read_proteins_file(data_dir / "fermentation" / row["proteome"], "proteins").proteins


def run_organism(row: dict[str, str], medium: dict[str, tuple[float, float]], data_dir: Path, cache: Path,
                 biochem: BiochemIndex, models_dir: Path | None, proteins: list[Protein] | None = None
                 ) -> dict[str, Any]:
    """One organism built, gapfilled and asked; `proteins` instead of its proteome (benchmarks/mags.py)."""
    if proteins is None:
        proteins = read_proteome(data_dir, row)
    started = time.perf_counter()
    built = reconstruct(row["assembly"], proteins, {"FT": medium}, template="auto", data_dir=data_dir,
                        cache_dir=cache, biochem=biochem)
    seconds = time.perf_counter() - started
    model = built.model
    if models_dir is not None:
        models_dir.mkdir(parents=True, exist_ok=True)
        cobra.io.save_json_model(model, str(models_dir / f"{row['assembly']}.json"))
    with model:
        exchanges, _ = media_ops.put_on_medium(model, medium, biochem)
        result = fermentation_products(model, exchanges, medium)
    observed = observed_products(row)
    predicted = {name for name, made in result.predicted.items() if made}
    step = built.gapfills[0]
    return {
        "assembly": row["assembly"], "organism": row["organism"], "template": built.template,
        "template_reason": built.template_reason, "proteins": len(proteins),
        "draft_reactions": built.draft.get("num_reactions"), "model_reactions": len(model.reactions),
        "gapfill_added": step.reactions_added, "quality_checks_passed": step.quality_checks_passed,
        "growth": result.growth, "seconds": round(seconds, 1), "timings": built.timings,
        "genome_completeness": built.draft.get("genome_completeness"),
        "observed": sorted(observed), "predicted": sorted(predicted),
        "calls": {name: [name in predicted, name in observed] for name in SCORED_PRODUCTS},
        "products": [{"compound": p.compound_id, "name": p.name, "flux": p.flux, "per_growth": p.per_growth,
                      "fva": [p.fva_min, p.fva_max], "in_medium": p.in_medium} for p in result.products],
        "reversed_atp_transport": result.reversed_atp_transport,
    }


def print_organism(r: dict[str, Any]) -> None:
    m = confusion([tuple(v) for v in r["calls"].values()])  # type: ignore[misc]
    print(f"\n## {r['organism']} ({r['assembly']}): {r['template']}; draft {r['draft_reactions']} reactions, "
          f"+{r['gapfill_added']} gapfilled, checks {'pass' if r['quality_checks_passed'] else 'FAIL'}; growth on FT "
          f"{r['growth']:.3f} /h; {r['seconds']} s (build {r['timings'].get('build')} s, gapfill "
          f"{r['timings'].get('gapfill')} s)")
    print(f"  template: {r['template_reason']}")
    print(f"  observed:  {', '.join(r['observed']) or '-'}")
    print(f"  predicted: {', '.join(r['predicted']) or '-'}   TP/FP/TN/FN {m['TP']}/{m['FP']}/{m['TN']}/{m['FN']}")
    top = ", ".join(f"{p['name']} {p['per_growth']:g}x{' (in FT)' if p['in_medium'] else ''}"
                    for p in r["products"][:12])
    print(f"  secreted >= 0.25 x growth: {top or '-'}")
    if r["reversed_atp_transport"]:
        print(f"  ATP-driven transport running backwards: {r['reversed_atp_transport']}")


def print_summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    print("\n| organism | template | TP | FP | TN | FN | MCC | reversed ATP transport |")
    print("|---|---|---|---|---|---|---|---|")
    pooled: list[tuple[bool, bool]] = []
    for r in results:
        pairs = [(bool(p), bool(o)) for p, o in r["calls"].values()]
        pooled += pairs
        m = confusion(pairs)
        print(f"| {r['organism']} | {r['template']} | {m['TP']} | {m['FP']} | {m['TN']} | {m['FN']} | {m['mcc']} "
              f"| {len(r['reversed_atp_transport'])} |")
    total = confusion(pooled)
    print(f"\npooled over {len(pooled)} calls: TP/FP/TN/FN {total['TP']}/{total['FP']}/{total['TN']}/{total['FN']}, "
          f"sensitivity {total['sensitivity']}, specificity {total['specificity']}, MCC {total['mcc']}")
    print("\nper product (TP/FP/TN/FN):")
    for name in SCORED_PRODUCTS:
        m = confusion([(bool(r["calls"][name][0]), bool(r["calls"][name][1])) for r in results])
        print(f"  {name:<11} {m['TP']}/{m['FP']}/{m['TN']}/{m['FN']}")
    reversed_total = sum(len(r["reversed_atp_transport"]) for r in results)
    print(f"\ngrowth-optimal solutions with an ATP-driven transporter run backwards: {reversed_total}")
    return total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--organisms", help="comma-separated assembly ids (default: all eight)")
    parser.add_argument("--json", type=Path, help="write the full results here")
    parser.add_argument("--models-dir", type=Path, help="also save each gapfilled model here (COBRApy JSON)")
    args = parser.parse_args(argv)
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"])
    rows = organisms(data_dir)
    if args.organisms:
        wanted = {a.strip() for a in args.organisms.split(",") if a.strip()}
        unknown = wanted - {r["assembly"] for r in rows}
        if unknown:
            parser.error(f"not in the development set: {', '.join(sorted(unknown))}")
        rows = [r for r in rows if r["assembly"] in wanted]
    medium = ft_medium(data_dir)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(os.environ.get("GEMFLUX_CACHE_DIR", tmp))
        biochem = BiochemIndex.open(data_dir, cache)
        for row in rows:
            result = run_organism(row, medium, data_dir, cache, biochem, args.models_dir)
            results.append(result)
            print_organism(result)
    total = print_summary(results)
    if args.json:
        args.json.write_text(json.dumps({"organisms": results, "pooled": total}, indent=1))


if __name__ == "__main__":
    main()
