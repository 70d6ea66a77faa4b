"""Score a metabolic model against CarveMe's E. coli phenotype benchmark (Biolog + gene essentiality).

Why: so that our ModelSEED drafts and BiGG models get figures directly comparable with CarveMe's
published ones. The data are the files shipped in the `carveme` package (data/benchmark/) and the
protocol is that of `carveme.reconstruction.benchmark`, re-implemented on COBRApy:

* Medium: every exchange closed for uptake and open (1000) for secretion; medium compounds get an
  uptake bound of 10 (lb -10 for `EX_x: x <=>`, ub +10 when written `<=> x`). M9 is the `M9` entry of
  media_db.tsv (BiGG ids); for ModelSEED models the ids are mapped with the project's BiochemIndex.
* Biolog (ecol, plates C/N/P/S): M9 minus the plate's reference source (C: glc__D, lac__D, lac__L;
  N: nh4; P: pi; S: so4) plus the tested compound at -10 (secretion left open; CarveMe closes it, which
  changes no call on its ecol.xml); growth = objective > 0.1 (infeasible = no
  growth). Observed growth = '+' or '++' ('--' = no growth). As in CarveMe, every row with an id and a
  call is scored, and a compound without an exchange in the model is predicted "no growth". BiGG models
  use the `bigg_id` column. ModelSEED models use the `seed` column, or the BiochemIndex mapping of the
  BiGG id when that column is empty (Capric acid) or has no exchange in the model: the column holds some
  non-canonical ids (L-arabinose cpd19109 not cpd00224, cellobiose cpd03845, and methyl methacrylate
  cpd10226 for methylamine `mma`).
* Essentiality (M9 with glucose): single-gene knock-outs via COBRApy; essential = growth < 10 % of the
  wild type or not optimal. ecol.tsv lists essential genes only (b-numbers; our ModelSEED models use the
  FASTA ids, also b-numbers). As CarveMe does, when a file has no 'NE' rows every model gene not listed is
  non-essential; otherwise only listed genes that are in the model are scored. A leading 'G_' is ignored.

Solver: GLPK (warm-started knock-outs are ~25x faster than optlang's HiGHS "hybrid" interface here);
any non-optimal knock-out is re-solved with HiGHS to rule out a GLPK failure.

Usage: python -m benchmarks.phenotypes.score MODEL.xml|MODEL.json [--namespace auto|bigg|modelseed]
       [--json out.json] [--processes 2]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import math
import re
import time
from functools import cache
from pathlib import Path
from typing import Any

import cobra
from cobra.flux_analysis import single_gene_deletion

BENCH = Path(importlib.util.find_spec("carveme").origin or "").parent / "data" / "benchmark"  # type: ignore[union-attr]
PLATES = {"carbon": {"glc__D", "lac__D", "lac__L"}, "nitrogen": {"nh4"}, "phosphorus": {"pi"}, "sulfur": {"so4"}}
UPTAKE, OPEN, MIN_GROWTH, ESSENTIAL_FRACTION = 10.0, 1000.0, 0.1, 0.1
NAN = float("nan")


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return [{k: (v or "").strip() for k, v in row.items()} for row in csv.DictReader(handle, delimiter="\t")]


@cache
def bigg_to_seed(bigg_ids: frozenset[str]) -> dict[str, str]:
    """BiGG compound id -> ModelSEED id, via the project's biochemistry index (GEMFLUX_DATA_DIR)."""
    from gem_flux_mcp.config import Settings
    from gem_flux_mcp.data.biochem import BiochemIndex

    settings = Settings.resolve()
    return BiochemIndex.open(settings.data_dir, settings.cache_dir).compound_ids_for_external("BiGG", bigg_ids)


def m9_bigg() -> list[str]:
    return [r["compound"] for r in _rows(BENCH / "media_db.tsv") if r["medium"] == "M9"]


def to_namespace(bigg_ids: list[str], namespace: str) -> tuple[dict[str, str], list[str]]:
    """Map BiGG ids into the namespace: ({bigg: id}, [unmapped bigg ids])."""
    if namespace == "bigg":
        return {b: b for b in bigg_ids}, []
    found = bigg_to_seed(frozenset(bigg_ids))
    return {b: found[b] for b in bigg_ids if b in found}, [b for b in bigg_ids if b not in found]


