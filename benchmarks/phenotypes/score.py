"""Score a metabolic model against CarveMe's phenotype benchmark (Biolog + gene essentiality) for
E. coli K-12 MG1655 (`ecol`) or B. subtilis 168 (`bsub`).

Why: so that our ModelSEED drafts and BiGG models get figures directly comparable with CarveMe's
published ones. The data are the files shipped in the `carveme` package (data/benchmark/) and the
protocol is that of `carveme.reconstruction.benchmark` / `carveme.cli.benchmark`, re-implemented on
COBRApy. Only the `ecol` and `bsub` tables are read (the other organisms are a held-out test set).

* Media: every exchange closed for uptake and open (1000) for secretion; medium compounds get an
  uptake bound of 10 (lb -10 for `EX_x: x <=>`, ub +10 when written `<=> x`). Media are entries of
  media_db.tsv (BiGG ids); for ModelSEED models the ids are mapped with the project's BiochemIndex.
  Biolog medium: `M9` for both organisms. Essentiality medium: `M9` (E. coli), `LB` (B. subtilis),
  as in CarveMe's `essentiality_media`.
* Biolog (plates C/N/P/S for both): the medium minus the plate's reference source (C: glc__D,
  lac__D, lac__L; N: nh4; P: pi; S: so4) is the plate's "blank well"; each tested compound is added at
  -10 (secretion left open; CarveMe closes it, which changes no call on its ecol.xml); growth =
  objective > 0.1 (infeasible = no growth). Growth calls: '+' and '++' are growth, '-' and '--' are
  no growth (E. coli's tables use '++', '+', '--'; B. subtilis's also use '-'; CarveMe likewise counts
  only '+'/'++' as growth); any other symbol is an error. As in CarveMe, every row with an id and a call
  is scored (a repeated id once: bsub's mal__L), and a compound without an exchange in the model is
  predicted "no growth". BiGG models use the `bigg_id` column. ModelSEED models use the `seed`
  column, or the BiochemIndex mapping of the
  BiGG id when that column is empty (Capric acid, 2,3-butanediol) or has no exchange in the model: the
  column holds some non-canonical ids (L-arabinose cpd19109 not cpd00224, cellobiose cpd03845, and
  methyl methacrylate cpd10226 for methylamine `mma`). Also reported per plate: growth on the blank
  well, and the tested compounds without an exchange in the model.
* Essentiality: single-gene knock-outs via COBRApy on the organism's essentiality medium; essential =
  growth < 10 % of the wild type or not optimal. ecol.tsv lists essential genes only (b-numbers);
  bsub.tsv lists 75 'E' and 531 'NE' genes (BSU locus tags, the same ids as the FASTA headers of
  CarveMe's `fasta/Bsubtilis_168.faa`, which our ModelSEED models use as gene ids: no mapping needed;
  605 of the 606 are in that FASTA, BSU35609 is not). As CarveMe does, when a file has no 'NE' rows
  every model gene not listed is non-essential; otherwise only listed genes that are in the model are
  scored. A leading 'G_' (BiGG/CarveMe SBML gene ids) is ignored.

Solver: GLPK (warm-started knock-outs are ~25x faster than optlang's HiGHS "hybrid" interface here);
any non-optimal knock-out is re-solved with HiGHS to rule out a GLPK failure.

Usage: python -m benchmarks.phenotypes.score MODEL.xml|MODEL.json [--organism ecol|bsub]
       [--namespace auto|bigg|modelseed] [--json out.json] [--processes 2]
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
from typing import Any, NamedTuple

import cobra
from cobra.flux_analysis import single_gene_deletion

BENCH = Path(importlib.util.find_spec("carveme").origin or "").parent / "data" / "benchmark"  # type: ignore[union-attr]
PLATES = {"carbon": {"glc__D", "lac__D", "lac__L"}, "nitrogen": {"nh4"}, "phosphorus": {"pi"}, "sulfur": {"so4"}}
UPTAKE, OPEN, MIN_GROWTH, ESSENTIAL_FRACTION = 10.0, 1000.0, 0.1, 0.1
GROWTH_CALLS, NO_GROWTH_CALLS = frozenset({"+", "++"}), frozenset({"-", "--"})
NAN = float("nan")


class Organism(NamedTuple):
    """What CarveMe's benchmark (carveme/cli/benchmark.py) uses for one organism. (A NamedTuple, not
    a dataclass: tests load this file with importlib without registering it in sys.modules.)"""

    key: str
    name: str
    fasta: str  # CarveMe's benchmark proteome, in data/benchmark/fasta/
    biolog_medium: str
    essentiality_medium: str
    plates: tuple[str, ...]


ORGANISMS = {
    "ecol": Organism("ecol", "Escherichia coli K-12 MG1655", "Ecoli_K12_MG1655.faa", "M9", "M9", tuple(PLATES)),
    "bsub": Organism("bsub", "Bacillus subtilis 168", "Bsubtilis_168.faa", "M9", "LB", tuple(PLATES)),
}


def organism_info(organism: str) -> Organism:
    if organism not in ORGANISMS:
        raise ValueError(f"unknown organism {organism!r}: this benchmark covers {', '.join(ORGANISMS)}")
    return ORGANISMS[organism]


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


def medium_bigg(medium: str) -> list[str]:
    """The BiGG compound ids of a media_db.tsv entry (e.g. 'M9', 'LB')."""
    found = [r["compound"] for r in _rows(BENCH / "media_db.tsv") if r["medium"] == medium]
    if not found:
        raise ValueError(f"no medium {medium!r} in {BENCH / 'media_db.tsv'}")
    return found


def m9_bigg() -> list[str]:
    return medium_bigg("M9")


def to_namespace(bigg_ids: list[str], namespace: str) -> tuple[dict[str, str], list[str]]:
    """Map BiGG ids into the namespace: ({bigg: id}, [unmapped bigg ids])."""
    if namespace == "bigg":
        return {b: b for b in bigg_ids}, []
    found = bigg_to_seed(frozenset(bigg_ids))
    return {b: found[b] for b in bigg_ids if b in found}, [b for b in bigg_ids if b not in found]


def load_medium(medium: str, namespace: str, without: frozenset[str] = frozenset()) -> dict[str, float]:
    """A media_db.tsv medium as {compound id in `namespace`: exchange lower bound}, leaving out the
    BiGG ids in `without` (BiGG ids that do not map are left out: see `to_namespace`)."""
    mapped, _ = to_namespace(medium_bigg(medium), namespace)
    return {cid: -UPTAKE for b, cid in mapped.items() if b not in without}


def load_m9(namespace: str, without: frozenset[str] = frozenset()) -> dict[str, float]:
    """M9 as {compound id in `namespace`: exchange lower bound}, leaving out the BiGG ids in `without`."""
    return load_medium("M9", namespace, without)


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


def observed_growth(call: str) -> bool:
    """A Biolog table's growth call as growth (True) / no growth (False)."""
    if call in GROWTH_CALLS:
        return True
    if call in NO_GROWTH_CALLS:
        return False
    raise ValueError(f"unknown Biolog growth call {call!r} (expected one of ++, +, -, --)")


