"""The FastMCP application and the `gem-flux serve` entry point."""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

# FastMCP reads these at import: no update check (no network at run time), no banner (stdout
# belongs to the protocol under stdio). Set before the first fastmcp import.
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ.setdefault("FASTMCP_ENABLE_RICH_LOGGING", "false")

from fastmcp import FastMCP
from starlette.middleware import Middleware

from gem_flux_mcp import CONTRACT_VERSION, __version__, gc_policy
from gem_flux_mcp.config import Settings
from gem_flux_mcp.errors import GemFluxError
from gem_flux_mcp.server import access, model_resources, runtime, tool_descriptions, tool_list, tool_schemas
from gem_flux_mcp.server.arguments import ArgumentErrorMiddleware
from gem_flux_mcp.server.dependencies import RESOURCES
from gem_flux_mcp.server.http_guards import RequestGuard
from gem_flux_mcp.server.recording import RecordingMiddleware, SessionCloseMiddleware
from gem_flux_mcp.server.runtime import Resources
from gem_flux_mcp.server.tools import (
    analysis,
    batch,
    build,
    community,
    fba,
    gapfill,
    lookup,
    media,
    models,
    reconcile,
    revisions,
)

if TYPE_CHECKING:
    from gem_flux_mcp.data.biochem import BiochemIndex

log = logging.getLogger("gem_flux_mcp")

SERVER_NAME = "gem-flux"

INSTRUCTIONS = """\
Gem-Flux: genome-scale metabolic modeling in the ModelSEED namespace.
Look-ups: search_compounds / get_compound_name and search_reactions / get_reaction_name
resolve names, formulas, EC numbers and KEGG/BiGG/MetaCyc ids to ModelSEED ids (cpd00027,
rxn00148).
Media: list_media shows predefined and built media, get_media one medium's compounds and
bounds; build_media makes new ones.
Models: build_model makes a draft from protein sequences; gapfill_model makes it grow on a
medium (new id '<id>.gf', ATP-safe); import_model, list_models, get_model, export_model,
revise_model, delete_model; run_fba optimises a model on a medium and records the result
(knockouts and bounds for one call answer "what if"); predict_gene_essentiality tests every gene,
explain_essentiality says why one deletion does or does not stop growth (the bypass, or what is
no longer made); predict_fermentation_products says what the organism secretes at optimal growth, and by which
pathway; reconcile_phenotypes fits a model to a lab's observed growth (a Biolog plate) as a new
revision, with agreement before and after on fitted and held-out wells.
Communities (MICOM): build_community makes stored models the members of one community;
run_community grows it on a medium (member growth, who feeds whom), community_knockouts removes
each member in turn.
Every failure returns an error envelope with error_code, details, suggestions,
valid_next_steps and an example_call: follow them instead of retrying the same call.
""" + (
    f"Tool contract version: {CONTRACT_VERSION} (semver: tool input/output schemas only grow within a "
    "major version; a breaking change bumps the major version)."
)


