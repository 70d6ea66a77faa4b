"""The dashboard's JSON API: the same data as the pages (routes listed in README, "State, sessions
and the dashboard"), with the same workspace isolation."""

from __future__ import annotations

import dataclasses
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gem_flux_mcp import CONTRACT_VERSION, __version__
from gem_flux_mcp.server.dashboard import community_page, flux_map, live, loaders
from gem_flux_mcp.server.dashboard.activity import duration
from gem_flux_mcp.server.dashboard.essentiality_view import by_pathway
from gem_flux_mcp.server.dashboard.html import result_href
from gem_flux_mcp.server.dashboard.lineage import lineage_rows
from gem_flux_mcp.server.dashboard.phenotype_view import wells
from gem_flux_mcp.server.dashboard.results_common import headline
from gem_flux_mcp.server.dashboard.source import (
    MAX_PAGE,
    DashboardSource,
    int_param,
    model_results,
    visible_model,
    visible_result,
    visible_session,
)
from gem_flux_mcp.store.rows import CallRow, ModelRow, ResultRow, SessionRow


def session_json(row: SessionRow) -> dict[str, Any]:
    return {
        "id": row.id, "client_name": row.client_name, "client_version": row.client_version,
        "protocol_version": row.protocol_version, "transport": row.transport, "status": row.status,
        "start_time": row.start_time, "end_time": row.end_time, "last_activity": row.last_activity,
        "tool_call_count": row.tool_call_count, "total_tokens": row.total_tokens,
        "duration_s": duration(row),
    }


def call_json(row: CallRow) -> dict[str, Any]:
    return {
        "id": row.id, "session_id": row.session_id, "seq": row.seq, "tool_name": row.tool_name,
        "client_name": row.client_name, "client_version": row.client_version, "arguments": row.arguments,
        "response": row.response, "response_size": row.response_size, "response_truncated": row.response_truncated,
        "is_error": row.is_error, "error_code": row.error_code, "error_message": row.error_message,
        "duration_ms": row.duration_ms, "timestamp": row.timestamp, "request_id": row.request_id,
        "annotations": row.annotations, "tokens": row.tokens,
    }


def model_json(source: DashboardSource, row: ModelRow) -> dict[str, Any]:
    lineage = loaders.family(source, row)
    facts = loaders.model_facts(source, row, lineage)
    return {
        "model_id": row.model_id, "model_name": row.model_name, "state": row.state, "source": row.source,
        "template": row.template, "num_reactions": row.num_reactions, "num_metabolites": row.num_metabolites,
        "num_genes": row.num_genes, "num_exchanges": row.num_exchanges, "derived_from": row.derived_from,
        "created_at": row.created_at, "reaction_origins": {key: n for key, _, _, n in facts.origin_counts()},
        "lineage": lineage_rows(lineage),
        "results": [{"id": r.id, "kind": r.kind, "media_id": r.media_id, "created_at": r.created_at,
                     "headline": headline(r), "page": result_href(row.model_id, r.id)}
                    for r in model_results(source, row)],
    }


def result_json(source: DashboardSource, row: ModelRow, result: ResultRow) -> dict[str, Any]:
    """The recorded result with what its picture shows: the flux on each map reaction, the wells
    whose prediction and observation disagree, essential genes by pathway."""
    answer: dict[str, Any] = {"id": result.id, "model_id": row.model_id, "kind": result.kind,
                              "media_id": result.media_id, "created_at": result.created_at,
                              "summary": result.summary}
    if result.kind == "fba":
        facts = loaders.model_facts(source, row)
        mapping = flux_map.map_for_model(source, row, facts)
        fluxes = flux_map.recorded_fluxes(result.summary)
        if mapping is not None:
            answer["map"] = {"fluxes": flux_map.map_values(mapping, fluxes) if fluxes is not None else None,
                             "reactions": {k: [r for r, _ in v.members] for k, v in mapping.edges.items()},
                             "not_in_model": sorted(k for k, v in mapping.edges.items() if not v.in_model)}
    elif result.kind == "growth_phenotypes":
        found = wells(result.summary)
        if found is not None:
            answer["mismatches"] = [w.compound for w in found if w.mismatch]
    elif result.kind.endswith("_essentiality"):
        facts = loaders.model_facts(source, row)
        answer["essential_by_pathway"] = by_pathway(source, [str(i) for i in result.summary.get("essential_ids", [])],
                                                    str(result.summary.get("target", "genes")), facts)
    return answer