def biolog_rows(organism: str, plate: str) -> list[dict[str, str]]:
    """The scored rows of a plate: those with a BiGG id and a growth call (as CarveMe's dropna), one
    per BiGG id, the last one when an id repeats (CarveMe keys its results by id; bsub's carbon plate
    has mal__L twice, 'D,L-Malic Acid' and 'L-Malic Acid', both '++')."""
    path = BENCH / "biolog" / organism_info(organism).key / f"biolog_{plate}.tsv"
    return list({r["bigg_id"]: r for r in _rows(path) if r["bigg_id"] and r["growth"]}.values())


def score_biolog(model: cobra.Model, namespace: str, organism: str = "ecol") -> dict[str, Any]:
    info = organism_info(organism)
    _prepare(model, namespace)
    ex = exchanges(model)
    calls: list[dict[str, Any]] = []
    blank: dict[str, float] = {}
    for plate in info.plates:
        data = biolog_rows(organism, plate)
        mapped, _ = to_namespace([r["bigg_id"] for r in data], namespace)
        with model:
            apply_medium(model, load_medium(info.biolog_medium, namespace, frozenset(PLATES[plate])))
            blank[plate] = model.slim_optimize(error_value=NAN)
            for row in data:
                ids = [row["bigg_id"]] if namespace == "bigg" else [row["seed"], mapped.get(row["bigg_id"], "")]
                cid = next((i for i in ids if i in ex), next((i for i in ids if i), ""))
                growth = NAN
                if cid in ex:
                    with model:
                        _set_uptake(*ex[cid], UPTAKE)
                        growth = model.slim_optimize(error_value=NAN)
                calls.append({"plate": plate, "bigg_id": row["bigg_id"], "name": row.get("compound", ""),
                              "compound": cid, "exchange": cid in ex, "call": row["growth"],
                              "observed": observed_growth(row["growth"]), "growth": growth,
                              "predicted": growth > MIN_GROWTH})  # NaN > x is False
    result = {p: confusion([(c["observed"], c["predicted"]) for c in calls if c["plate"] == p]) for p in info.plates}
    result["all"] = confusion([(c["observed"], c["predicted"]) for c in calls])
    with_ex = sum(c["exchange"] for c in calls)
    return {"organism": organism, "medium": info.biolog_medium, "plates": result,
            "blank_growth": blank,
            "without_exchange": {p: [c["bigg_id"] for c in calls if c["plate"] == p and not c["exchange"]]
                                 for p in info.plates},
            "compounds_with_exchange": with_ex, "compounds": len(calls), "calls": calls}


