"""`gem-flux gapfill | fba | reconstruct`: the workflow from the shell, without a server or an
assistant. Long steps show progress on stderr; `--json` prints the whole result for scripts, and
`--report` keeps it in a file."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gem_flux_mcp.cli.analysis_commands import _biochem, _load, _medium
from gem_flux_mcp.cli.errors import report_error
from gem_flux_mcp.cli.genome_options import add_genome_options
from gem_flux_mcp.cli.options import add_rule_option
from gem_flux_mcp.cli.progress import progress_reporter
from gem_flux_mcp.config import Settings
from gem_flux_mcp.errors import GemFluxError
from gem_flux_mcp.rules.catalog import (
    FITNESS_THRESHOLD,
    GAPFILL_MODE,
    GAPFILL_TEMPLATE,
    GENOME_TEMPLATE,
    HOLDOUT_FRACTION,
    OBSERVED_THRESHOLD,
    PANEL,
    RECONCILE_MAX_CHANGES,
    SEED,
    TARGET_GROWTH_RATE,
)

DEFAULT_MEDIUM = "glucose_minimal_aerobic"


def add_parsers(sub: Any) -> None:
    def common(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--json", action="store_true", help="print the whole result as JSON on stdout")
        parser.add_argument("--report", help="also write the whole result as JSON here")
        parser.add_argument("--quiet", action="store_true", help="no progress output")
        parser.add_argument("--data-dir", help="reference data folder (default: $GEMFLUX_DATA_DIR)")
        parser.add_argument("--cache-dir", help="cache folder (default: $GEMFLUX_CACHE_DIR)")

    media_help = ("a predefined medium (e.g. glucose_minimal_aerobic) or a medium JSON file; repeat to gapfill "
                  "on several media (in turn, or at once with --together)")
    together_help = ("with several --media: one gapfill on all of them at once, the cheapest set of reactions that "
                     "reaches the target on every medium (default: one medium after the other)")
    gap = sub.add_parser("gapfill", help="gapfill a model file on one or more media")
    gap.add_argument("model", help="SBML (.xml) or COBRApy JSON model, e.g. from gem-flux build")
    gap.add_argument("--media", action="append", required=True, metavar="MEDIUM", help=media_help)
    gap.add_argument("--out", required=True, help="gapfilled model to write: .xml (SBML) or .json")
    add_rule_option(gap, "--template", GAPFILL_TEMPLATE, default="GramNegative",
                    help="template the added reactions come from (default GramNegative)")
    add_rule_option(gap, "--target-growth", TARGET_GROWTH_RATE, default=0.01,
                    help="growth to reach, 1/h (default 0.01)")
    add_rule_option(gap, "--mode", GAPFILL_MODE, default="full")
    gap.add_argument("--together", action="store_true", help=together_help)
    common(gap)

    fba = sub.add_parser("fba", help="flux balance analysis of a model file on a medium")
    fba.add_argument("model", help="SBML (.xml) or COBRApy JSON model")
    fba.add_argument("--medium", default=DEFAULT_MEDIUM, help=f"medium (default {DEFAULT_MEDIUM})")
    fba.add_argument("--objective", default="bio1", help="objective reaction (default bio1)")
    fba.add_argument("--pfba", action="store_true", help="parsimonious FBA (a unique flux map)")
    fba.add_argument("--out", help="write every non-zero flux as TSV here")
    common(fba)

    rec = sub.add_parser("reconstruct", help="genome or proteome to a gapfilled, validated SBML model in one step")
    rec.add_argument("input", metavar="GENOME_OR_PROTEOME",
                     help="protein FASTA, genome FASTA (genes called with Prodigal), GenBank or GFF3; .gz too")
    add_rule_option(rec, "--template", GENOME_TEMPLATE, default="auto",
                    help="auto (default): Gram-negative if the genome shows an outer membrane (outer-membrane "
                          "proteins named, lipopolysaccharide genes)")
    rec.add_argument("--media", action="append", metavar="MEDIUM", help=media_help + f" (default {DEFAULT_MEDIUM})")
    rec.add_argument("--out", required=True, help="model to write: .xml (SBML, default) or .json")
    rec.add_argument("--model-id", help="model id (default: the input file name)")
    add_genome_options(rec)
    rec.add_argument("--together", action="store_true", help=together_help)
    common(rec)

    fit = sub.add_parser("reconcile", help="fit a model file to a phenotype plate (observed growth per compound) "
                                           "and a gene table (observed essentiality)")
    fit.add_argument("model", help="SBML (.xml) or COBRApy JSON model")
    fit.add_argument("--medium", required=True, help="the plate's base medium: a predefined medium or a JSON file")
    fit.add_argument("--plate", help="CSV/TSV: a compound (ModelSEED id or name) or well column, and a growth column "
                                     "(yes/no, 1/0, +/-, or a number with --threshold)")
    fit.add_argument("--genes", help="CSV/TSV gene table: a gene column (gene, locus_tag) and an essential column "
                                     "(yes/no, essential/non-essential) or a fitness column with --fitness-threshold")
    add_rule_option(fit, "--fitness-threshold", FITNESS_THRESHOLD, help="gene table fitness values below it are "
                                                                       "essential")
    fit.add_argument("--out", required=True, help="revised model to write: .xml (SBML) or .json")
    add_rule_option(fit, "--panel", PANEL, help="carbon, nitrogen, phosphorus or sulfur (default: from the plate)")
    add_rule_option(fit, "--threshold", OBSERVED_THRESHOLD, help="numeric plate values above it are growth")
    add_rule_option(fit, "--max-changes", RECONCILE_MAX_CHANGES, help="at most this many changes")
    add_rule_option(fit, "--holdout-fraction", HOLDOUT_FRACTION, help="hold out this fraction of the wells")
    add_rule_option(fit, "--seed", SEED, help="random seed of the holdout split")
    add_rule_option(fit, "--template", GAPFILL_TEMPLATE, default="GramNegative",
                    help="template the added reactions come from (default GramNegative)")
    fit.add_argument("--block-gene-backed", action="store_true",
                     help="also block reactions that have genes where nothing else fits an observation "
                          "(default: list them as conflicts)")
    common(fit)


def run(args: argparse.Namespace) -> int:
    commands: dict[str, Callable[[argparse.Namespace, Settings, float], dict[str, Any]]] = {
        "gapfill": _gapfill, "fba": _fba, "reconstruct": _reconstruct,
        "reconcile": _reconcile}
    started = time.perf_counter()
    try:
        settings = Settings.resolve(data_dir=args.data_dir, cache_dir=args.cache_dir)
        result = commands[args.command](args, settings, started)
    except GemFluxError as exc:
        return report_error(args.command, exc)
    lines = result.pop("lines")
    result["wall_s"] = round(time.perf_counter() - started, 2)
    if args.report:
        Path(args.report).write_text(json.dumps(result, indent=1, default=str) + "\n")
    if args.json:
        print(json.dumps(result, indent=1, default=str))
    else:
        for line in lines:
            print(line)
    return 0


def media_from_args(names: list[str] | None, settings: Settings) -> dict[str, dict[str, tuple[float, float]]]:
    media: dict[str, dict[str, tuple[float, float]]] = {}
    for text in names or [DEFAULT_MEDIUM]:
        name, medium = _medium(text, settings)
        media[name] = medium
    return media


def _write(model: Any, out: Path, biochem: Any) -> dict[str, Any]:
    """Written as export_model writes it: checked, with identifiers.org annotations and SBO terms."""
    from gem_flux_mcp.modeling import model_io
    from gem_flux_mcp.modeling.sbml.annotations import model_annotations

    fmt = model_io.detect_format(out, None)
    written = model_io.export_model_file(model, out, fmt, model_annotations(model, biochem))
    return {"model_file": str(out), "format": fmt, "size_bytes": written.size_bytes,
            "export_warnings": written.warnings}


def _gapfill_lines(steps: list[Any]) -> list[str]:
    return [f"  {s.medium}: growth {s.growth_before:.3g} → {s.growth_after:.3g} /h, {s.reactions_added} reactions "
            f"added, quality checks {'passed' if s.quality_checks_passed else 'FAILED'} ({s.seconds:.1f} s)"
            for s in steps]


def _gapfill(args: argparse.Namespace, settings: Settings, started: float) -> dict[str, Any]:
    from gem_flux_mcp.modeling.model_io import detect_format
    from gem_flux_mcp.modeling.reconstruct import gapfill_in_turn
    out = Path(args.out)
    detect_format(out, None)  # a bad --out fails now, not after the work
    media = media_from_args(args.media, settings)
    model = _load(args.model)
    biochem = _biochem(settings)
    with progress_reporter("gapfill", quiet=args.quiet, started=started) as progress:
        gapfilled, steps = gapfill_in_turn(model, media, args.template, settings.data_dir, biochem,
                                           target_growth=args.target_growth, mode=args.mode, progress=progress,
                                           together=args.together)
    written = _write(gapfilled, out, biochem)
    added = sum(s.reactions_added for s in steps)
    return {
        "model_id": gapfilled.id, **written, "template": args.template,
        "gapfills": [{"medium": s.medium, **s.report} for s in steps],
        "lines": [f"gapfilled {args.model} on {len(media)} medium/media{' at once' if len(steps) < len(media) else ''}"
                  f": {added} reactions added",
                  *_gapfill_lines(steps), f"wrote {written['model_file']} ({len(gapfilled.reactions)} reactions)"],
    }


def _fba(args: argparse.Namespace, settings: Settings, started: float) -> dict[str, Any]:
    from gem_flux_mcp.modeling import fba, media
    from gem_flux_mcp.services.fba import fba_on_model

    biochem = _biochem(settings)
    model = _load(args.model)
    name, medium = _medium(args.medium, settings)
    result = fba_on_model(model, model.id or Path(args.model).stem, name, medium, media.exchanges_of(model, biochem),
                          fba.NameLookup(biochem.reaction_names, biochem.compound_names), args.objective,
                          pfba=args.pfba)
    objective = result["objective_reaction"]
    lines = [f"{objective} on {name}: {result['objective_value']:.6g} ({result['method']}, {result['solver']})",
             f"  {result['interpretation']['metabolism_type']}; carbon sources: "
             f"{', '.join(result['interpretation'].get('carbon_sources', [])) or 'none'}"]
    if args.out:
        from gem_flux_mcp.services.tables import write_tsv

        rows = [{"reaction": rid, "flux": flux} for rid, flux in result["fluxes"].items()]
        written = write_tsv(Path(args.out), ("reaction", "flux"), rows)
        lines.append(f"wrote {written['rows']} fluxes to {written['path']}")
    return {**result, "lines": lines}


def _reconstruct(args: argparse.Namespace, settings: Settings, started: float) -> dict[str, Any]:
    from gem_flux_mcp.modeling.build import BuildOptions
    from gem_flux_mcp.modeling.inputs import read_proteins_file
    from gem_flux_mcp.modeling.model_io import detect_format
    from gem_flux_mcp.modeling.reconstruct import reconstruct

    out = Path(args.out)
    source = Path(args.input)
    detect_format(out, None)
    media = media_from_args(args.media, settings)
    found = read_proteins_file(source, "auto", args.gene_calling, "input", args.translation_table)
    biochem = _biochem(settings)
    model_id = args.model_id or Path(source.name.removesuffix(".gz")).stem
    with progress_reporter("reconstruct", quiet=args.quiet, started=started) as progress:
        for warning in found.warnings:
            progress("read", 0.0, warning)
        result = reconstruct(model_id, found.proteins, media, template=args.template, data_dir=settings.data_dir,
                             cache_dir=settings.cache_dir, biochem=biochem, options=BuildOptions(),
                             progress=progress, together=args.together)
    written = _write(result.model, out, biochem)
    summary = result.summary()
    growth = ", ".join(f"{name} {rate:.3g} /h" for name, rate in result.growth.items())
    return {
        "input": found.report, "warnings": found.warnings, **summary, **written,
        "gapfill_reports": [s.report for s in result.gapfills],
        "lines": [
            f"{source.name}: {found.report['num_proteins']} proteins"
            + (f" ({found.report['genes_called']} genes called)" if "genes_called" in found.report else "")
            + (f", {found.report['num_skipped']} skipped" if found.report["num_skipped"] else ""),
            *([f"genetic code: {found.report['translation_table_reason']}"]
              if found.report.get("translation_table_reason") else []),
            *([f"genome: {summary['genome_completeness']['verdict']}"] if summary["genome_completeness"] else []),
            f"template {result.template}: {result.template_reason}",
            f"draft: {summary['draft'].get('num_reactions')} reactions, {summary['draft'].get('num_genes')} genes",
            *_gapfill_lines(result.gapfills),
            f"growth: {growth}",
            f"wrote {written['model_file']}: {summary['num_reactions']} reactions, {summary['num_genes']} genes "
            f"(build {result.timings['build']:.1f} s, gapfill {result.timings['gapfill']:.1f} s)",
        ],
    }


def _reconcile(args: argparse.Namespace, settings: Settings, started: float) -> dict[str, Any]:
    """The same service functions as reconcile_phenotypes, on a model file."""
    from gem_flux_mcp.modeling.inputs import read_text
    from gem_flux_mcp.modeling.model_io import detect_format
    from gem_flux_mcp.services import reconcile

    out = Path(args.out)
    detect_format(out, None)  # a bad --out fails now, not after the work
    name, medium = _medium(args.medium, settings)
    biochem = _biochem(settings)
    plate = read_text(Path(args.plate), "observed_file_path") if args.plate else None
    table = read_text(Path(args.genes), "genes_file_path") if args.genes else None
    model = _load(args.model)
    reading, panel, gene_reading = reconcile.read_all(biochem, [g.id for g in model.genes], None, plate,
                                                      args.threshold, args.panel, None, None, table,
                                                      args.fitness_threshold)
    wells = reconcile.well_set(reading, panel, args.holdout_fraction, args.seed)
    genes = reconcile.gene_set(gene_reading, args.holdout_fraction, args.seed)
    with progress_reporter("reconcile", quiet=args.quiet, started=started) as progress:
        fit = reconcile.run_reconcile(model, medium, wells, args.template, settings.data_dir, biochem,
                                      args.max_changes, progress=progress, genes=genes,
                                      block_gene_backed=args.block_gene_backed)
    compounds = [c for c, _ in (*wells.fitted, *wells.held_out)]
    names = {c: n for c, (n, _) in biochem.compound_names(compounds).items()}
    answer = reconcile.describe(fit, wells, names, model.id, reconcile.uptake_of(wells, medium), genes)
    written = _write(fit.model, out, biochem)
    summary, agreement = answer["summary"], answer["agreement"]

    def mcc(part: dict[str, Any] | None) -> str:
        return "-" if part is None else f"{part['before']['mcc']} → {part['after']['mcc']}"

    return {
        **answer, **written, "medium": name,
        "lines": [f"reconciled {args.model} with {summary['wells_fitted']} wells on {name}"
                  f"{' (' + str(summary['panel']) + ' panel)' if summary['panel'] else ''}: "
                  f"{summary['reactions_added']} reactions added, {summary['directions_blocked']} directions blocked, "
                  f"{summary['reactions_removed']} removed; {summary['unreconciled']} wells not reconciled, "
                  f"{summary['conflicts']} conflicts, {summary['unmapped_rows']} rows not mapped",
                  f"  MCC on the fitted wells {mcc(agreement['fitted'])}; held out {mcc(agreement['held_out'])}",
                  *([f"  essentiality of {summary['genes_fitted']} genes: MCC "
                     f"{mcc(agreement['essentiality']['fitted'])}; held out "
                     f"{mcc(agreement['essentiality']['held_out'])}; {summary['genes_unreconciled']} genes not "
                     f"reconciled, {summary['unmapped_gene_rows']} gene rows not mapped"]
                    if agreement["essentiality"] else []),
                  f"wrote {written['model_file']} ({len(fit.model.reactions)} reactions)"],
    }
