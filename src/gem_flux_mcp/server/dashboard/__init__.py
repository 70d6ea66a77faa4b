"""The web dashboard and its JSON API (routes listed in README, "State, sessions and the
dashboard"): MCP sessions and their calls, tools, models with pictures of where their reactions
came from and of their lineage, recorded results drawn (an FBA on a central-metabolism map, a
phenotype array as a plate, essential genes by pathway), two models side by side, communities with
their cross-feeding network, and the jobs running on the server.

Server-rendered HTML and SVG, no build step and no JavaScript: filters are plain GET forms, pages
showing something that runs reload themselves (meta refresh). Everything shown is escaped (tool
arguments and model notes are user input), and a viewer sees only their workspace. The same
routes are mounted on the HTTP MCP server and served by `gem-flux dashboard` from the same state
folder.

Modules: `source` (what the pages read, the workspace checks), `html` (page shell, helpers),
`svg` (charts), `activity` (sessions, calls, tools), `model_page`, `result_page`,
`flux_map/` (the map, its BiGG-alias mapping, its SVG), `phenotype_view`, `essentiality_view`,
`compare_page`, `community_page` (communities, the cross-feeding network),
`live` (jobs, refresh), `batches` (where batch runs will show), `api` (JSON).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.routing import Route

from gem_flux_mcp.server.dashboard import activity, api, community_page, compare_page, live, model_page, result_page
from gem_flux_mcp.server.dashboard.html import badge_labels, badges
from gem_flux_mcp.server.dashboard.source import DashboardSource

__all__ = ["DashboardSource", "badge_labels", "badges", "routes", "tool_lister"]


def routes(source: DashboardSource) -> list[Route]:
    return [*api.routes(source), *activity.routes(source), *model_page.routes(source), *result_page.routes(source),
            *compare_page.routes(source), *community_page.routes(source), *live.routes(source)]


def tool_lister(mcp: Any) -> Callable[[], Awaitable[list[dict[str, Any]]]]:
    """Tool names, titles, descriptions and annotations of an MCP app, listed once."""
    cache: list[dict[str, Any]] = []

    async def tools() -> list[dict[str, Any]]:
        if not cache:
            for tool in await mcp.list_tools():
                annotations = tool.annotations.model_dump(by_alias=True, exclude_none=True, mode="json") \
                    if tool.annotations is not None else None
                cache.append({"name": tool.name, "title": tool.title or (annotations or {}).get("title"),
                              "description": tool.description, "annotations": annotations})
            cache.sort(key=lambda t: t["name"])
        return cache

    return tools
