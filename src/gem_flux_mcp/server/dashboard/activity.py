"""The record of MCP activity: sessions, each session's calls (filter by tool or errors) and the
tools with their annotation badges. A page showing an active session refreshes itself."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gem_flux_mcp.server.dashboard import live
from gem_flux_mcp.server.dashboard.html import badges, e, page, plural, when
from gem_flux_mcp.server.dashboard.source import MAX_PAGE, DashboardSource, int_param, visible_session
from gem_flux_mcp.store.rows import SessionRow


def _parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def duration(row: SessionRow) -> float:
    end = row.end_time or row.last_activity
    return round((_parse(end) - _parse(row.start_time)).total_seconds(), 3)


def summary(description: str | None) -> str:
    """The first paragraph of a tool description, unwrapped."""
    return " ".join((description or "").strip().split("\n\n")[0].split())


def _refresh(active: bool, jobs_refresh: int | None) -> int | None:
    """Jobs refresh faster than sessions; nothing running, no refresh."""
    return jobs_refresh or (live.SESSION_REFRESH_S if active else None)


def routes(source: DashboardSource) -> list[Route]:
    async def index(request: Request) -> Response:
        source.sync()
        workspace = source.workspace(request)
        rows = source.store.db.recent_sessions(workspace, int_param(request, "limit", 50, 1, MAX_PAGE))
        box, jobs_refresh = live.live_box(source, workspace)
        active = any(r.status == "active" for r in rows)
        refresh = _refresh(active, jobs_refresh)
        body = [box, "<h1>MCP sessions</h1><p class=muted>Newest first; only the newest 100 are kept."
                + (f" Refreshing every {refresh} s while a session is active." if refresh else "") + "</p>",
                "<table id=sessions><tr><th>Started</th><th>Client</th><th>Protocol</th><th>Status</th>"
                "<th>Calls</th><th>Tokens (est.)</th><th>Duration</th></tr>"]
        for r in rows:
            body.append(
                f"<tr data-session='{e(r.id)}'><td class=when>"
                f"<a href='/sessions/{e(r.id)}'>{when(r.start_time)}</a></td>"
                f"<td>{e(r.client_name)} {e(r.client_version)}</td><td>{e(r.protocol_version)}</td>"
                f"<td class='{e(r.status)}'>{e(r.status)}</td><td>{r.tool_call_count}</td>"
                f"<td>{r.total_tokens}</td><td>{duration(r):.1f} s</td></tr>")
        body.append("</table>" if rows else "</table><p class=muted>No sessions recorded yet.</p>")
        return page("gem-flux sessions", "".join(body), refresh_s=refresh)

    async def session(request: Request) -> Response:
        source.sync()
        row = visible_session(source, request)
        if row is None:
            return page("not found", "<h1>Session not found</h1>", status_code=404)
        tool = request.query_params.get("tool") or None
        errors = request.query_params.get("errors") in {"1", "true", "yes", "on"}
        agg = source.store.db.session_aggregates(row.id)
        calls = source.store.db.calls_by_session(row.id, int_param(request, "limit", 200, 1, MAX_PAGE),
                                                 int_param(request, "offset", 0, 0, 10**9), tool, errors)
        options = "".join(f"<option value='{e(name)}'{' selected' if name == tool else ''}>{e(name)}</option>"
                          for name in sorted(agg["calls_by_tool"]))
        box, jobs_refresh = live.live_box(source, row.workspace) if row.status == "active" else ("", None)
        refresh = _refresh(row.status == "active", jobs_refresh)
        body = [
            box, f"<h1>Session {e(row.id)}</h1>",
            f"<p>{e(row.client_name)} {e(row.client_version)} · {e(row.transport)} · protocol "
            f"{e(row.protocol_version)} · <span class='{e(row.status)}'>{e(row.status)}</span> · "
            f"{plural(agg['tool_calls'], 'call')}, {plural(agg['errors'], 'error')}, ~{agg['tokens']} tokens · "
            f"started {when(row.start_time)}{' · ended ' + when(row.end_time) if row.end_time else ''} UTC"
            f"{f' · refreshing every {refresh} s' if refresh else ''}</p>",
            "<form id=filter method=get><label>Tool <select name=tool><option value=''>all</option>"
            f"{options}</select></label> <label><input type=checkbox name=errors value=1"
            f"{' checked' if errors else ''}> errors only</label> <button type=submit>Filter</button></form>",
            "<table id=calls><tr><th>#</th><th>Time</th><th>Tool</th><th>Arguments</th><th>Outcome</th>"
            "<th>Duration</th><th>Response</th></tr>",
        ]
        for c in calls:
            outcome = (f"<span class=err>{e(c.error_code)}</span><br>{e(c.error_message)}" if c.is_error
                       else "<span class=ok>ok</span>")
            size = f"{c.response_size} chars{' (truncated)' if c.response_truncated else ''}"
            body.append(
                f"<tr class=call data-tool='{e(c.tool_name)}' data-error='{int(c.is_error)}'><td>{c.seq}</td>"
                f"<td class=when>{when(c.timestamp)}</td><td>{e(c.tool_name)}<br>{badges(c.annotations)}</td>"
                f"<td class='mono args'>{e(json.dumps(c.arguments, ensure_ascii=False))}</td><td>{outcome}</td>"
                f"<td>{c.duration_ms:.1f} ms</td><td class=muted>{size}</td></tr>")
        body.append("</table>")
        return page(f"session {row.id}", "".join(body), refresh_s=refresh)

    async def tools(request: Request) -> Response:
        found: list[dict[str, Any]] = await source.tools()
        body = ["<h1>Tools</h1><table id=tools><tr><th>Tool</th><th>Title</th><th>Hints</th><th>Description</th></tr>"]
        for tool in found:
            body.append(f"<tr data-tool='{e(tool['name'])}'><td>{e(tool['name'])}</td>"
                        f"<td>{e(tool.get('title'))}</td><td>{badges(tool.get('annotations'))}</td>"
                        f"<td>{e(summary(tool.get('description')))}</td></tr>")
        body.append("</table>")
        return page("gem-flux tools", "".join(body))

    return [Route("/", index), Route("/sessions/{session_id}", session), Route("/tools", tools)]
