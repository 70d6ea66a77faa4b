"""The communities list (/communities) and a community's page (/communities/<id>): its members
with their abundance, whether each is still stored as built, and their growth in the latest
run_community; who feeds whom in that run drawn as a network (members as nodes sized by
abundance, one arrow per metabolite from the member that secretes it to the one that takes it up,
width by flux) with the same rows as a table beside it; the medium compounds that limited growth
when that run asked; and every result recorded with the community."""

from __future__ import annotations

import math
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gem_flux_mcp.errors import GemFluxError
from gem_flux_mcp.server.dashboard.html import cards, e, figure, model_href, not_found, number, page, seg, table, when
from gem_flux_mcp.server.dashboard.source import DashboardSource
from gem_flux_mcp.server.dashboard.svg import clip, svg, text
from gem_flux_mcp.services.community.build import member_state
from gem_flux_mcp.store.rows import CommunityResultRow, CommunityRow

RESULTS_SHOWN = 50
GROWING = 1e-6  # 1/h, as run_community counts growing members
NET_W, NET_H = 640, 480
EDGE_COLOURS = ("#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2", "#eeca3b", "#9d755d", "#ff9da6")
KIND_TITLES = {"community_growth": "Growth (run_community)", "community_knockouts": "Knockouts",
               "community_minimal_medium": "Minimal medium", "community_samples": "Samples (batch)"}


def community_href(community_id: str) -> str:
    return f"/communities/{seg(community_id)}"


def visible_community(source: DashboardSource, request: Request, community_id: str) -> CommunityRow | None:
    try:
        return source.store.get_community(source.workspace(request), community_id)
    except GemFluxError:  # not found (in this workspace)
        return None


def communities_of(source: DashboardSource, workspace: str, model_id: str) -> list[str]:
    """The ids of the communities `model_id` is a member of."""
    return [c.community_id for c in source.store.list_communities(workspace)
            if any(m["model_id"] == model_id for m in c.members)]


def communities_list(source: DashboardSource, request: Request) -> str:
    workspace = source.workspace(request)
    rows = source.store.list_communities(workspace)
    counts = source.store.community_result_counts(workspace)
    cells = [(f"<a href='{e(community_href(c.community_id))}'>{e(c.community_id)}</a>",
              e(", ".join(m["model_id"] for m in c.members[:8]) + (" …" if len(c.members) > 8 else "")),
              str(len(c.members)), str(counts.get(c.community_id, 0)), when(c.created_at)) for c in rows]
    return "<h1>Communities</h1>" + table(("Community", "Members", "Size", "Results", "Created"), cells,
                                          "communities", "No communities stored yet: build_community makes one.")


def headline(result: CommunityResultRow) -> str:
    """The result in a few words (plain text)."""
    s = result.summary
    if result.kind == "community_growth":
        return (f"community growth {number(s.get('community_growth'))} /h, {s.get('growing_members')} of "
                f"{s.get('members')} members growing, {s.get('cross_feedings')} cross-feedings "
                f"(tradeoff {number(s.get('tradeoff'))})")
    if result.kind == "community_knockouts":
        return f"{s.get('removed')} members removed in turn, {s.get('dependencies')} dependencies"
    if result.kind == "community_minimal_medium":
        return (f"{s.get('compounds')} compounds, total uptake {number(s.get('total_uptake'))} for "
                f"{number(s.get('target_growth_rate'))} /h")
    if result.kind == "community_samples":
        counts = s.get("counts")
        counts = counts if isinstance(counts, dict) else {}
        return (f"{s.get('samples')} samples ({', '.join(f'{n} {k}' for k, n in counts.items()) or 'none finished'}) "
                f"into {s.get('out_dir')}/" + (" (cancelled)" if s.get("cancelled") else ""))
    return ", ".join(f"{k} {v}" for k, v in list(s.items())[:4])


def _node_places(members: list[str]) -> dict[str, tuple[float, float]]:
    """Members on a circle, the first at the top, clockwise (one member: the centre)."""
    if len(members) == 1:
        return {members[0]: (NET_W / 2, NET_H / 2)}
    radius = min(NET_W, NET_H) / 2 - 70
    return {m: (NET_W / 2 + radius * math.sin(2 * math.pi * i / len(members)),
                NET_H / 2 - radius * math.cos(2 * math.pi * i / len(members))) for i, m in enumerate(members)}