def create_app(resources: Resources | None = None, *, with_dashboard: bool = False,
               descriptions_dir: Path | None = None) -> FastMCP:
    """The MCP app with every tool registered, serving `resources` (its lifespan context, from
    which tools are given what they need: `server/dependencies.py`). Without resources the app
    only lists its tools (contract snapshots, the stand-alone dashboard). With the dashboard, its
    pages and /api/ routes are served beside /mcp (HTTP transport). The caller owns the
    resources and shuts them down. The tools' descriptions and schemas are kept between starts in
    `descriptions_dir` (default: the resources' cache folder; none without resources)."""

    @contextlib.asynccontextmanager
    async def lifespan(server: FastMCP) -> AsyncIterator[dict[str, Any]]:
        await schemas.load(server)  # every tool is registered by now
        yield {RESOURCES: resources} if resources is not None else {}

    mcp = FastMCP(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__, lifespan=lifespan,
                  # tool-contract version, also in capabilities.experimental (initialize and discover)
                  experimental_capabilities={"gem-flux/tool-contract": {"version": CONTRACT_VERSION}},
                  dereference_schemas=False)  # done by tool_schemas.DereferencedOnce, in the same place
    mcp.add_middleware(tool_schemas.DereferencedOnce())
    schemas = tool_schemas.install(mcp)
    tool_list.install(mcp)
    recorder = resources.recorder if resources is not None else None
    # first added = outermost: the recorder sees the final result, envelopes included
    mcp.add_middleware(RecordingMiddleware(lambda: recorder, access.request_workspace))
    mcp.add_middleware(ArgumentErrorMiddleware())
    # each tool's description and schemas, derived by the first start of this code (tool_descriptions.py)
    if descriptions_dir is None and resources is not None:
        descriptions_dir = resources.settings.cache_dir
    descriptions = tool_descriptions.ToolDescriptions.in_cache(descriptions_dir)
    tool_descriptions.attach(mcp, descriptions)
    lookup.register(mcp)
    media.register(mcp)
    models.register(mcp)
    revisions.register(mcp)
    reconcile.register(mcp)
    fba.register(mcp)
    build.register(mcp)
    gapfill.register(mcp)
    analysis.register(mcp)
    community.register(mcp)
    batch.register(mcp)
    model_resources.register(mcp)
    descriptions.save()
    if with_dashboard and resources is not None:
        # imported here: the dashboard (pictures, the batch board, gapfill reports) is served only
        # over HTTP, and a stdio server starts without it
        from gem_flux_mcp.server import dashboard
        from gem_flux_mcp.server.dashboard.batches import JobsAsBatchSource

        source = dashboard.DashboardSource(
            store=resources.store, recorder=lambda: recorder, tools=dashboard.tool_lister(mcp),
            workspace=lambda request: access.current_workspace(), biochem=resources.biochem,
            jobs=resources.jobs.board, batches=JobsAsBatchSource(resources.batches),
        )
        for route in dashboard.routes(source):
            mcp.custom_route(route.path, methods=["GET"])(route.endpoint)
    return mcp


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(access.RedactTokens())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def _warm_up_modeling_imports_later(delay_s: float = 3.0) -> None:
    """Import COBRApy in the background shortly after start-up: the handshake and tools/list
    are answered without waiting for it, and the first modeling call does not pay for it. Also
    the session-state store FastMCP imports on the first tool call (~0.5 s, benchmarks/load.py).

    Then start-up's garbage is collected and the ~300k objects that live on (imports, the
    biochemistry index, the tools and their schemas) are set aside for good (gc_policy): the
    collections requests trigger no longer traverse them (under 20 clients' look-ups the server
    spent ~30 % of its CPU there: benchmarks/HISTORY.md, session 14)."""

    def warm() -> None:
        from gem_flux_mcp.modeling.cobra_import import import_cobra

        import_cobra()  # under the lock a first model load in a request thread takes too
        import key_value.aio.adapters.pydantic
        import key_value.aio.stores.memory  # noqa: F401

        gc_policy.set_aside_what_lives_on()  # after keep_start_up_out_of_gc: unfrozen, collected, frozen

    timer = threading.Timer(delay_s, warm)
    timer.daemon = True
    timer.start()


def keep_start_up_out_of_gc() -> None:
    """Turn the cyclic GC on, with every object made so far frozen (`gc.freeze`: left out of
    collections). `gem-flux serve` imports and builds the server with the GC off (cli/main.py):
    the ~250k objects of the imports, the result models and the registered tools would otherwise
    be traversed again and again by the collections their own allocation triggers (0.15-0.25 s of
    a start on 2 cores), and turned on without freezing, the first collection would traverse them
    all at once. A few seconds later, in the background (`_warm_up_modeling_imports_later`),
    start-up's little garbage is collected and what lives on frozen again."""
    gc.freeze()
    gc.enable()


def _exit_on_sigterm(_signum: int, _frame: object) -> None:
    raise SystemExit(0)