def routes(source: DashboardSource) -> list[Route]:
    async def tools(request: Request) -> Response:
        return JSONResponse({"version": __version__, "contract_version": CONTRACT_VERSION,
                             "tools": await source.tools()})

    async def sessions(request: Request) -> Response:
        source.sync()
        limit = int_param(request, "limit", 20, 1, MAX_PAGE)
        offset = int_param(request, "offset", 0, 0, 10**9)
        rows = source.store.db.recent_sessions(source.workspace(request), limit, offset)
        return JSONResponse({"sessions": [session_json(r) for r in rows], "limit": limit, "offset": offset})

    async def session(request: Request) -> Response:
        source.sync()
        row = visible_session(source, request)
        if row is None:
            return JSONResponse({"error": "session not found"}, status_code=404)
        return JSONResponse({**session_json(row), "aggregates": source.store.db.session_aggregates(row.id)})

    async def calls(request: Request) -> Response:
        source.sync()
        row = visible_session(source, request)
        if row is None:
            return JSONResponse({"error": "session not found"}, status_code=404)
        limit = int_param(request, "limit", 50, 1, MAX_PAGE)
        offset = int_param(request, "offset", 0, 0, 10**9)
        tool = request.query_params.get("tool") or None
        errors = request.query_params.get("errors") in {"1", "true", "yes"}
        found = source.store.db.calls_by_session(row.id, limit, offset, tool, errors)
        return JSONResponse({"session_id": row.id, "calls": [call_json(c) for c in found],
                             "limit": limit, "offset": offset})

    async def models(request: Request) -> Response:
        rows = source.store.list_models(source.workspace(request))
        return JSONResponse({"models": [{
            "model_id": r.model_id, "model_name": r.model_name, "state": r.state, "source": r.source,
            "num_reactions": r.num_reactions, "num_genes": r.num_genes, "derived_from": r.derived_from,
            "created_at": r.created_at} for r in rows]})

    async def model(request: Request) -> Response:
        row = visible_model(source, request, str(request.path_params["model_id"]))
        if row is None:
            return JSONResponse({"error": "model not found"}, status_code=404)
        return JSONResponse(model_json(source, row))

    async def result(request: Request) -> Response:
        row = visible_model(source, request, str(request.path_params["model_id"]))
        found = visible_result(source, row, str(request.path_params["result_id"])) if row else None
        if row is None or found is None:
            return JSONResponse({"error": "result not found"}, status_code=404)
        return JSONResponse(result_json(source, row, found))

    async def media(request: Request) -> Response:
        rows = source.store.list_media(source.workspace(request))
        return JSONResponse({"media": [{
            "media_id": r.media_id, "media_name": r.media_name, "num_compounds": len(r.compounds),
            "created_at": r.created_at} for r in rows]})

    async def communities(request: Request) -> Response:
        workspace = source.workspace(request)
        counts = source.store.community_result_counts(workspace)
        return JSONResponse({"communities": [{
            "community_id": c.community_id, "community_name": c.community_name, "created_at": c.created_at,
            "members": [m["model_id"] for m in c.members], "num_results": counts.get(c.community_id, 0)}
            for c in source.store.list_communities(workspace)]})

    async def community(request: Request) -> Response:
        row = community_page.visible_community(source, request, str(request.path_params["community_id"]))
        if row is None:
            return JSONResponse({"error": "community not found"}, status_code=404)
        return JSONResponse(community_page.community_json(source, row))

    async def jobs(request: Request) -> Response:
        workspace = source.workspace(request)
        return JSONResponse({"jobs": [dataclasses.asdict(j) for j in live.jobs_of(source, workspace)],
                             "jobs_visible": source.jobs is not None,
                             "batches": [dataclasses.asdict(b) for b in source.batches.batches(workspace)]
                             if source.batches is not None else None})

    return [
        Route("/api/tools", tools), Route("/api/sessions", sessions),
        Route("/api/sessions/{session_id}", session), Route("/api/sessions/{session_id}/calls", calls),
        Route("/api/models", models), Route("/api/models/{model_id}", model),
        Route("/api/models/{model_id}/results/{result_id}", result), Route("/api/media", media),
        Route("/api/communities", communities), Route("/api/communities/{community_id}", community),
        Route("/api/jobs", jobs),
    ]
