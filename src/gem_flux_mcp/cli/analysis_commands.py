"""`gem-flux essentiality|phenotypes|fermentation|fva|explain|compare|diagnose`: the analysis tools on
model files, without a server. The model file and the medium go through the same service that
serves the tool (its job builder checks them on the model, as the tool checks the stored one, and
its job runs the analysis); only storing the result is left out. Each prints a short summary (or
the whole result as JSON with --json) and writes the full table as TSV with --out."""

from __future__ import annotations

import argparse
import csv
import difflib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.cli.errors import answer
from gem_flux_mcp.cli.options import add_rule_option
from gem_flux_mcp.config import Settings
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.rules.catalog import (
    DEFAULT_FRACTION,
    DEFAULT_GROWTH_THRESHOLD,
    DEFAULT_THRESHOLD,
    DELETION_TARGET,
    ESSENTIALITY_THRESHOLD,
    FRACTION_OF_OPTIMUM,
    GROWTH_THRESHOLD,
    MIN_RATIO,
    MIN_RATIO_RULE,
    PANEL,
    UPTAKE_RATE,
)

if TYPE_CHECKING:
    import cobra

    from gem_flux_mcp.data.biochem import BiochemIndex

TRUE = {"1", "true", "yes", "y", "e", "+", "++", "essential", "growth"}
FALSE = {"0", "false", "no", "n", "ne", "-", "--", "non-essential", "nonessential", "no_growth"}


def add_parsers(sub: Any) -> None:
    def common(parser: argparse.ArgumentParser, medium_required: bool = True) -> None:
        parser.add_argument("--medium", required=medium_required,
                            help="a predefined medium name (e.g. glucose_minimal_aerobic) or a JSON file "
                                 "{\"compounds\": {cpd: {\"bounds\": [lower, upper]}}}")
        parser.add_argument("--objective", default="bio1", help="objective reaction (default bio1)")
        parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
        parser.add_argument("--data-dir", help="reference data folder (default: $GEMFLUX_DATA_DIR)")
        parser.add_argument("--cache-dir", help="cache folder (default: $GEMFLUX_CACHE_DIR)")

    ess = sub.add_parser("essentiality", help="single gene (or reaction) deletions of a model file")
    ess.add_argument("model", help="SBML (.xml) or COBRApy JSON model")
    add_rule_option(ess, "--target", DELETION_TARGET, default="genes")
    add_rule_option(ess, "--threshold", ESSENTIALITY_THRESHOLD, default=DEFAULT_THRESHOLD,
                    help="growth ratio below which a deletion is lethal")
    ess.add_argument("--observed", help="TSV: id, essential (1/0, E/NE, true/false) — adds TP/FP/TN/FN and MCC")
    ess.add_argument("--out", help="write every deletion as TSV here")
    common(ess)

    phen = sub.add_parser("phenotypes", help="growth phenotype array (Biolog panels) of a model file")
    phen.add_argument("model", help="SBML (.xml) or COBRApy JSON model")
    add_rule_option(phen, "--panel", PANEL)
    phen.add_argument("--compounds", default="", help="comma-separated ModelSEED compound ids to test")
    add_rule_option(phen, "--growth-threshold", GROWTH_THRESHOLD, default=DEFAULT_GROWTH_THRESHOLD,
                    help="growth (1/h) that counts as growth")
    add_rule_option(phen, "--uptake-rate", UPTAKE_RATE, help="uptake of each tested compound (default: the "
                                                             "reference source's rate in the medium, else 10)")
    phen.add_argument("--observed", help="TSV: compound id, grows (1/0, +/-, true/false)")
    phen.add_argument("--out", help="write the array as TSV here")
    common(phen)

    ferm = sub.add_parser("fermentation", help="fermentation products of a model file: what it secretes at "
                                               "optimal growth (minimal-total-flux solution)")
    ferm.add_argument("model", help="SBML (.xml) or COBRApy JSON model")
    add_rule_option(ferm, "--min-ratio", MIN_RATIO_RULE, default=MIN_RATIO,
                    help="a product's secretion is at least this times the growth rate (default 0.25)")
    ferm.add_argument("--observed", help="comma-separated products seen in vivo (e.g. acetate,lactate,H2): adds "
                                         "TP/FP/TN/FN and MCC over the nine scored products")
    ferm.add_argument("--out", help="write every secreted compound as TSV here")
    common(ferm)

    fva = sub.add_parser("fva", help="flux variability analysis of a model file")
    fva.add_argument("model", help="SBML (.xml) or COBRApy JSON model")
    add_rule_option(fva, "--fraction", FRACTION_OF_OPTIMUM, default=DEFAULT_FRACTION,
                    help="fraction of the optimum to hold (default 0.9)")
    fva.add_argument("--loopless", action="store_true", help="no flux around internal loops (slower)")
    fva.add_argument("--reactions", default="", help="comma-separated reaction ids (default all)")
    fva.add_argument("--out", help="write min/max of every reaction as TSV here")
    common(fva)

    diag = sub.add_parser("diagnose", help="quality report of a model file; why it does not grow on a medium")
    diag.add_argument("model", help="SBML (.xml) or COBRApy JSON model")
    diag.add_argument("--biomass", default="bio1", help="biomass reaction (default bio1)")
    diag.add_argument("--template", default="GramNegative", help="template a fix is searched in (default "
                                                                 "GramNegative)")
    diag.add_argument("--out", help="write every finding as TSV here (check, id, detail)")
    common(diag, medium_required=False)

    why = sub.add_parser("explain", help="why deleting one gene or reaction of a model file does or does not "
                                         "stop growth: the bypass, or what is no longer made")
    why.add_argument("model", help="SBML (.xml) or COBRApy JSON model")
    which = why.add_mutually_exclusive_group(required=True)
    which.add_argument("--gene", help="the gene to delete")
    which.add_argument("--reaction", help="the reaction to delete")
    add_rule_option(why, "--threshold", ESSENTIALITY_THRESHOLD, default=DEFAULT_THRESHOLD,
                    help="growth ratio below which the deletion is lethal")
    common(why)

    cmp_ = sub.add_parser("compare", help="compare two model files")
    cmp_.add_argument("model_a")
    cmp_.add_argument("model_b")
    cmp_.add_argument("--out", help="write every difference as TSV here (kind, side, id)")
    common(cmp_, medium_required=False)