def serve(args: argparse.Namespace) -> int:
    configure_logging(args.log_level)
    settings = Settings.resolve(args.data_dir, args.state_dir, args.cache_dir, getattr(args, "database_url", None))
    try:
        tokens = access.TokenTable.load(args.token_file)
    except (GemFluxError, OSError) as exc:
        log.error("cannot start: invalid token configuration: %s", getattr(exc, "message", exc))
        return 1
    if args.transport == "http":
        access.configure(tokens)
        if tokens.enabled:
            log.info("HTTP access needs a token; %d token(s) for %d workspace(s)", len(tokens.tokens),
                     len(set(tokens.tokens.values())))
    try:
        # GEMFLUX_RECORD_CALLS=0 turns the session/call record off (used to measure its cost)
        resources = runtime.load_resources(
            settings, record_activity=os.environ.get("GEMFLUX_RECORD_CALLS", "1") != "0")
    except GemFluxError as exc:
        # A start-up failure is one clear log line and exit code 1, never a traceback.
        log.error("cannot start: %s [%s]", exc.message, exc.code)
        return 1
    except OSError as exc:
        log.error("cannot start: %s", exc)
        return 1
    resources.start_cleanup_timers()
    _warm_up_modeling_imports_later()
    resources.start_worker_later()
    mcp = create_app(resources, with_dashboard=args.transport == "http")
    keep_start_up_out_of_gc()
    try:
        if args.transport == "stdio":
            mcp.run("stdio", show_banner=False)
            return 0
        if args.host not in {"127.0.0.1", "localhost", "::1"}:
            log.warning("binding to %s: the server is reachable from other machines", args.host)
        # uvicorn shuts down gracefully on SIGTERM and then raises the signal again: leave through
        # `finally` instead of dying there, so this server's sessions are closed and it leaves the
        # database's list of running servers (other servers may share the database).
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
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
            middleware=[Middleware(access.TokenGuard), Middleware(RequestGuard),
                        Middleware(SessionCloseMiddleware, recorder=lambda: resources.recorder)],
        )
        return 0
    finally:
        resources.shutdown()


def _biochem_if_present(settings: Settings) -> BiochemIndex | None:
    """The biochemistry index for the dashboard's pictures (names, pathways, the flux map's BiGG
    aliases) when the reference data is there; the pages say what is missing otherwise."""
    from gem_flux_mcp.data.biochem import BiochemIndex

    if not (settings.data_dir / "modelseed").is_dir():
        log.warning("no reference data in %s: the dashboard draws no flux maps and names no pathways",
                    settings.data_dir)
        return None
    try:
        return BiochemIndex.open(settings.data_dir, settings.cache_dir)
    except (GemFluxError, OSError) as exc:
        log.warning("the dashboard runs without the biochemistry index: %s", getattr(exc, "message", exc))
        return None


def run_dashboard(args: argparse.Namespace) -> int:
    """`gem-flux dashboard`: the dashboard alone, reading the state folder (or database) a server writes."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    from gem_flux_mcp.server import dashboard
    from gem_flux_mcp.store.store import Store

    configure_logging(args.log_level)
    settings = Settings.resolve(None, args.state_dir, None, getattr(args, "database_url", None))
    try:
        store = Store(settings.state_dir, database_url=settings.database_url)
    except GemFluxError as exc:
        log.error("cannot start: %s [%s]", exc.message, exc.code)
        return 1
    source = dashboard.DashboardSource(
        store=store, recorder=lambda: None, tools=dashboard.tool_lister(create_app()),
        workspace=lambda request: access.current_workspace(), biochem=_biochem_if_present(settings),
    )
    try:
        access.configure(access.TokenTable.load(args.token_file))
    except (GemFluxError, OSError) as exc:
        log.error("cannot start: invalid token configuration: %s", getattr(exc, "message", exc))
        return 1
    app = Starlette(routes=dashboard.routes(source))
    app.add_middleware(access.TokenGuard)
    # DNS-rebinding guard: only loopback Host headers unless bound elsewhere on purpose
    hosts = ["127.0.0.1", "localhost", "[::1]"] if args.host in {"127.0.0.1", "localhost", "::1"} else ["*"]
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=hosts)
    log.info("dashboard on http://%s:%d/ (state %s)", args.host, args.port, store.location)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level.lower())
    finally:
        store.close()
    return 0