def network_svg(abundance: dict[str, float], growth: dict[str, float], feeding: list[dict[str, Any]],
                label: str) -> str:
    """Members as nodes (area by abundance, blue when growing, grey when not, each a link to its
    model); each cross-feeding an arrow from the member that secretes the metabolite to the one
    that takes it up, named by it, width by flux. Arrows between the same two members bend apart
    (each direction to its own side)."""
    places = _node_places(list(abundance))
    most = max(abundance.values(), default=1.0) or 1.0
    radius = {m: 14 + 16 * math.sqrt(a / most) for m, a in abundance.items()}
    top = max((float(f["flux"]) for f in feeding), default=1.0) or 1.0
    colours: dict[str, str] = {}
    drawn: dict[tuple[str, str], int] = {}
    edges: list[str] = []
    for row in feeding:
        giver, taker = str(row["from_member"]), str(row["to_member"])
        if giver not in places or taker not in places:
            continue
        colour = colours.setdefault(str(row["compound_id"]), EDGE_COLOURS[len(colours) % len(EDGE_COLOURS)])
        nth = drawn[(giver, taker)] = drawn.get((giver, taker), -1) + 1
        (x1, y1), (x2, y2) = places[giver], places[taker]
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        nx, ny = (y2 - y1) / length, -(x2 - x1) / length  # left of the direction giver -> taker
        bend = 22 + 26 * nth
        mx, my = (x1 + x2) / 2 + nx * bend, (y1 + y2) / 2 + ny * bend  # the curve's middle
        cx, cy = 2 * mx - (x1 + x2) / 2, 2 * my - (y1 + y2) / 2  # its control point
        sx, sy = _towards(x1, y1, cx, cy, radius[giver] + 2)
        ex, ey = _towards(x2, y2, cx, cy, radius[taker] + 6)
        width = 1.5 + 8 * float(row["flux"]) / top
        tip = f"{row['name']} ({row['compound_id']}): {giver} → {taker}, {float(row['flux']):.4g} mmol/gDW/h"
        edges.append(f"<g data-edge='{e(giver)}|{e(taker)}|{e(row['compound_id'])}'><title>{e(tip)}</title>"
                     f"<path d='M{sx:.1f},{sy:.1f} Q{cx:.1f},{cy:.1f} {ex:.1f},{ey:.1f}' fill='none' "
                     f"stroke='{colour}' stroke-width='{width:.2f}' stroke-opacity='0.85' "
                     f"marker-end='url(#feed-arrow)'/>"
                     + text(mx, my - 3, clip(str(row["name"]), 22), 11, "middle", "#1d2330", "600",
                            "paint-order='stroke' stroke='#fff' stroke-width='3'") + "</g>")
    nodes: list[str] = []
    for member, (x, y) in places.items():
        rate = growth.get(member)
        fill = "#4c78a8" if rate is not None and rate > GROWING else "#bab0ac"
        said = f"growth {rate:.4g} /h" if rate is not None else "not grown yet"
        tip = f"{member}: abundance {abundance[member]:.3g}, {said}"
        nodes.append(f"<a href='{e(model_href(member))}' data-member='{e(member)}'><title>{e(tip)}</title>"
                     f"<circle cx='{x:.1f}' cy='{y:.1f}' r='{radius[member]:.1f}' fill='{fill}' stroke='#fff' "
                     f"stroke-width='2'/>"
                     + _node_label(x, y, radius[member], member, said) + "</a>")
    defs = ("<defs><marker id='feed-arrow' viewBox='0 0 10 10' refX='8' refY='5' markerWidth='11' "
            "markerHeight='11' orient='auto' markerUnits='userSpaceOnUse'><path d='M0,0 L10,5 L0,10 z' "
            "fill='#3c4350'/></marker></defs>")
    return svg(NET_W, NET_H, defs + "".join(edges) + "".join(nodes), label, "cross-feeding")


def _node_label(x: float, y: float, r: float, member: str, said: str) -> str:
    """The member's id and growth outside its node, away from the centre (where the arrows run)."""
    dx, dy = x - NET_W / 2, y - NET_H / 2
    length = math.hypot(dx, dy)
    ux, uy = (dx / length, dy / length) if length else (0.0, 1.0)
    lx, ly = x + ux * (r + 10), y + uy * (r + 10)
    anchor = "middle" if abs(ux) < 0.4 else ("start" if ux > 0 else "end")
    top = ly + (4 if abs(uy) < 0.4 else (12 if uy > 0 else -16))
    return (text(lx, top, clip(member, 26), 12, anchor, "#1d2330", "600")
            + text(lx, top + 13, said, 10, anchor, "#3c4350"))


def _towards(x: float, y: float, tx: float, ty: float, by: float) -> tuple[float, float]:
    """The point `by` from (x, y) on the way to (tx, ty)."""
    length = math.hypot(tx - x, ty - y) or 1.0
    return x + (tx - x) * by / length, y + (ty - y) * by / length


def _latest_growth(recorded: list[CommunityResultRow]
                   ) -> tuple[CommunityResultRow | None, dict[str, float], list[dict[str, Any]]]:
    """The newest run_community result, its member growth and its cross-feeding rows."""
    grown = next((r for r in recorded if r.kind == "community_growth"), None)
    summary = grown.summary if grown else {}
    growth = {str(k): float(v) for k, v in (summary.get("member_growth") or {}).items()}
    return grown, growth, [f for f in summary.get("cross_feeding") or [] if isinstance(f, dict)]