def run(args: argparse.Namespace) -> int:
    commands: dict[str, Callable[[argparse.Namespace, Settings], dict[str, Any]]] = {
        "essentiality": _essentiality, "phenotypes": _phenotypes, "fermentation": _fermentation, "fva": _fva,
        "compare": _compare, "diagnose": _diagnose, "explain": _explain,
    }
    return answer(args, commands[args.command])


# ------------------------------------------------------------------------------ loading


def _biochem(settings: Settings) -> BiochemIndex:
    from gem_flux_mcp.data.biochem import BiochemIndex

    return BiochemIndex.open(settings.data_dir, settings.cache_dir)


def _load(path_text: str) -> cobra.Model:
    from gem_flux_mcp.modeling import model_io

    path = Path(path_text)
    if not path.is_file():
        raise ValidationError(ErrorCode.FILE_NOT_FOUND, f"{path} is not a file.", details={"path": str(path)})
    return model_io.read_model(path, model_io.detect_format(path, None))


def _medium(text: str, settings: Settings) -> tuple[str, dict[str, tuple[float, float]]]:
    from gem_flux_mcp.data.media_library import load_media_library

    library = load_media_library(settings.data_dir)
    if text in library:
        return text, dict(library[text].compounds)
    path = Path(text)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return path.stem, {c: (float(e["bounds"][0]), float(e["bounds"][1])) for c, e in raw["compounds"].items()}
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        similar = difflib.get_close_matches(text, list(library), n=5, cutoff=0.6)
        raise ValidationError(
            ErrorCode.INVALID_MEDIA, f"--medium {text!r} is neither a predefined medium nor a readable medium "
            f"JSON file ({type(exc).__name__}).",
            details={"similar_predefined_media": similar, "num_predefined_media": len(library)},
            suggestions=[*([f"Did you mean {', '.join(similar)}?"] if similar else []),
                         "Predefined media are listed by list_media (e.g. m9_glucose_aerobic, lb_aerobic); or give "
                         "a medium JSON file {\"compounds\": {cpd: {\"bounds\": [lower, upper]}}}."],
        ) from exc


