"""One recorded result: an FBA as a flux map, a phenotype array as a plate, essentiality by
pathway, fermentation products as bars; the other kinds (FVA, diagnosis, gapfill, ATP correction) as their summary."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gem_flux_mcp.server.dashboard import flux_map, loaders
from gem_flux_mcp.server.dashboard.essentiality_view import essentiality_body
from gem_flux_mcp.server.dashboard.fermentation_view import fermentation_body
from gem_flux_mcp.server.dashboard.html import e, model_href, not_found, page, when
from gem_flux_mcp.server.dashboard.phenotype_view import phenotype_body
from gem_flux_mcp.server.dashboard.reconcile_view import reconcile_body
from gem_flux_mcp.server.dashboard.results_common import headline, kind_title, summary_table
from gem_flux_mcp.server.dashboard.source import DashboardSource, model_results, visible_model, visible_result
from gem_flux_mcp.store.rows import ModelRow, ResultRow

# Shown by the pictures (and their tables) instead of in the summary table
PICTURED_FIELDS = frozenset({"fluxes", "array", "essential_ids", "growing_on", "secreted", "mismatches", "plate"})


def result_body(source: DashboardSource, row: ModelRow, result: ResultRow) -> str:
    head = (f"<h1>{e(kind_title(result.kind))} of <a href='{e(model_href(row.model_id))}'>{e(row.model_id)}</a></h1>"
            f"<p>medium {e(result.media_id or '-')} · recorded {when(result.created_at)} UTC · "
            f"{e(headline(result))}</p>")
    if result.kind == "fba":
        body = flux_map.fba_body(source, row, result)
    elif result.kind == "growth_phenotypes":
        body = phenotype_body(result.summary, row.model_id, result.media_id)
    elif result.kind in ("gene_essentiality", "reaction_essentiality"):
        explained = {str(r.summary.get("deleted")): r.id for r in reversed(model_results(source, row, 1000))
                     if r.kind == "explain_essentiality" and r.media_id == result.media_id}  # the newest wins
        body = essentiality_body(source, result.summary, loaders.model_facts(source, row), model_id=row.model_id,
                                 media_id=result.media_id, explained=explained)
    elif result.kind == "fermentation_products":
        body = fermentation_body(result.summary)
    elif result.kind == "reconcile_phenotypes":
        body = reconcile_body(result.summary, row.model_id, result.media_id)
    else:
        body = ""
    details = summary_table(result.summary, PICTURED_FIELDS)
    if body:
        details = f"<details><summary>Every recorded field</summary>{details}</details>"
    return head + body + "<h2>Recorded summary</h2>" + details


def routes(source: DashboardSource) -> list[Route]:
    async def result(request: Request) -> Response:
        row = visible_model(source, request, str(request.path_params["model_id"]))
        found = visible_result(source, row, str(request.path_params["result_id"])) if row else None
        if row is None or found is None:
            return not_found("Result")
        return page(f"{found.kind} of {row.model_id}", result_body(source, row, found))

    return [Route("/models/{model_id}/results/{result_id}", result)]
