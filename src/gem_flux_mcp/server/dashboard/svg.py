"""Server-rendered SVG charts: plain markup inside the page (no script, no library), every text
escaped, every mark with a <title> the browser shows on hover. Each chart comes with a table on
its page, so nothing is only in the picture."""

from __future__ import annotations

import math
from collections.abc import Sequence

from gem_flux_mcp.server.dashboard.html import e

FONT = "font-family='system-ui,sans-serif'"


def svg(width: float, height: float, body: str, label: str, svg_id: str | None = None) -> str:
    ident = f" id='{e(svg_id)}'" if svg_id else ""
    return (f"<svg{ident} xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width:.0f} {height:.0f}' "
            f"width='{width:.0f}' height='{height:.0f}' role='img' aria-label='{e(label)}' {FONT}>"
            f"<title>{e(label)}</title>{body}</svg>")


def text(x: float, y: float, value: str, size: float = 12, anchor: str = "start", fill: str = "#1d2330",
         weight: str = "normal", extra: str = "") -> str:
    return (f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size:g}' text-anchor='{anchor}' fill='{fill}' "
            f"font-weight='{weight}'{(' ' + extra) if extra else ''}>{e(value)}</text>")


def clip(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[:limit - 1] + "…"


def stacked_bar(parts: Sequence[tuple[str, str, int]], label: str, width: int = 900, svg_id: str | None = None) -> str:
    """One bar split into (label, colour, count) parts, with a legend of counts and shares below."""
    total = sum(n for _, _, n in parts) or 1
    body, x = [], 10.0
    for name, colour, n in parts:
        w = (width - 20) * n / total
        body.append(f"<rect x='{x:.1f}' y='8' width='{max(w, 0.5):.1f}' height='34' fill='{colour}' "
                    f"data-part='{e(name)}'><title>{e(name)}: {n} ({100 * n / total:.1f} %)</title></rect>")
        if w > 42:
            body.append(text(x + w / 2, 30, str(n), 12, "middle", "#fff" if _dark(colour) else "#1d2330", "600"))
        x += w
    columns = max(1, min(3, width // 300))
    for i, (name, colour, n) in enumerate(parts):
        cx, cy = 10 + (i % columns) * (width - 20) / columns, 62 + (i // columns) * 20
        body.append(f"<rect x='{cx:.1f}' y='{cy - 10:.1f}' width='12' height='12' fill='{colour}'/>")
        body.append(text(cx + 17, cy, f"{name}: {n} ({100 * n / total:.0f} %)", 12))
    height = 62 + math.ceil(len(parts) / columns) * 20
    return svg(width, height, "".join(body), label, svg_id)


def bar_chart(rows: Sequence[tuple[str, float, str]], label: str, width: int = 900, unit: str = "",
              svg_id: str | None = None, label_chars: int = 44) -> str:
    """Horizontal bars: (label, value, colour) per row, largest scale = the largest value."""
    if not rows:
        return svg(width, 30, text(10, 20, "nothing to show", 12, fill="#68707d"), label, svg_id)
    top = max(abs(v) for _, v, _ in rows) or 1.0
    left, row_h = 8 + 6.6 * label_chars, 20
    span = width - left - 70
    body = []
    for i, (name, value, colour) in enumerate(rows):
        y = 6 + i * row_h
        w = span * abs(value) / top
        shown = f"{value:g}{unit}"
        body.append(text(left - 6, y + 13, clip(name, label_chars), 12, "end"))
        body.append(f"<rect x='{left:.1f}' y='{y + 2:.1f}' width='{max(w, 1):.1f}' height='{row_h - 6}' "
                    f"fill='{colour}'><title>{e(name)}: {e(shown)}</title></rect>")
        body.append(text(left + w + 5, y + 13, shown, 11, fill="#3c4350"))
    return svg(width, 12 + len(rows) * row_h, "".join(body), label, svg_id)


def _dark(colour: str) -> bool:
    """True for colours that need white text (#rrggbb by luminance)."""
    if not (colour.startswith("#") and len(colour) == 7):
        return False
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b < 150


def mix(low: str, high: str, t: float) -> str:
    """The colour a fraction `t` (0-1) of the way from `low` to `high` (#rrggbb)."""
    t = max(0.0, min(1.0, t))
    a = [int(low[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(high[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b, strict=True))