def load_m9(namespace: str, without: frozenset[str] = frozenset()) -> dict[str, float]:
    """M9 as {compound id in `namespace`: exchange lower bound}, leaving out the BiGG ids in `without`."""
    mapped, _ = to_namespace(m9_bigg(), namespace)
    return {cid: -UPTAKE for b, cid in mapped.items() if b not in without}


def exchanges(model: cobra.Model) -> dict[str, tuple[cobra.Reaction, float]]:
    """{compound id without compartment suffix: (exchange reaction, coefficient of its metabolite)}."""
    found: dict[str, tuple[cobra.Reaction, float]] = {}
    for rxn in model.exchanges:
        (met, coef), = rxn.metabolites.items()
        found[re.sub(r"_[a-z]\d*$", "", met.id)] = (rxn, coef)
    return found


def _set_uptake(rxn: cobra.Reaction, coef: float, rate: float) -> None:
    rxn.bounds = (-rate, OPEN) if coef < 0 else (-OPEN, rate)


def apply_medium(model: cobra.Model, medium: dict[str, float]) -> list[str]:
    """Close all uptakes, open the medium's; returns the medium compounds without an exchange."""
    ex = exchanges(model)
    for rxn, coef in ex.values():
        _set_uptake(rxn, coef, 0.0)
    for cid, lb in medium.items():
        if cid in ex:
            _set_uptake(*ex[cid], -lb)
    return [cid for cid in medium if cid not in ex]


def confusion(pairs: list[tuple[bool, bool]]) -> dict[str, Any]:
    """(observed, predicted) pairs -> counts, accuracy and MCC (None when undefined)."""
    tp = sum(o and p for o, p in pairs)
    fp = sum(p and not o for o, p in pairs)
    fn = sum(o and not p for o, p in pairs)
    tn = len(pairs) - tp - fp - fn
    den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return {"n": len(pairs), "TP": tp, "FP": fp, "TN": tn, "FN": fn,
            "accuracy": (tp + tn) / len(pairs) if pairs else None, "mcc": (tp * tn - fp * fn) / den if den else None}


def _prepare(model: cobra.Model, namespace: str) -> None:
    if namespace == "modelseed" and "bio1" in model.reactions:
        model.objective = "bio1"


def score_biolog(model: cobra.Model, namespace: str) -> dict[str, Any]:
    _prepare(model, namespace)
    ex = exchanges(model)
    calls: list[dict[str, Any]] = []
    for plate, reference in PLATES.items():
        data = [r for r in _rows(BENCH / "biolog" / "ecol" / f"biolog_{plate}.tsv") if r["bigg_id"] and r["growth"]]
        mapped, _ = to_namespace([r["bigg_id"] for r in data], namespace)
        with model:
            apply_medium(model, load_m9(namespace, frozenset(reference)))
            for row in data:
                ids = [row["bigg_id"]] if namespace == "bigg" else [row["seed"], mapped.get(row["bigg_id"], "")]
                cid = next((i for i in ids if i in ex), next((i for i in ids if i), ""))
                growth = NAN
                if cid in ex:
                    with model:
                        _set_uptake(*ex[cid], UPTAKE)
                        growth = model.slim_optimize(error_value=NAN)
                calls.append({"plate": plate, "bigg_id": row["bigg_id"], "compound": cid, "exchange": cid in ex,
                              "observed": row["growth"] in {"+", "++"}, "growth": growth,
                              "predicted": growth > MIN_GROWTH})  # NaN > x is False
    result = {p: confusion([(c["observed"], c["predicted"]) for c in calls if c["plate"] == p]) for p in PLATES}
    result["all"] = confusion([(c["observed"], c["predicted"]) for c in calls])
    with_ex = sum(c["exchange"] for c in calls)
    return {"plates": result, "compounds_with_exchange": with_ex, "compounds": len(calls), "calls": calls}


def _essentiality_data() -> tuple[set[str], set[str] | None]:
    rows = _rows(BENCH / "essentiality" / "ecol.tsv")
    non_essential = {r["bigg_id"] for r in rows if r["phenotype"] == "NE"}
    return {r["bigg_id"] for r in rows if r["phenotype"] == "E"}, non_essential or None


