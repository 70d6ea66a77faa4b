"""The page shell and the small HTML helpers every page uses. Everything shown goes through `e`
(tool arguments, model names and notes are user input); pages are static HTML with one inline
style sheet: no scripts, no frames, no foreign loads."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import quote, urlencode

from starlette.responses import HTMLResponse

from gem_flux_mcp import CONTRACT_VERSION, __version__

BADGES = (
    ("readOnlyHint", "read-only", "ro"),
    ("destructiveHint", "destructive", "destructive"),
    ("idempotentHint", "idempotent", "idem"),
    ("openWorldHint", "open-world", "open"),
)

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#1d2330;background:#fafbfc}
h1{font-size:1.4rem;margin:0 0 .2rem}h2{font-size:1.1rem;margin:1.6rem 0 .5rem}h3{font-size:1rem;margin:1rem 0 .4rem}
table{border-collapse:collapse;width:100%;background:#fff;font-size:.86rem}
th,td{border:1px solid #dde1e6;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#eef1f5}.muted{color:#68707d}.mono{font-family:ui-monospace,monospace;white-space:pre-wrap;
word-break:break-all}.badge{display:inline-block;border-radius:.6rem;padding:0 .45rem;margin:0 .15rem;
font-size:.75rem;border:1px solid}.ro{background:#e6f4ea;border-color:#6cb27c}
.destructive{background:#fdecea;border-color:#d9534f}.idem{background:#e8f0fe;border-color:#6b8fd6}
.open{background:#fff4e0;border-color:#e0a040}.err{color:#b3261e;font-weight:600}.ok{color:#1e7b34}
.writes{background:#f1ecfb;border-color:#8e6cc9}.active{color:#1e7b34;font-weight:600}.closed{color:#68707d}
form{margin:.5rem 0}nav{margin-bottom:1rem}nav a{margin-right:1rem}td.when{white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.cards{display:flex;flex-wrap:wrap;gap:.6rem;margin:.6rem 0}.card{background:#fff;border:1px solid #dde1e6;
border-radius:.4rem;padding:.4rem .8rem;min-width:7rem}.card b{display:block;font-size:1.3rem}
.card span{color:#68707d;font-size:.8rem}.figure{background:#fff;border:1px solid #dde1e6;border-radius:.4rem;
padding:.5rem;margin:.5rem 0;overflow-x:auto}.figure svg{display:block;max-width:100%;height:auto}
.side{display:grid;grid-template-columns:1fr 1fr;gap:1rem}.live{background:#fff8e1;border:1px solid #e0a040;
border-radius:.4rem;padding:.3rem .7rem;margin:.5rem 0}.bar{display:inline-block;width:10rem;height:.7rem;
background:#e3e7ec;border-radius:.35rem;vertical-align:middle;overflow:hidden}.bar i{display:block;height:100%;
background:#3b7dd8}.mismatch{color:#b3261e;font-weight:600}details{margin:.4rem 0}.nowrap{white-space:nowrap}
"""

# The pages carry no script; the SVG figures are inline markup, styled by attributes.
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
                               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def url(path: str, **params: Any) -> str:
    """`path` with query parameters (None values left out); path segments are quoted by the caller
    with `seg`."""
    query = urlencode({k: v for k, v in params.items() if v is not None})
    return f"{path}?{query}" if query else path


def seg(value: str) -> str:
    """One path segment (a model id may hold any character but '/')."""
    return quote(value, safe="")


def model_href(model_id: str) -> str:
    return f"/models/{seg(model_id)}"


def result_href(model_id: str, result_id: int) -> str:
    return f"/models/{seg(model_id)}/results/{result_id}"


def page(title: str, body: str, status_code: int = 200, refresh_s: int | None = None) -> HTMLResponse:
    """A whole page; `refresh_s` makes the browser reload it (only while something runs)."""
    refresh = f"<meta http-equiv=refresh content='{int(refresh_s)}'>" if refresh_s else ""
    return HTMLResponse(
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{e(title)}</title>{refresh}"
        f"<meta name=viewport content='width=device-width'><link rel=icon href='data:,'><style>{CSS}</style>"
        f"</head><body>"
        f"<nav><a href='/'>Sessions</a><a href='/models'>Models &amp; media</a><a href='/communities'>Communities</a>"
        f"<a href='/jobs'>Jobs</a>"
        f"<a href='/compare'>Compare</a><a href='/tools'>Tools</a>"
        f"<span class=muted>gem-flux {e(__version__)} · tool contract {e(CONTRACT_VERSION)}</span></nav>"
        f"{body}</body></html>",
        status_code=status_code, headers=SECURITY_HEADERS,
    )


def not_found(what: str) -> HTMLResponse:
    return page("not found", f"<h1>{e(what)} not found</h1>", status_code=404)


def when(ts: str | None) -> str:
    """2026-11-22T10:51:08.959634Z -> 2026-11-22 10:51:08 (UTC, to the second), on one line."""
    return f"<span class=nowrap>{e(ts[:19].replace('T', ' '))}</span>" if ts else ""


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def number(value: Any, digits: int = 4) -> str:
    """A figure for a table cell: integers as they are, other numbers to `digits` significant digits."""
    if isinstance(value, bool) or value is None:
        return e(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return e(value)


def cards(items: Iterable[tuple[str, Any]]) -> str:
    """Big numbers with a caption."""
    return "<div class=cards>" + "".join(f"<div class=card><b>{number(v)}</b><span>{e(k)}</span></div>"
                                         for k, v in items) + "</div>"


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], table_id: str | None = None,
          empty: str = "Nothing to show.", row_class: str | None = None) -> str:
    """A table of already-escaped cells (build them with `e`, `number` or markup of your own)."""
    start = f"<tr class={e(row_class)}>" if row_class else "<tr>"
    body = "".join(start + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    head = "".join(f"<th>{e(h)}</th>" for h in headers)
    ident = f" id={e(table_id)}" if table_id else ""
    if not body:
        return f"<table{ident}><tr>{head}</tr></table><p class=muted>{e(empty)}</p>"
    return f"<table{ident}><tr>{head}</tr>{body}</table>"


def figure(svg: str, caption: str = "", figure_id: str | None = None) -> str:
    ident = f" id={e(figure_id)}" if figure_id else ""
    note = f"<p class=muted>{e(caption)}</p>" if caption else ""
    return f"<div class=figure{ident}>{svg}{note}</div>"


def progress_bar(fraction: float) -> str:
    pct = max(0.0, min(1.0, fraction)) * 100
    return (f"<span class=nowrap><span class=bar title='{pct:.0f} %'><i style='width:{pct:.1f}%'></i></span> "
            f"{pct:.0f} %</span>")


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
    return "".join(f"<span class='badge {css[label]}' data-badge='{e(label)}'>{e(label)}</span>"
                   for label in labels)