def _on_medium(model: cobra.Model, args: argparse.Namespace, settings: Settings, biochem: BiochemIndex
               ) -> tuple[str, dict[str, tuple[float, float]]]:
    """(the --medium's name, the medium), checked to apply to `model` (MEDIA_INCOMPATIBLE when none
    of its compounds has an exchange); the model is left as it was."""
    from gem_flux_mcp.modeling import media
    from gem_flux_mcp.services.fba import medium_applied

    name, medium = _medium(args.medium, settings)
    with model:
        medium_applied(model, medium, media.exchanges_of(model, biochem), name, model.id or "model")
    return name, medium


def _file_model(args: argparse.Namespace, settings: Settings, biochem: BiochemIndex
                ) -> tuple[cobra.Model, str, str, dict[str, tuple[float, float]]]:
    """(the model file read, its COBRApy JSON, the --medium's name, the medium): what the services'
    job builders take, as they take the stored model in the tools."""
    from cobra.io import to_json

    model = _load(args.model)
    name, medium = _on_medium(model, args, settings, biochem)
    return model, to_json(model), name, medium


def _quiet(stage: str, fraction: float, message: str) -> None:
    return None


def _observed(path_text: str | None) -> dict[str, bool] | None:
    if not path_text:
        return None
    observed: dict[str, bool] = {}
    with Path(path_text).open(newline="", encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            if len(row) < 2 or row[0].startswith("#"):
                continue
            value = row[1].strip().lower()
            if value in TRUE or value in FALSE:
                observed[row[0].strip()] = value in TRUE
    return observed


def _write(path_text: str | None, columns: tuple[str, ...], rows: list[dict[str, Any]]) -> list[str]:
    if not path_text:
        return []
    from gem_flux_mcp.services.tables import write_tsv

    written = write_tsv(Path(path_text), columns, rows)
    return [f"wrote {written['rows']} rows to {written['path']}"]


def _compared(lines: list[str], predicted: list[str], tested: list[str], observed: dict[str, bool] | None,
              label: str) -> dict[str, Any] | None:
    """The comparison with observations (None without any), its numbers added to `lines`."""
    from gem_flux_mcp.services.confusion import compare

    if not observed:
        return None
    comparison = compare(predicted, tested, observed, label)
    m = comparison["metrics"]
    lines.append(f"against observed ({m['compared']} compared): TP {m['tp']}  FP {m['fp']}  TN {m['tn']}  "
                 f"FN {m['fn']}  accuracy {m['accuracy']}  MCC {m['mcc']}")
    return comparison


# ------------------------------------------------------------------------------ commands


def _essentiality(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from gem_flux_mcp.modeling.essentiality import deletion_rows
    from gem_flux_mcp.services.essentiality import COLUMNS, essentiality_job

    model, model_json, medium, compounds = _file_model(args, settings, _biochem(settings))
    job = essentiality_job(model, model.id or "model", model_json, medium, compounds, args.target, None,
                           args.objective, args.threshold)
    outcome = job.run(settings, _quiet)
    rows = deletion_rows(outcome.wild_type_growth, outcome.growth, outcome.closes, job.threshold)
    essential = [r["id"] for r in rows if r["status"] == "essential"]
    slowed = sum(r["status"] == "slowed" for r in rows)
    lines = [f"{len(rows)} {args.target} of {model.id} on {medium}: {len(essential)} essential, {slowed} slowed "
             f"(wild-type growth {outcome.wild_type_growth:.4g} /h)"]
    comparison = _compared(lines, essential, [r["id"] for r in rows], _observed(args.observed), "essential")
    lines += _write(args.out, COLUMNS, rows)
    return {"lines": lines, "rows": rows, "comparison": comparison, "wild_type_growth": outcome.wild_type_growth}


def _phenotypes(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from gem_flux_mcp.data.panels import load_panels
    from gem_flux_mcp.modeling import media
    from gem_flux_mcp.modeling.phenotypes import phenotype_rows
    from gem_flux_mcp.services.phenotypes import COLUMNS, phenotype_job

    threshold = args.growth_threshold
    biochem = _biochem(settings)
    observed = _observed(args.observed)
    extra = [c.strip() for c in args.compounds.split(",") if c.strip()] + list(observed or {})
    tested = media.check_compound_ids(extra, biochem.existing_compound_ids, allow_duplicates=True) if extra else []
    panel = load_panels()[1][args.panel] if args.panel else None
    if panel is None and not tested:
        raise ValidationError(ErrorCode.NO_INPUT_PROVIDED, "Give --panel, --compounds or --observed.")
    model, model_json, name, medium = _file_model(args, settings, biochem)
    job = phenotype_job(model, model.id or "model", model_json, name, medium, panel, tested, args.uptake_rate,
                        args.objective)
    array = job.run(settings, _quiet)
    compounds = list(job.compounds)
    names = {c: n for c, (n, _) in biochem.compound_names(compounds).items()}
    rows = phenotype_rows(compounds, array.growth, array.exchanges, threshold, names)
    grows = [r["compound_id"] for r in rows if r["status"] == "growth"]
    no_uptake = sum(r["status"] == "no_uptake" for r in rows)
    lines = [f"{len(rows)} compounds on {name} minus {', '.join(job.reference_removed) or 'nothing'} (uptake "
             f"{job.uptake:g}): growth on {len(grows)}, no growth on {len(rows) - len(grows) - no_uptake}, "
             f"{no_uptake} cannot be taken up (base growth {array.base_growth:.4g} /h)"]
    comparison = _compared(lines, grows, compounds, {k.lower(): v for k, v in (observed or {}).items()}, "growth")
    lines += _write(args.out, COLUMNS, rows)
    return {"lines": lines, "rows": rows, "comparison": comparison, "base_growth": array.base_growth}


def _fermentation(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from gem_flux_mcp.modeling.fermentation import check_observed
    from gem_flux_mcp.services.fermentation import COLUMNS, fermentation_job, named_products, scored_calls, table_rows

    ratio = args.min_ratio
    observed = check_observed([p.strip() for p in args.observed.split(",") if p.strip()] if args.observed else None)
    biochem = _biochem(settings)
    model, model_json, name, medium = _file_model(args, settings, biochem)
    job = fermentation_job(model, model.id or "model", model_json, name, medium, args.objective, ratio)
    found = job.run(settings, _quiet).result
    products = named_products(biochem, found["products"])
    minor = named_products(biochem, found["minor"])
    made = [k for k, v in found["predicted"].items() if v]
    lines = [f"{model.id} on {name}: growth {found['growth']:.4g} /h; {len(products)} compounds secreted at >= "
             f"{ratio:g} x growth; fermentation products: {', '.join(made) or 'none'}"]
    lines += [f"  {p['name']} ({p['compound_id']}): {p['flux']:.4g} mmol/gDW/h, {p['per_growth']:g} x growth"
              f"{' (also in the medium)' if p['in_medium'] else ''}" for p in products[:15]]
    if found["reversed_atp_transport"]:
        lines.append("warning: ATP-driven transporters run backwards: "
                     + ", ".join(rid for rid, _ in found["reversed_atp_transport"]))
    comparison = None
    if observed:
        predicted, tested = scored_calls(found["predicted"], products, observed)
        comparison = _compared(lines, sorted(predicted), tested, observed, "product")
    rows = table_rows(products + minor)
    lines += _write(args.out, COLUMNS, rows)
    return {"lines": lines, "growth": found["growth"], "predicted": found["predicted"], "products": rows,
            "reversed_atp_transport": found["reversed_atp_transport"], "comparison": comparison}


def _fva(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from gem_flux_mcp.services.variability import COLUMNS, STATUSES, variability_job, variability_rows

    fraction = args.fraction
    model, model_json, medium, compounds = _file_model(args, settings, _biochem(settings))
    wanted = [r.strip() for r in args.reactions.split(",") if r.strip()] or None
    job = variability_job(model, model.id or "model", model_json, medium, compounds, wanted, fraction,
                          args.loopless, args.objective)
    result = job.run(settings, _quiet)
    rows = variability_rows(result.minimum, result.maximum)
    counts = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
    lines = [f"{len(rows)} reactions of {model.id} on {medium} at {fraction:g} of the optimum "
             f"({result.optimum:.4g}): " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items())]
    lines += _write(args.out, COLUMNS, rows)
    return {"lines": lines, "rows": rows, "optimum": result.optimum, "counts": counts}


def _explain(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from gem_flux_mcp.modeling.essentiality import Target
    from gem_flux_mcp.services.explain import explanation_job, explanation_sentence, named_precursors

    target: Target = "genes" if args.gene else "reactions"
    biochem = _biochem(settings)
    model, model_json, medium, compounds = _file_model(args, settings, biochem)
    job = explanation_job(model, model.id or "model", model_json, medium, compounds, target,
                          args.gene or args.reaction, args.objective, args.threshold)
    found = job.run(settings, _quiet).explanation
    precursors = named_precursors(biochem, found)
    lines = [f"{model.id} on {medium}: " + explanation_sentence(target, job.deleted, found, precursors)]
    lines += [f"  {s['change']:<9} {s['reaction_id']:<16} {s['flux_wild_type']:>10.4g} -> {s['flux_deleted']:<10.4g} "
              f"{s['origin']:<22} {','.join(s['genes'][:3]) or '(no gene)'}  {s['name'][:50]}" for s in found["route"]]
    lines += [f"  not made: {p['name'] or p['id']} ({p['id']})" for p in precursors]
    return {**found, "missing_precursors": precursors, "lines": lines}


def _compare(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from gem_flux_mcp.services.compare import side_by_side

    a, b = _load(args.model_a), _load(args.model_b)
    media_list = [_medium(args.medium, settings)] if args.medium else []
    difference, entries = side_by_side(a, b, media_list, _biochem(settings) if media_list else None)
    lines = [f"{kind}: {len(d.only_a)} only in A, {len(d.only_b)} only in B, {d.shared} shared"
             for kind, d in (("reactions", difference.reactions), ("genes", difference.genes),
                             ("metabolites", difference.metabolites))]
    lines.append(f"shared reactions with other bounds or gene rule: {len(difference.changed_reactions)}")
    growth: dict[str, float | None] = {}
    for entry in entries:
        growth = {"A": entry["growth_a"], "B": entry["growth_b"]}
        lines.append(f"growth on {entry['media_id']}: A {growth['A']}, B {growth['B']}")
    rows = [{"kind": kind, "side": side, "id": item}
            for kind, d in (("reaction", difference.reactions), ("gene", difference.genes),
                            ("metabolite", difference.metabolites))
            for side, items in (("only_a", d.only_a), ("only_b", d.only_b)) for item in items]
    rows += [{"kind": "reaction", "side": "changed", "id": r} for r in difference.changed_reactions]
    lines += _write(args.out, ("kind", "side", "id"), rows)
    return {"lines": lines, "rows": rows, "growth": growth}


def _diagnose(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from cobra.io import to_json

    from gem_flux_mcp.data.templates import check_template_name
    from gem_flux_mcp.services.diagnose import DiagnoseJob, finding_rows

    model = _load(args.model)
    name, medium = _medium(args.medium, settings) if args.medium else (None, None)
    job = DiagnoseJob(model_id=model.id or "model", media_id=name, model_json=to_json(model), medium=medium,
                      biomass=args.biomass, template=check_template_name(args.template, settings.data_dir))
    outcome = job.run(settings, lambda *_: None)
    found, fix = outcome.diagnosis, outcome.fix
    counts = found["counts"]
    lines = [f"{model.id}: growth {found['growth']:.4g} /h " + (f"on {name}" if name else "with its stored bounds"),
             ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items()
                       if k not in ("reactions", "metabolites"))]
    if found["precursors"]["missing"]:
        lines.append("cannot make: " + ", ".join(found["precursors"]["missing"]))
    lines += [f"energy from nothing: {c['carrier']} up to {c['max_flux']:.4g} via {', '.join(list(c['members'])[:6])}"
              for c in found["energy_cycles"] if c["max_flux"] > 1e-6]
    if fix and "error_code" not in fix:
        lines.append(f"a gapfill with the {fix['template']} template adds {len(fix['reactions_added'])} reactions: "
                     + ", ".join(r["id"] for r in fix["reactions_added"][:20]))
    elif fix:
        lines.append(f"no gapfill fix: {fix['message']}")
    rows = finding_rows(found)
    lines += _write(args.out, ("check", "id", "detail"), rows)
    return {"lines": lines, "diagnosis": found, "fix": fix}