def essentiality_table(organism: str = "ecol") -> tuple[set[str], set[str] | None]:
    """(essential gene ids, non-essential gene ids or None when the table lists essential genes only)."""
    rows = _rows(BENCH / "essentiality" / f"{organism_info(organism).key}.tsv")
    unknown = {r["phenotype"] for r in rows} - {"E", "NE"}
    if unknown:
        raise ValueError(f"unknown essentiality phenotypes {sorted(unknown)}")
    non_essential = {r["bigg_id"].removeprefix("G_") for r in rows if r["phenotype"] == "NE"}
    return {r["bigg_id"].removeprefix("G_") for r in rows if r["phenotype"] == "E"}, non_essential or None


def score_essentiality(model: cobra.Model, namespace: str, processes: int = 2,
                       organism: str = "ecol") -> dict[str, Any]:
    info = organism_info(organism)
    _prepare(model, namespace)
    essential, non_essential = essentiality_table(organism)
    genes = {g.id: g.id.removeprefix("G_") for g in model.genes}
    scored = {gid: key for gid, key in genes.items()
              if key in essential or (key in non_essential if non_essential is not None else True)}
    with model:
        missing = apply_medium(model, load_medium(info.essentiality_medium, namespace))
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
    listed = essential | (non_essential or set())
    return {"organism": organism, "medium": info.essentiality_medium,
            "metrics": confusion([(c["observed"], c["predicted"]) for c in calls]), "wild_type_growth": wild_type,
            "model_genes": len(genes), "essential_in_model": sum(c["observed"] for c in calls),
            "essential_listed": len(essential), "genes_listed": len(listed),
            "listed_in_model": len(listed & set(genes.values())),
            "medium_without_exchange": missing, "rechecked_with_highs": len(rechecked),
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
    parser.add_argument("--organism", choices=sorted(ORGANISMS), default="ecol")
    parser.add_argument("--namespace", choices=["auto", "bigg", "modelseed"], default="auto")
    parser.add_argument("--json", type=Path, help="write metrics and per-compound/per-gene calls here")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args(argv)
    info = organism_info(args.organism)
    model = load_model(args.model)
    namespace = detect_namespace(model) if args.namespace == "auto" else args.namespace
    media = {name: to_namespace(medium_bigg(name), namespace)
             for name in dict.fromkeys((info.biolog_medium, info.essentiality_medium))}
    started = time.perf_counter()
    biolog = score_biolog(model, namespace, args.organism)
    biolog_s = time.perf_counter() - started
    ess = score_essentiality(model, namespace, args.processes, args.organism)
    ess_s = time.perf_counter() - started - biolog_s
    print(f"model {args.model.name} ({info.name}), namespace {namespace}, objective {model.objective.expression}")
    for name, (mapped, unmapped) in media.items():
        if namespace != "bigg":
            print(f"{name}: {', '.join(f'{b}={c}' for b, c in mapped.items())}")
        print(f"{name} unmapped: {unmapped or 'none'}")
    print(f"{ess['medium']} without exchange: {ess['medium_without_exchange'] or 'none'}")
    print(f"{'':<18}{'n':>5}{'TP':>5}{'FP':>5}{'TN':>5}{'FN':>5}  {'acc':>5}  {'MCC':>5}  blank  no-exchange")
    for name, metrics in biolog["plates"].items():
        extra = ""
        if name in biolog["blank_growth"]:
            extra = f"  {biolog['blank_growth'][name]:5.3f}  {len(biolog['without_exchange'][name]):>4}"
        print(_row(f"biolog {name}", metrics) + extra)
    print(_row(f"essentiality {ess['medium']}", ess["metrics"]))
    print(f"Biolog compounds with an exchange: {biolog['compounds_with_exchange']}/{biolog['compounds']} "
          f"({biolog_s:.1f} s)")
    print(f"essential genes in model: {ess['essential_in_model']}/{ess['essential_listed']}, listed genes in model "
          f"{ess['listed_in_model']}/{ess['genes_listed']}, model genes {ess['model_genes']}, wild type "
          f"{ess['wild_type_growth']:.4g}, HiGHS rechecks {ess['rechecked_with_highs']} ({ess_s:.1f} s)")
    if args.json:
        report = {"model": str(args.model), "organism": args.organism, "namespace": namespace,
                  "media": {n: {"mapped": m, "unmapped": u} for n, (m, u) in media.items()},
                  "seconds": {"biolog": biolog_s, "essentiality": ess_s}, "biolog": biolog, "essentiality": ess}
        args.json.write_text(json.dumps(_finite(report), indent=1))


if __name__ == "__main__":
    main()
