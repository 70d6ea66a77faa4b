"""The web dashboard and its JSON API: sessions, their calls, tools, models and media (routes listed
in README, "State, sessions and the dashboard").

Server-rendered HTML, no build step and no JavaScript: filters are plain GET forms. Everything
shown is escaped (tool arguments are user input). The same routes are mounted on the HTTP MCP
server and served by `gem-flux dashboard` from the same state folder.
"""

from __future__ import annotations

import html
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from gem_flux_mcp import CONTRACT_VERSION, __version__
from gem_flux_mcp.store.activity import ActivityRecorder
from gem_flux_mcp.store.rows import CallRow, SessionRow
from gem_flux_mcp.store.store import Store

MAX_PAGE = 500
BADGES = (
    ("readOnlyHint", "read-only", "ro"),
    ("destructiveHint", "destructive", "destructive"),
    ("idempotentHint", "idempotent", "idem"),
    ("openWorldHint", "open-world", "open"),
)


@dataclass
class DashboardSource:
    """Where the dashboard reads: the store, the recorder (flushed before reads when it runs in
    this process), the tool list, and the workspace the viewer may see."""

    store: Store
    recorder: Callable[[], ActivityRecorder | None]
    tools: Callable[[], Awaitable[list[dict[str, Any]]]]
    workspace: Callable[[Request], str]

    def sync(self) -> None:
        recorder = self.recorder()
        if recorder is not None:
            recorder.flush()


def _int(request: Request, name: str, default: int, low: int, high: int) -> int:
    try:
        value = int(request.query_params.get(name, default))
    except ValueError:
        value = default
    return max(low, min(high, value))


