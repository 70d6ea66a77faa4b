"""The map drawn as SVG: metabolites as dots, reactions as arrows in the direction their flux runs,
wider and darker the more flux they carry; no flux in grey, reactions the model does not have
dashed. Every arrow has its BiGG id and flux written beside it and a tooltip with the model's
reaction ids; each carries data-reaction / data-flux attributes for scripts and tests."""

from __future__ import annotations

import math

from gem_flux_mcp.server.dashboard.flux_map.layout import (
    CELL,
    EDGES,
    EXCHANGES,
    HEIGHT,
    NODE_BY_KEY,
    NODES,
    WIDTH,
    Node,
)
from gem_flux_mcp.server.dashboard.flux_map.mapping import MapMapping
from gem_flux_mcp.server.dashboard.html import e
from gem_flux_mcp.server.dashboard.svg import mix, svg, text

ZERO = 1e-9
NODE_R = 6.0
LOW, HIGH = "#f4a259", "#b2182b"  # light to dark with more flux
IDLE, ABSENT = "#9aa3ad", "#d3d7dc"
LABEL_OFFSETS = {"right": (10, 4, "start"), "left": (-10, 4, "end"), "above": (0, -11, "middle"),
                 "below": (0, 19, "middle")}


def _width(flux: float, top: float) -> float:
    return 2.0 + 7.0 * math.sqrt(min(1.0, abs(flux) / top)) if abs(flux) > ZERO else 1.5


def _colour(flux: float, top: float) -> str:
    return mix(LOW, HIGH, math.sqrt(min(1.0, abs(flux) / top)))


def _trim(x0: float, y0: float, x1: float, y1: float, by: float) -> tuple[float, float]:
    """The point `by` short of (x1, y1) on the way from (x0, y0)."""
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    return x1 - (x1 - x0) * by / length, y1 - (y1 - y0) * by / length


def _path(start: tuple[float, float], end: tuple[float, float], bend: tuple[float, float] | None,
          trim_start: float, trim_end: float) -> tuple[str, tuple[float, float], tuple[float, float]]:
    """SVG path data from start to end (through a quadratic bend), trimmed at both ends; with the
    middle point and the direction there (for the label)."""
    control = bend or ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    s = _trim(control[0], control[1], start[0], start[1], trim_start)
    t = _trim(control[0], control[1], end[0], end[1], trim_end)
    if bend is None:
        middle = ((s[0] + t[0]) / 2, (s[1] + t[1]) / 2)
        return f"M{s[0]:.1f},{s[1]:.1f} L{t[0]:.1f},{t[1]:.1f}", middle, (t[0] - s[0], t[1] - s[1])
    middle = (0.25 * s[0] + 0.5 * control[0] + 0.25 * t[0], 0.25 * s[1] + 0.5 * control[1] + 0.25 * t[1])
    return (f"M{s[0]:.1f},{s[1]:.1f} Q{control[0]:.1f},{control[1]:.1f} {t[0]:.1f},{t[1]:.1f}", middle,
            (t[0] - s[0], t[1] - s[1]))


def _label_at(middle: tuple[float, float], direction: tuple[float, float],
              chord_middle: tuple[float, float] | None = None, flip: bool = False) -> tuple[float, float, str]:
    """Beside the arrow's middle: on the outer side of a curve (away from its chord), else to the
    left of a vertical arrow and below a horizontal one."""
    if chord_middle is not None and math.hypot(middle[0] - chord_middle[0], middle[1] - chord_middle[1]) > 2:
        length = math.hypot(middle[0] - chord_middle[0], middle[1] - chord_middle[1])
        nx, ny = (middle[0] - chord_middle[0]) / length, (middle[1] - chord_middle[1]) / length
    else:
        dx, dy = direction
        length = math.hypot(dx, dy) or 1.0
        nx, ny = -dy / length, dx / length  # the normal
        if nx > 0.3 or (abs(nx) <= 0.3 and ny < 0):
            nx, ny = -nx, -ny
    if flip:
        nx, ny = -nx, -ny
    x, y = middle[0] + nx * 12, middle[1] + ny * 12 + 4
    return x, y, "end" if nx < -0.3 else ("start" if nx > 0.3 else "middle")


