"""`gem-flux` command line: serve, dashboard, data fetch/check/index, the workflow (build,
gapfill, fba, reconstruct) and the analyses (essentiality, phenotypes, fermentation, fva, compare, diagnose)
on model files."""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from collections.abc import Sequence

from gem_flux_mcp import __version__, gc_policy
from gem_flux_mcp.cli.community_commands import STORED_COMMANDS as STORED_COMMUNITY_COMMANDS
from gem_flux_mcp.cli.errors import report_error
from gem_flux_mcp.cli.genome_options import add_genome_options
from gem_flux_mcp.cli.options import add_rule_option
from gem_flux_mcp.errors import GemFluxError
from gem_flux_mcp.rules.catalog import BUILD_TEMPLATE

log = logging.getLogger("gem_flux_mcp")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gem-flux",
        description="Gem-Flux: an MCP server for genome-scale metabolic modeling (ModelSEED).",
    )
    parser.add_argument("--version", action="version", version=f"gem-flux {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the MCP server (stdio by default)")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    serve.add_argument("--data-dir", help="reference data folder (default: $GEMFLUX_DATA_DIR)")
    serve.add_argument("--state-dir", help="state folder (default: $GEMFLUX_STATE_DIR)")
    serve.add_argument("--database-url", help="shared state database, postgresql://USER@HOST[:PORT]/DB (default: "
                       "$GEMFLUX_DATABASE_URL, else SQLite in the state folder); pass a password by "
                       "the environment or ~/.pgpass, not on the command line")
    serve.add_argument("--cache-dir", help="index cache folder (default: $GEMFLUX_CACHE_DIR)")
    serve.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="extra browser Origin allowed to call the HTTP endpoint (repeatable)",
    )
    serve.add_argument("--log-level", default="INFO", help="log level for stderr (default INFO)")
    serve.add_argument("--token-file", help="HTTP access tokens, one 'TOKEN WORKSPACE' per line "
                       "(also $GEMFLUX_TOKENS='token=workspace,...'); none = no token needed")

    board = sub.add_parser("dashboard", help="serve the web dashboard for a state folder")
    board.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    board.add_argument("--port", type=int, default=8766, help="port (default 8766)")
    board.add_argument("--state-dir", help="state folder (default: $GEMFLUX_STATE_DIR)")
    board.add_argument("--database-url", help="state database, as for serve (default: $GEMFLUX_DATABASE_URL)")
    board.add_argument("--log-level", default="INFO", help="log level for stderr (default INFO)")
    board.add_argument("--token-file", help="access tokens, as for serve")

    data = sub.add_parser("data", help="download or verify the reference data")
    data_sub = data.add_subparsers(dest="data_command", required=True)
    fetch = data_sub.add_parser("fetch", help="download the reference data bundle")
    fetch.add_argument("--dest", help="target folder (default: the user data folder)")
    fetch.add_argument(
        "--base-url",
        help="a mirror that serves the bundle layout (e.g. http://host/data); "
        "default: the upstream ModelSEED repositories",
    )
    fetch.add_argument("--include-optional", action="store_true",
                       help="also fetch optional files (example genomes, Core.json)")
    fetch.add_argument("--retries", type=int, default=3, help="attempts per file (default 3)")
    fetch.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    fetch.add_argument("--quiet", action="store_true", help="no progress output")
    check = data_sub.add_parser("check", help="verify a data folder against the manifest")
    check.add_argument("--data-dir", help="folder to verify (default: $GEMFLUX_DATA_DIR)")
    check.add_argument("--quiet", action="store_true", help="only the exit code")
    index = data_sub.add_parser(
        "index", help="build the biochemistry and homology-reference indexes now (else the first serve and build do)")
    index.add_argument("--data-dir", help="reference data folder (default: $GEMFLUX_DATA_DIR)")
    index.add_argument("--cache-dir", help="index cache folder (default: $GEMFLUX_CACHE_DIR)")

    build = sub.add_parser("build", help="build a draft model from proteins or a genome (offline by default)")
    build.add_argument("fasta", metavar="INPUT",
                       help="protein FASTA, genome FASTA (genes called with Prodigal), GenBank or GFF3; .gz too")
    add_genome_options(build)
    add_rule_option(build, "--template", BUILD_TEMPLATE, default="GramNegative",
                    help="GramNegative (default), GramPositive, Core, or auto (Gram from outer-membrane names and "
                         "lipopolysaccharide genes)")
    build.add_argument("--out", required=True, help="model file to write: .xml/.sbml (SBML) or .json (COBRApy)")
    build.add_argument("--model-id", help="model id inside the file (default: the FASTA file name)")
    build.add_argument("--report", help="also write the build report (counts, evidence, timings) as JSON here")
    build.add_argument("--no-header-functions", action="store_true", help="ignore function names in FASTA headers")
    build.add_argument("--no-homology", action="store_true", help="skip the homology search")
    build.add_argument("--exclude-reference", default="", metavar="MODELS",
                       help="comma-separated BiGG models to leave out of the homology reference")
    build.add_argument("--aligner", choices=["diamond", "mmseqs"], help="default: mmseqs; diamond must be on PATH")
    build.add_argument("--rast", action="store_true", help="also annotate with the RAST web service (internet)")
    build.add_argument("--data-dir", help="reference data folder (default: $GEMFLUX_DATA_DIR)")
    build.add_argument("--cache-dir", help="cache folder (default: $GEMFLUX_CACHE_DIR)")
    build.add_argument("--quiet", action="store_true", help="no progress output")

    from gem_flux_mcp.cli import analysis_commands, batch_command, community_commands, workflow_commands

    workflow_commands.add_parsers(sub)
    batch_command.add_parser(sub)
    analysis_commands.add_parsers(sub)
    community_commands.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["community"] and words[1:2] and words[1] in STORED_COMMUNITY_COMMANDS:
        from gem_flux_mcp.cli.community_commands import run_stored  # beside `community MODEL...`

        return run_stored(words[1:])
    try:
        args = build_parser().parse_args(argv)
    except GemFluxError as refused:  # an option its rule refused (cli/options.py): the tools' code and hints
        words = [w for w in (sys.argv[1:] if argv is None else argv) if not w.startswith("-")]
        return report_error(words[0] if words else "", refused)
    if args.command == "serve":
        # the cyclic GC stays off while the server is imported and built; serve() turns it on
        # with what start-up made frozen (server/app.py, keep_start_up_out_of_gc)
        gc.disable()
        from gem_flux_mcp.server.app import serve

        return serve(args)
    if args.command == "dashboard":
        from gem_flux_mcp.server.app import run_dashboard

        return run_dashboard(args)
    gc_policy.collect_less_often()  # the other commands build, gapfill or analyse models
    if args.command == "build":
        from gem_flux_mcp.cli.build_command import build

        return build(args)
    if args.command in {"gapfill", "fba", "reconstruct", "reconcile"}:
        from gem_flux_mcp.cli.workflow_commands import run as run_workflow

        return run_workflow(args)
    if args.command == "batch":
        from gem_flux_mcp.cli.batch_command import run as run_batch

        return run_batch(args)
    if args.command in {"essentiality", "phenotypes", "fermentation", "fva", "compare", "diagnose", "explain"}:
        from gem_flux_mcp.cli.analysis_commands import run

        return run(args)
    if args.command == "community":
        from gem_flux_mcp.cli.community_commands import run as run_community

        return run_community(args)
    if args.command == "data":
        from gem_flux_mcp.cli import data_commands

        if args.data_command == "fetch":
            return data_commands.fetch(args)
        if args.data_command == "index":
            return data_commands.index(args)
        return data_commands.check(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