def session_json(row: SessionRow) -> dict[str, Any]:
    return {
        "id": row.id, "client_name": row.client_name, "client_version": row.client_version,
        "protocol_version": row.protocol_version, "transport": row.transport, "status": row.status,
        "start_time": row.start_time, "end_time": row.end_time, "last_activity": row.last_activity,
        "tool_call_count": row.tool_call_count, "total_tokens": row.total_tokens,
        "duration_s": _duration(row),
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


def _parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def _duration(row: SessionRow) -> float:
    end = row.end_time or row.last_activity
    return round((_parse(end) - _parse(row.start_time)).total_seconds(), 3)


# -- JSON API -------------------------------------------------------------------------------------


def api_routes(source: DashboardSource) -> list[Route]:
    async def tools(request: Request) -> Response:
        return JSONResponse({"version": __version__, "contract_version": CONTRACT_VERSION,
                             "tools": await source.tools()})

    async def sessions(request: Request) -> Response:
        source.sync()
        limit = _int(request, "limit", 20, 1, MAX_PAGE)
        offset = _int(request, "offset", 0, 0, 10**9)
        rows = source.store.db.recent_sessions(source.workspace(request), limit, offset)
        return JSONResponse({"sessions": [session_json(r) for r in rows], "limit": limit, "offset": offset})

    async def session(request: Request) -> Response:
        source.sync()
        row = _visible_session(source, request)
        if row is None:
            return JSONResponse({"error": "session not found"}, status_code=404)
        return JSONResponse({**session_json(row), "aggregates": source.store.db.session_aggregates(row.id)})

    async def calls(request: Request) -> Response:
        source.sync()
        row = _visible_session(source, request)
        if row is None:
            return JSONResponse({"error": "session not found"}, status_code=404)
        limit = _int(request, "limit", 50, 1, MAX_PAGE)
        offset = _int(request, "offset", 0, 0, 10**9)
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

    async def media(request: Request) -> Response:
        rows = source.store.list_media(source.workspace(request))
        return JSONResponse({"media": [{
            "media_id": r.media_id, "media_name": r.media_name, "num_compounds": len(r.compounds),
            "created_at": r.created_at} for r in rows]})

    return [
        Route("/api/tools", tools), Route("/api/sessions", sessions),
        Route("/api/sessions/{session_id}", session), Route("/api/sessions/{session_id}/calls", calls),
        Route("/api/models", models), Route("/api/media", media),
    ]


def _visible_session(source: DashboardSource, request: Request) -> SessionRow | None:
    row = source.store.db.get_session(str(request.path_params["session_id"]))
    if row is None or row.workspace != source.workspace(request):
        return None  # another workspace's session is indistinguishable from a missing one
    return row


# -- HTML -----------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#1d2330;background:#fafbfc}
h1{font-size:1.4rem;margin:0 0 .2rem}h2{font-size:1.1rem;margin:1.6rem 0 .5rem}
table{border-collapse:collapse;width:100%;background:#fff;font-size:.86rem}
th,td{border:1px solid #dde1e6;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#eef1f5}.muted{color:#68707d}.mono{font-family:ui-monospace,monospace;white-space:pre-wrap;
word-break:break-all}.badge{display:inline-block;border-radius:.6rem;padding:0 .45rem;margin:0 .15rem;
font-size:.75rem;border:1px solid}.ro{background:#e6f4ea;border-color:#6cb27c}
.destructive{background:#fdecea;border-color:#d9534f}.idem{background:#e8f0fe;border-color:#6b8fd6}
.open{background:#fff4e0;border-color:#e0a040}.err{color:#b3261e;font-weight:600}.ok{color:#1e7b34}
.writes{background:#f1ecfb;border-color:#8e6cc9}.active{color:#1e7b34;font-weight:600}.closed{color:#68707d}
form{margin:.5rem 0}nav{margin-bottom:1rem}nav a{margin-right:1rem}td.when{white-space:nowrap}
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


# The pages are static HTML with one inline style sheet: no scripts, no frames, no foreign loads.
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
                               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def _page(title: str, body: str, status_code: int = 200) -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{_e(title)}</title>"
        f"<meta name=viewport content='width=device-width'><style>{_CSS}</style></head><body>"
        f"<nav><a href='/'>Sessions</a><a href='/models'>Models &amp; media</a><a href='/tools'>Tools</a>"
        f"<span class=muted>gem-flux {_e(__version__)} · tool contract {_e(CONTRACT_VERSION)}</span></nav>"
        f"{body}</body></html>",
        status_code=status_code, headers=SECURITY_HEADERS,
    )


def badge_labels(annotations: dict[str, Any] | None) -> list[str]:
    """The hints a tool declares; a tool that is not read-only and declares nothing else
    'writes' (it changes stored state without destroying anything)."""
    if not annotations:
        return []
    labels = [label for key, label, _ in BADGES if annotations.get(key)]
    if annotations.get("readOnlyHint") is False and not annotations.get("destructiveHint"):
        labels.append("writes")
    return labels


def badges(annotations: dict[str, Any] | None) -> str:
    labels = badge_labels(annotations)
    if not labels:
        return "<span class=muted>no hints</span>"
    css = {label: cls for _, label, cls in BADGES} | {"writes": "writes"}
    return "".join(f"<span class='badge {css[label]}' data-badge='{_e(label)}'>{_e(label)}</span>"
                   for label in labels)


def _when(ts: str | None) -> str:
    """2026-11-22T10:51:08.959634Z -> 2026-11-22 10:51:08 (UTC, to the second)."""
    return _e(ts[:19].replace("T", " ")) if ts else ""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _summary(description: str | None) -> str:
    """The first paragraph of a tool description, unwrapped."""
    return " ".join((description or "").strip().split("\n\n")[0].split())


def html_routes(source: DashboardSource) -> list[Route]:
    async def index(request: Request) -> Response:
        source.sync()
        rows = source.store.db.recent_sessions(source.workspace(request), _int(request, "limit", 50, 1, MAX_PAGE))
        body = ["<h1>MCP sessions</h1><p class=muted>Newest first; only the newest 100 are kept.</p>",
                "<table id=sessions><tr><th>Started</th><th>Client</th><th>Protocol</th><th>Status</th>"
                "<th>Calls</th><th>Tokens (est.)</th><th>Duration</th></tr>"]
        for r in rows:
            body.append(
                f"<tr data-session='{_e(r.id)}'><td class=when>"
                f"<a href='/sessions/{_e(r.id)}'>{_when(r.start_time)}</a></td>"
                f"<td>{_e(r.client_name)} {_e(r.client_version)}</td><td>{_e(r.protocol_version)}</td>"
                f"<td class='{_e(r.status)}'>{_e(r.status)}</td><td>{r.tool_call_count}</td>"
                f"<td>{r.total_tokens}</td><td>{_duration(r):.1f} s</td></tr>")
        body.append("</table>" if rows else "</table><p class=muted>No sessions recorded yet.</p>")
        return _page("gem-flux sessions", "".join(body))

    async def session(request: Request) -> Response:
        source.sync()
        row = _visible_session(source, request)
        if row is None:
            return _page("not found", "<h1>Session not found</h1>", status_code=404)
        tool = request.query_params.get("tool") or None
        errors = request.query_params.get("errors") in {"1", "true", "yes", "on"}
        agg = source.store.db.session_aggregates(row.id)
        calls = source.store.db.calls_by_session(row.id, _int(request, "limit", 200, 1, MAX_PAGE),
                                                 _int(request, "offset", 0, 0, 10**9), tool, errors)
        options = "".join(f"<option value='{_e(name)}'{' selected' if name == tool else ''}>{_e(name)}</option>"
                          for name in sorted(agg["calls_by_tool"]))
        body = [
            f"<h1>Session {_e(row.id)}</h1>",
            f"<p>{_e(row.client_name)} {_e(row.client_version)} · {_e(row.transport)} · protocol "
            f"{_e(row.protocol_version)} · <span class='{_e(row.status)}'>{_e(row.status)}</span> · "
            f"{_plural(agg['tool_calls'], 'call')}, {_plural(agg['errors'], 'error')}, ~{agg['tokens']} tokens · "
            f"started {_when(row.start_time)}{' · ended ' + _when(row.end_time) if row.end_time else ''} UTC</p>",
            "<form id=filter method=get><label>Tool <select name=tool><option value=''>all</option>"
            f"{options}</select></label> <label><input type=checkbox name=errors value=1"
            f"{' checked' if errors else ''}> errors only</label> <button type=submit>Filter</button></form>",
            "<table id=calls><tr><th>#</th><th>Time</th><th>Tool</th><th>Arguments</th><th>Outcome</th>"
            "<th>Duration</th><th>Response</th></tr>",
        ]
        for c in calls:
            outcome = (f"<span class=err>{_e(c.error_code)}</span><br>{_e(c.error_message)}" if c.is_error
                       else "<span class=ok>ok</span>")
            size = f"{c.response_size} chars{' (truncated)' if c.response_truncated else ''}"
            body.append(
                f"<tr class=call data-tool='{_e(c.tool_name)}' data-error='{int(c.is_error)}'><td>{c.seq}</td>"
                f"<td class=when>{_when(c.timestamp)}</td><td>{_e(c.tool_name)}<br>{badges(c.annotations)}</td>"
                f"<td class='mono args'>{_e(json.dumps(c.arguments, ensure_ascii=False))}</td><td>{outcome}</td>"
                f"<td>{c.duration_ms:.1f} ms</td><td class=muted>{size}</td></tr>")
        body.append("</table>")
        return _page(f"session {row.id}", "".join(body))

    async def tools(request: Request) -> Response:
        body = ["<h1>Tools</h1><table id=tools><tr><th>Tool</th><th>Title</th><th>Hints</th><th>Description</th></tr>"]
        for tool in await source.tools():
            body.append(f"<tr data-tool='{_e(tool['name'])}'><td>{_e(tool['name'])}</td>"
                        f"<td>{_e(tool.get('title'))}</td><td>{badges(tool.get('annotations'))}</td>"
                        f"<td>{_e(_summary(tool.get('description')))}</td></tr>")
        body.append("</table>")
        return _page("gem-flux tools", "".join(body))

    async def models(request: Request) -> Response:
        workspace = source.workspace(request)
        body = ["<h1>Models</h1><table id=models><tr><th>Model</th><th>State</th><th>Source</th>"
                "<th>Reactions</th><th>Genes</th><th>Derived from</th><th>Created</th></tr>"]
        models = source.store.list_models(workspace)
        for r in models:
            body.append(f"<tr><td>{_e(r.model_id)}</td><td>{_e(r.state)}</td><td>{_e(r.source)}</td>"
                        f"<td>{r.num_reactions}</td><td>{r.num_genes}</td><td>{_e(r.derived_from) or '-'}</td>"
                        f"<td class=when>{_when(r.created_at)}</td></tr>")
        body.append("</table>" if models else "</table><p class=muted>No models stored yet.</p>")
        body.append("<h2>Media you built</h2><table id=media><tr><th>Medium</th><th>Compounds</th>"
                    "<th>Created</th></tr>")
        media = source.store.list_media(workspace)
        for m in media:
            body.append(f"<tr><td>{_e(m.media_id)}</td><td>{len(m.compounds)}</td>"
                        f"<td class=when>{_when(m.created_at)}</td></tr>")
        body.append("</table>" if media else "</table><p class=muted>No media built yet (predefined media are "
                    "listed by the list_media tool).</p>")
        return _page("gem-flux models", "".join(body))

    return [Route("/", index), Route("/sessions/{session_id}", session), Route("/tools", tools),
            Route("/models", models)]


def routes(source: DashboardSource) -> list[Route]:
    return [*api_routes(source), *html_routes(source)]


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