def _arrow(key: str, title: str, start: tuple[float, float], end: tuple[float, float],
           bend: tuple[float, float] | None, flux: float | None, in_model: bool, top: float,
           trim_start: float, trim_end: float, members: str, name: str | None = None, flip: bool = False) -> str:
    forward = flux is None or flux >= -ZERO
    a, b = (start, end) if forward else (end, start)
    ta, tb = (trim_start, trim_end) if forward else (trim_end, trim_start)
    data, middle, direction = _path(a, b, bend, ta, tb)
    moving = flux is not None and abs(flux) > ZERO
    if not in_model:
        colour, width, dash, marker = ABSENT, 1.5, " stroke-dasharray='5,4'", ""
    elif moving:
        colour, width, dash, marker = _colour(flux or 0.0, top), _width(flux or 0.0, top), "", "url(#arrow-on)"
    else:
        colour, width, dash, marker = IDLE, 1.5, "", "url(#arrow-off)"
    shown = "—" if not in_model else ("?" if flux is None else f"{abs(flux):.3g}" if moving else "0")
    chord = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) if bend is not None else None
    lx, ly, anchor = _label_at(middle, direction, chord, flip)
    weight = "600" if moving else "normal"
    fill = "#1d2330" if moving else ("#68707d" if in_model else "#b5bcc4")
    flux_attr = "" if flux is None else f" data-flux='{flux:.6g}'"
    return (f"<g class='rxn' data-reaction='{e(key)}'{flux_attr} data-in-model='{int(in_model)}' "
            f"data-model-reactions='{e(members)}'><title>{e(title)}</title>"
            f"<path d='{data}' fill='none' stroke='{colour}' stroke-width='{width:.2f}'{dash}"
            + (f" marker-end='{marker}'" if marker else "") + "/>"
            + text(lx, ly, f"{key if name is None else name} {shown}".strip(), 10.5, anchor, fill, weight) + "</g>")


def _node(node: Node, present: bool) -> str:
    dx, dy, anchor = LABEL_OFFSETS[node.label_at]
    fill = "#3c4350" if present else "#ffffff"
    return (f"<g class='met' data-metabolite='{e(node.key)}'><title>{e(node.label)} ({e(node.key)})</title>"
            f"<circle cx='{node.x:.1f}' cy='{node.y:.1f}' r='{NODE_R}' fill='{fill}' stroke='#3c4350' "
            f"stroke-width='1.5'/>" + text(node.x + dx, node.y + dy, node.label, 11.5, anchor, "#1d2330") + "</g>")


