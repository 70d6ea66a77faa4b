"""`gem-flux build PROTEINS.faa --template T --out model.xml`: the build_model tool without a server."""

from __future__ import annotations

import argparse
import json
import logging
import resource
import sys
import time
from pathlib import Path

from gem_flux_mcp.cli.errors import report_error
from gem_flux_mcp.config import Settings
from gem_flux_mcp.errors import GemFluxError

log = logging.getLogger("gem_flux_mcp")


def build(args: argparse.Namespace) -> int:
    from gem_flux_mcp.data.biochem import BiochemIndex
    from gem_flux_mcp.data.templates import check_template_name
    from gem_flux_mcp.modeling import model_io
    from gem_flux_mcp.modeling.build import BuildOptions, describe_draft
    from gem_flux_mcp.modeling.inputs import read_proteins_file
    from gem_flux_mcp.modeling.reconstruct import build_with_template
    from gem_flux_mcp.modeling.sbml.annotations import model_annotations

    started = time.perf_counter()
    settings = Settings.resolve(data_dir=args.data_dir, cache_dir=args.cache_dir)
    fasta = Path(args.fasta)
    out = Path(args.out)

    def progress(stage: str, fraction: float, message: str) -> None:
        if not args.quiet:
            print(f"[{time.perf_counter() - started:6.1f} s] {stage}: {message}", file=sys.stderr)

    try:
        fmt = model_io.detect_format(out, None)
        template = check_template_name(args.template, settings.data_dir, allow_auto=True)
        progress("parse", 0.0, f"reading {fasta.name}")
        found = read_proteins_file(fasta, "auto", args.gene_calling, "input", args.translation_table)
        for warning in found.warnings:
            progress("parse", 0.02, warning)
        proteins = found.proteins
        biochem = BiochemIndex.open(settings.data_dir, settings.cache_dir)
        options = BuildOptions(
            template=template, use_header_functions=not args.no_header_functions, use_homology=not args.no_homology,
            use_rast=args.rast, aligner=args.aligner,
            exclude_reference_models=tuple(m for m in args.exclude_reference.split(",") if m.strip()),
        )
        model_id = args.model_id or Path(fasta.name.removesuffix(".gz")).stem
        result, call = build_with_template(model_id, proteins, template, options, settings.data_dir,
                                           settings.cache_dir, biochem, progress=progress)
        if call is not None:
            template = call.template
            progress("assemble", 0.9, f"template {template}: {call.reason}")
        progress("store", 0.95, f"writing {out}")
        model_io.write_model(result.model, out, fmt, model_annotations(result.model, biochem))
    except GemFluxError as exc:
        return report_error("build", exc)
    summary = describe_draft(result.model, template, result.annotation)
    peak_kb = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    report = {**summary, **({"template_reason": call.reason} if call is not None else {}),
              "input": found.report, "warnings": found.warnings,
              "model_file": str(out), "format": fmt, "timings_s": result.timings,
              "wall_s": round(time.perf_counter() - started, 2), "peak_rss_mb": peak_kb // 1024}
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=2) + "\n")
    if summary.get("genome_completeness"):
        progress("done", 1.0, f"genome: {summary['genome_completeness']['verdict']}")
    progress("done", 1.0, f"{summary['num_reactions']} reactions, {summary['num_genes']} genes, "
             f"{summary['annotation']['gene_associated_reactions']} gene-associated reactions → {out}")
    return 0