def score_essentiality(model: cobra.Model, namespace: str, processes: int = 2) -> dict[str, Any]:
    _prepare(model, namespace)
    essential, non_essential = _essentiality_data()
    genes = {g.id: g.id.removeprefix("G_") for g in model.genes}
    scored = {gid: key for gid, key in genes.items()
              if key in essential or (key in non_essential if non_essential is not None else True)}
    with model:
        missing_m9 = apply_medium(model, load_m9(namespace))
        wild_type = model.slim_optimize(error_value=NAN)
        table = single_gene_deletion(model, gene_list=sorted(scored), processes=processes)
        growth = {next(iter(ids)): (g if status == "optimal" else NAN)
                  for ids, g, status in zip(table["ids"], table["growth"], table["status"], strict=True)}
        rechecked = [gid for gid, g in growth.items() if math.isnan(g)]
        if rechecked:  # confirm GLPK's non-optimal answers with HiGHS
            highs = model.copy()
            highs.solver = "hybrid"
            for gid in rechecked:
                with highs:
                    highs.genes.get_by_id(gid).knock_out()
                    growth[gid] = highs.slim_optimize(error_value=NAN)
    calls = [{"gene": gid, "observed": scored[gid] in essential, "growth": growth[gid],
              "predicted": not growth[gid] >= ESSENTIAL_FRACTION * wild_type} for gid in sorted(scored)]
    return {"metrics": confusion([(c["observed"], c["predicted"]) for c in calls]), "wild_type_growth": wild_type,
            "model_genes": len(genes), "essential_in_model": sum(c["observed"] for c in calls),
            "essential_listed": len(essential), "m9_without_exchange": missing_m9,
            "rechecked_with_highs": len(rechecked),
            "calls": calls}


def load_model(path: Path) -> cobra.Model:
    return cobra.io.load_json_model(path) if path.suffix == ".json" else cobra.io.read_sbml_model(str(path))


def detect_namespace(model: cobra.Model) -> str:
    return "modelseed" if any(re.fullmatch(r"cpd\d{5}", k) for k in exchanges(model)) else "bigg"


def _row(name: str, m: dict[str, Any]) -> str:
    counts = "".join(f"{m[k]:>5}" for k in ("n", "TP", "FP", "TN", "FN"))
    scores = "".join("    n/a" if m[k] is None else f"  {m[k]:5.3f}" for k in ("accuracy", "mcc"))
    return name.ljust(18) + counts + scores


def _finite(value: Any) -> Any:
    """JSON has no NaN: write null for 'no optimum'."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return [_finite(v) for v in value] if isinstance(value, list) else value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--namespace", choices=["auto", "bigg", "modelseed"], default="auto")
    parser.add_argument("--json", type=Path, help="write metrics and per-compound/per-gene calls here")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args(argv)
    model = load_model(args.model)
    namespace = detect_namespace(model) if args.namespace == "auto" else args.namespace
    mapped, unmapped = to_namespace(m9_bigg(), namespace)
    started = time.perf_counter()
    biolog = score_biolog(model, namespace)
    biolog_s = time.perf_counter() - started
    ess = score_essentiality(model, namespace, args.processes)
    ess_s = time.perf_counter() - started - biolog_s
    print(f"model {args.model.name}, namespace {namespace}, objective {model.objective.expression}")
    print(f"M9: {', '.join(f'{b}={c}' for b, c in mapped.items()) if namespace != 'bigg' else ', '.join(mapped)}")
    print(f"M9 unmapped: {unmapped or 'none'}; without exchange: {ess['m9_without_exchange'] or 'none'}")
    print(f"{'':<18}{'n':>5}{'TP':>5}{'FP':>5}{'TN':>5}{'FN':>5}  {'acc':>5}  {'MCC':>5}")
    for name, metrics in biolog["plates"].items():
        print(_row(f"biolog {name}", metrics))
    print(_row("essentiality", ess["metrics"]))
    print(f"Biolog compounds with an exchange: {biolog['compounds_with_exchange']}/{biolog['compounds']} "
          f"({biolog_s:.1f} s)")
    print(f"essential genes in model: {ess['essential_in_model']}/{ess['essential_listed']}, model genes "
          f"{ess['model_genes']}, wild type {ess['wild_type_growth']:.4g}, HiGHS rechecks "
          f"{ess['rechecked_with_highs']} ({ess_s:.1f} s)")
    if args.json:
        report = {"model": str(args.model), "namespace": namespace, "m9": mapped, "m9_unmapped": unmapped,
                  "seconds": {"biolog": biolog_s, "essentiality": ess_s}, "biolog": biolog, "essentiality": ess}
        args.json.write_text(json.dumps(_finite(report), indent=1))


if __name__ == "__main__":
    main()