def flux_map_svg(mapping: MapMapping, fluxes: dict[str, float] | None, title: str) -> str:
    """The map; `fluxes` None draws which reactions the model has, without fluxes."""
    values = {key: (mapping.flux(key, fluxes) if fluxes is not None and edge.in_model else None)
              for key, edge in mapping.edges.items()}
    moving = [abs(v) for k, v in values.items() if v is not None and not k.startswith("EX_")]
    top = max(moving, default=1.0) or 1.0
    x0, y0, x1, y1 = CELL
    parts = [
        "<defs>"
        f"<marker id='arrow-on' viewBox='0 0 10 10' refX='7' refY='5' markerWidth='13' markerHeight='13' "
        f"markerUnits='userSpaceOnUse' orient='auto'><path d='M0,0 L10,5 L0,10 z' fill='{HIGH}'/></marker>"
        f"<marker id='arrow-off' viewBox='0 0 10 10' refX='7' refY='5' markerWidth='9' markerHeight='9' "
        f"markerUnits='userSpaceOnUse' orient='auto'><path d='M0,0 L10,5 L0,10 z' fill='{IDLE}'/></marker></defs>",
        f"<rect x='{x0}' y='{y0}' width='{x1 - x0}' height='{y1 - y0}' rx='28' fill='#fbfcfd' stroke='#7f8893' "
        f"stroke-width='2'/>",
        text(x0 + 14, y0 + 22, "cytosol", 12, fill="#68707d"), text(x1 + 8, y0 - 8, "outside", 12, fill="#68707d"),
    ]
    for edge in EDGES:
        mapped = mapping.edges[edge.key]
        source, target = NODE_BY_KEY[edge.source], NODE_BY_KEY[edge.target]
        members = " ".join(f"{'-' if sign < 0 else ''}{rid}" for rid, sign in mapped.members)
        title_text = (f"{edge.key} ({edge.pathway}): " + (f"model {members}" if mapped.in_model else
                      "not in this model" + (f" (ModelSEED {', '.join(mapped.candidates[:4])})"
                                             if mapped.candidates else " (no ModelSEED alias)")))
        flux = values[edge.key]
        if flux is not None:
            title_text += f"; flux {flux:.6g} ({'forward' if flux >= 0 else 'reverse'} on the map)"
        for join in edge.joins:
            other = NODE_BY_KEY[join]
            mx, my = (source.x + target.x) / 2, (source.y + target.y) / 2
            if edge.bend:
                mx, my = (mx + edge.bend[0]) / 2, (my + edge.bend[1]) / 2
            parts.append(f"<path d='M{other.x:.1f},{other.y:.1f} L{mx:.1f},{my:.1f}' fill='none' stroke='#c3c9d0' "
                         f"stroke-width='1' stroke-dasharray='2,3'/>")
        parts.append(_arrow(edge.key, title_text, (source.x, source.y), (target.x, target.y), edge.bend, flux,
                            mapped.in_model, top, NODE_R + 3, NODE_R + 5, members, flip=edge.flip_label))
    for exchange in EXCHANGES:
        mapped = mapping.edges[exchange.key]
        node = NODE_BY_KEY[exchange.node]
        flux = values[exchange.key]
        members = " ".join(f"{'-' if sign < 0 else ''}{rid}" for rid, sign in mapped.members)
        title_text = (f"exchange of {node.label}: " + (members if mapped.in_model else "no exchange in this model")
                      + ("" if flux is None else f"; {'uptake' if flux > 0 else 'secretion'} {abs(flux):.6g}"))
        parts.append(_arrow(exchange.key, title_text, (exchange.x, exchange.y), (node.x, node.y), None, flux,
                            mapped.in_model, max(top, 1.0), 0.0, NODE_R + 5, members, name=""))
    parts.extend(_node(n, n.key in mapping.metabolites) for n in NODES)
    parts.append(_legend(top))
    return svg(WIDTH, HEIGHT, "".join(parts), title, "flux-map")


def _legend(top: float) -> str:
    """Top right: what widths and colours stand for (fractions of the largest map flux)."""
    x, y = 1000.0, 18.0
    rows = [text(x, y, "flux, mmol/gDW/h", 11.5, fill="#3c4350", weight="600")]
    for i, share in enumerate((1.0, 0.25, 0.02)):
        value = top * share
        ly = y + 18 + i * 17
        rows.append(f"<path d='M{x},{ly} L{x + 60},{ly}' stroke='{_colour(value, top)}' "
                    f"stroke-width='{_width(value, top):.2f}'/>" + text(x + 70, ly + 4, f"{value:.3g}", 11))
    ly = y + 18 + 3 * 17
    rows.append(f"<path d='M{x},{ly} L{x + 60},{ly}' stroke='{IDLE}' stroke-width='1.5'/>"
                + text(x + 70, ly + 4, "no flux", 11))
    rows.append(f"<path d='M{x + 150},{y + 18} L{x + 210},{y + 18}' stroke='{ABSENT}' stroke-width='1.5' "
                f"stroke-dasharray='5,4'/>" + text(x + 150, y + 36, "not in the model", 11))
    return f"<g id='flux-legend'>{''.join(rows)}</g>"
