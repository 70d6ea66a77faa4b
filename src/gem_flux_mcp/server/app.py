"""The FastMCP application and the `gem-flux serve` entry point."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading

# FastMCP reads these at import: no update check (no network at run time), no banner (stdout
# belongs to the protocol under stdio). Set before the first fastmcp import.
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ.setdefault("FASTMCP_ENABLE_RICH_LOGGING", "false")

from fastmcp import FastMCP

from gem_flux_mcp import __version__
from gem_flux_mcp.config import Settings
from gem_flux_mcp.errors import GemFluxError
from gem_flux_mcp.server import resources
from gem_flux_mcp.server.envelope import ArgumentErrorMiddleware
from gem_flux_mcp.server.tools import lookup, session

log = logging.getLogger("gem_flux_mcp")

SERVER_NAME = "gem-flux"

INSTRUCTIONS = """\
Gem-Flux: genome-scale metabolic modeling in the ModelSEED namespace.
Look-ups: search_compounds / get_compound_name and search_reactions / get_reaction_name
resolve names, formulas, EC numbers and KEGG/BiGG/MetaCyc ids to ModelSEED ids (cpd00027,
rxn00148).
Media: list_media shows predefined and built media; build_media makes new ones.
Models: import_model, list_models, get_model, export_model, delete_model; run_fba optimises
a model on a medium and records the result with the model.
Every failure returns an error envelope with error_code, details, suggestions,
valid_next_steps and an example_call: follow them instead of retrying the same call."""


def create_app() -> FastMCP:
    """The MCP app with every tool registered. Resources must be loaded (or installed) before
    the first tool call; tool registration itself does not touch them."""
    mcp = FastMCP(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__)
    mcp.add_middleware(ArgumentErrorMiddleware())
    lookup.register(mcp)
    session.register(mcp)
    return mcp


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def _warm_up_modeling_imports_later(delay_s: float = 3.0) -> None:
    """Import COBRApy in the background shortly after start-up: the handshake and tools/list
    are answered without waiting for it, and the first modeling call does not pay for it."""

    def warm() -> None:
        import cobra  # noqa: F401

    timer = threading.Timer(delay_s, warm)
    timer.daemon = True
    timer.start()


def serve(args: argparse.Namespace) -> int:
    configure_logging(args.log_level)
    settings = Settings.resolve(args.data_dir, args.state_dir, args.cache_dir)
    try:
        resources.load_resources(settings)
    except GemFluxError as exc:
        # One clear line, exit code 1 (seed 001's start-up contract).
        log.error("cannot start: %s [%s]", exc.message, exc.code)
        return 1
    except OSError as exc:
        log.error("cannot start: %s", exc)
        return 1
    resources.start_cleanup_timer()
    _warm_up_modeling_imports_later()
    mcp = create_app()
    if args.transport == "stdio":
        mcp.run("stdio", show_banner=False)
        return 0
    if args.host not in {"127.0.0.1", "localhost", "::1"}:
        log.warning("binding to %s: the server is reachable from other machines", args.host)
    mcp.run(
        "http",
        show_banner=False,
        host=args.host,
        port=args.port,
        path="/mcp",
        # FastMCP does not check Host/Origin by default: reject foreign browser origins (403)
        # and DNS-rebinding Host headers.
        host_origin_protection=True,
        allowed_origins=list(args.allowed_origin) or None,
        log_level=args.log_level.lower(),
    )
    return 0
