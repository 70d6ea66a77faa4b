"""`gem-flux batch GENOME_OR_FOLDER… --media … --out DIR`: many genomes to gapfilled, checked SBML
models on Dask (local worker processes, or an existing cluster's scheduler), resumable, with a
summary table; see services/batch."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.cli.errors import EXIT_UNFINISHED, report_error
from gem_flux_mcp.cli.genome_options import add_genome_options
from gem_flux_mcp.cli.options import add_rule_option
from gem_flux_mcp.cli.progress import progress_reporter
from gem_flux_mcp.config import Settings
from gem_flux_mcp.errors import GemFluxError
from gem_flux_mcp.rules.catalog import GENOME_TEMPLATE, PANEL, PANEL_NAMES, WORKERS
from gem_flux_mcp.server.access import LOCAL_WORKSPACE

if TYPE_CHECKING:
    from gem_flux_mcp.services.batch import ClusterLost



def add_parser(sub: Any) -> None:
    batch = sub.add_parser("batch", help="reconstruct many genomes or proteomes on Dask (resumable)")
    batch.add_argument("inputs", nargs="+", metavar="GENOME_OR_FOLDER",
                       help="protein or genome FASTA, GenBank or GFF3 files (.gz too), or folders of them")
    batch.add_argument("--media", action="append", metavar="MEDIUM",
                       help="predefined medium or medium JSON file to gapfill on; repeat for several, in turn "
                            "(default glucose_minimal_aerobic)")
    batch.add_argument("--out", required=True, help="output folder: models/, reports/, summary.tsv, summary.json")
    add_rule_option(batch, "--template", GENOME_TEMPLATE, default="auto")
    add_genome_options(batch)
    add_rule_option(batch, "--phenotypes", PANEL, action="append", metavar="PANEL",
                    help=f"also run this phenotype panel on the first medium ({', '.join(PANEL_NAMES)})")
    where = batch.add_mutually_exclusive_group()
    add_rule_option(where, "--workers", WORKERS, default=2, help="local Dask worker processes (default 2)")
    where.add_argument("--scheduler", help="an existing Dask scheduler, e.g. tcp://HOST:8786")
    batch.add_argument("--store", action="store_true", help="also keep the models in the state store")
    batch.add_argument("--state-dir", help="state folder for --store (default: $GEMFLUX_STATE_DIR)")
    batch.add_argument("--database-url", help="PostgreSQL store for --store (default: $GEMFLUX_DATABASE_URL)")
    batch.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    batch.add_argument("--quiet", action="store_true", help="no progress output")
    batch.add_argument("--data-dir", help="reference data folder (default: $GEMFLUX_DATA_DIR)")
    batch.add_argument("--cache-dir", help="cache folder (default: $GEMFLUX_CACHE_DIR)")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    try:
        settings = Settings.resolve(data_dir=args.data_dir, state_dir=args.state_dir, cache_dir=args.cache_dir,
                                    database_url=args.database_url)
        outcome = _run(args, settings, started)
    except GemFluxError as exc:
        from gem_flux_mcp.services.batch import ClusterLost

        if isinstance(exc, ClusterLost):
            return _report_lost(exc)
        return report_error("batch", exc)
    if args.json:
        print(json.dumps(outcome, indent=1, default=str))
    else:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(outcome["counts"].items()))
        print(f"{outcome['num_genomes']} genomes ({counts}) in {outcome['seconds']:.1f} s on {outcome['cluster']}")
        for row in outcome["failed"]:
            print(f"  failed {row['genome']}: {row.get('error_code')}: {row.get('error_message')}")
        print(f"wrote {outcome['files']['summary_tsv']}")
    return 0 if not outcome["failed"] else EXIT_UNFINISHED


def _report_lost(lost: ClusterLost) -> int:
    counts = ", ".join(f"{n} {status}" for status, n in sorted(lost.counts.items()))
    print(f"gem-flux batch: stopped: {lost.what}.\n"
          f"  {lost.finished} of {lost.total} genomes finished{f' ({counts})' if counts else ''}; {lost.left} left.\n"
          f"  Results so far: {lost.out_dir} (summary: {lost.files['summary_tsv']}).\n"
          "  Run the same command again to resume: finished genomes are skipped, the others built.",
          file=sys.stderr)
    return EXIT_UNFINISHED


def _run(args: argparse.Namespace, settings: Settings, started: float) -> dict[str, Any]:
    from pathlib import Path

    from gem_flux_mcp.cli.workflow_commands import media_from_args
    from gem_flux_mcp.services.batch import BatchSpec, find_inputs, run_batch
    from gem_flux_mcp.services.batch.storing import StoreTarget, store_genome

    # the workers store what they build (LOCAL_WORKSPACE, as the stdio server sees it); this process
    # stores the genomes an earlier run finished
    store_to = StoreTarget(str(settings.state_dir), settings.database_url, LOCAL_WORKSPACE) if args.store else None
    spec = BatchSpec(tuple(find_inputs(args.inputs)), media_from_args(args.media, settings), Path(args.out).resolve(),
                     settings.data_dir, settings.cache_dir, args.template, args.gene_calling,
                     tuple(dict.fromkeys(args.phenotypes or [])), store_to,
                     args.translation_table)
    store = None
    if args.store:
        from gem_flux_mcp.store.store import Store

        store = Store(settings.state_dir, database_url=settings.database_url)
    try:
        with progress_reporter("batch", quiet=args.quiet, started=started) as progress:
            def on_genome(row: dict[str, Any]) -> None:
                if store is not None:
                    store_genome(store, LOCAL_WORKSPACE, spec.out_dir, row)

            def on_progress(state: Any) -> None:
                message = (f"{state.finished}/{state.total} genomes ({state.skipped} done before, {state.failed} "
                           f"failed)" + (f"; last {state.last}" if state.last else ""))
                progress("batch", state.finished / max(1, state.total), message)

            outcome = run_batch(spec, workers=args.workers, scheduler=args.scheduler, on_progress=on_progress,
                                on_genome=on_genome)
    finally:
        if store is not None:
            store.close()
    return {"num_genomes": len(outcome.rows), "counts": outcome.counts, "seconds": outcome.seconds,
            "cluster": outcome.cluster, "files": outcome.files,
            "failed": [row for row in outcome.rows if row["status"] != "ok"], "genomes": outcome.rows}