def community_json(source: DashboardSource, row: CommunityRow) -> dict[str, Any]:
    """The page's data: members (abundance, state, latest growth), the latest growth's
    cross-feeding, the recorded results."""
    recorded = source.store.list_community_results(row.workspace, row.community_id, RESULTS_SHOWN)
    grown, growth, feeding = _latest_growth(recorded)
    return {"community_id": row.community_id, "community_name": row.community_name, "created_at": row.created_at,
            "members": [{"model_id": m["model_id"], "abundance": m["abundance"],
                         "state": member_state(source.store, row.workspace, m),
                         "growth_rate": growth.get(str(m["model_id"]))} for m in row.members],
            "latest_growth": {"media_id": grown.media_id, "created_at": grown.created_at,
                              "community_growth": grown.summary.get("community_growth"),
                              "cross_feeding": feeding} if grown else None,
            "results": [{"kind": r.kind, "media_id": r.media_id, "created_at": r.created_at, "headline": headline(r)}
                        for r in recorded]}


def community_body(source: DashboardSource, row: CommunityRow) -> str:
    recorded = source.store.list_community_results(row.workspace, row.community_id, RESULTS_SHOWN)
    grown, growth, feeding = _latest_growth(recorded)
    summary = grown.summary if grown else {}
    abundance = {str(m["model_id"]): float(m["abundance"]) for m in row.members}
    members = []
    for m in row.members:
        state = member_state(source.store, row.workspace, m)
        name = (f"<a href='{e(model_href(m['model_id']))}'>{e(m['model_id'])}</a>" if state != "deleted"
                else e(m["model_id"]))
        rate = growth.get(str(m["model_id"]))
        members.append((name, number(float(m["abundance"])), f"<span data-state='{e(state)}'>{e(state)}</span>",
                        number(rate) if rate is not None else "<span class=muted>-</span>"))
    body = [f"<h1>Community {e(row.community_id)}</h1>",
            f"<p>{len(row.members)} members · created {when(row.created_at)} UTC"
            + (f" · latest growth on <b>{e(grown.media_id)}</b> (tradeoff {number(summary.get('tradeoff'))}), "
               f"recorded {when(grown.created_at)} UTC" if grown else "") + "</p>",
            cards([("members", len(row.members)), ("community growth /h", summary.get("community_growth", "-")),
                   ("growing members", summary.get("growing_members", "-")),
                   ("cross-feedings", summary.get("cross_feedings", "-")), ("results", len(recorded))]),
            "<h2 id=members-title>Members</h2>",
            table(("Member", "Abundance", "Stored", "Growth /h (latest run)"), members, "members"),
            "<h2 id=cross-feeding-title>Who feeds whom</h2>"]
    if grown is None:
        body.append("<p class=muted id=no-growth>Nothing grown yet: run_community(community_id=…, media_id=…) "
                    "records the growth and cross-feeding drawn here.</p>")
    else:
        listed = len(feeding) < int(summary.get("cross_feedings") or 0)
        chart = network_svg(abundance, growth, feeding, f"cross-feeding in {row.community_id} on {grown.media_id}")
        rows = [(e(f["name"]), f"<span class=mono>{e(f['compound_id'])}</span>", e(f["from_member"]),
                 e(f["to_member"]), f"<span class=nowrap>{number(f['flux'])}</span>") for f in feeding]
        body.append("<div class=side>" + figure(
            chart, "Arrows run from the member that secretes a metabolite to the member that takes it up; width by "
                   "flux (mmol per gDW of community per h); node area by abundance, blue when the member grows.")
            + "<div>" + table(("Metabolite", "Id", "From", "To", "Flux"), rows, "cross-feeding-table",
                              "No member feeds another in this run.")
            + (f"<p class=muted>The largest {len(feeding)} of {summary.get('cross_feedings')} are recorded.</p>"
               if listed else "") + "</div></div>")
        limiting = summary.get("limiting_compounds")
        if isinstance(limiting, list):
            body.append(f"<p id=limiting>Medium compounds that limit growth (halving their uptake bound lowers it): "
                        f"{e(', '.join(map(str, limiting)) or 'none')}.</p>")
    body.append("<h2 id=results-title>Recorded results</h2>")
    body.append(table(("Result", "Medium", "In short", "Recorded"),
                      [(e(KIND_TITLES.get(r.kind, r.kind)), e(r.media_id) or "-", e(headline(r)), when(r.created_at))
                       for r in recorded], "community-results",
                      "No results recorded yet: run_community, community_knockouts and community_minimal_medium "
                      "record theirs."))
    return "".join(body)


def routes(source: DashboardSource) -> list[Route]:
    async def communities(request: Request) -> Response:
        return page("gem-flux communities", communities_list(source, request))

    async def community(request: Request) -> Response:
        row = visible_community(source, request, str(request.path_params["community_id"]))
        if row is None:
            return not_found("Community")
        return page(f"community {row.community_id}", community_body(source, row))

    return [Route("/communities", communities), Route("/communities/{community_id}", community)]
