"""A phenotype array as a plate: one well per tested compound, coloured by predicted growth, with
the observed call in its corner and the wells where prediction and observation disagree outlined
in red (the same calls predict_growth_phenotypes compares: growth above the threshold, no uptake
counting as no growth). A plate reconciled with the observations (reconcile_phenotypes) also
shows each well's prediction before the fit, as a strip on its left, and outlines the wells held
out of the fit with a dashed line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gem_flux_mcp.server.dashboard.html import cards, e, figure, number, table
from gem_flux_mcp.server.dashboard.results_common import comparison_cards
from gem_flux_mcp.server.dashboard.svg import clip, mix, svg, text

COLUMNS = 12  # as on a Biolog plate
WELL_W, WELL_H, GAP = 100, 58, 6
NO_GROWTH, GROWTH = "#f1f3f5", "#1b7837"
NO_UPTAKE = "#dfe3e8"
MISMATCH = "#d7191c"
HELD_OUT = "#2b6cb0"
STRIP = 14  # px: a reconciled well's strip showing its prediction before the fit


@dataclass(frozen=True)
class Well:
    compound: str
    name: str
    growth: float | None  # None: no uptake
    status: str  # growth | no_growth | no_uptake
    observed: bool | None
    before_status: str | None = None  # the status before a fit (reconcile_phenotypes), else None
    held_out: bool = False  # left out of the fit, to score it

    @property
    def predicted(self) -> bool:
        return self.status == "growth"

    @property
    def mismatch(self) -> bool:
        return self.observed is not None and self.observed != self.predicted


def recorded_rows(recorded: Any) -> list[dict[str, Any]] | None:
    """A table recorded compactly ({"columns": [...], "rows": [[...], ...]}) as one dict per row;
    None when it is missing (recorded before it was kept)."""
    if not isinstance(recorded, dict) or not isinstance(recorded.get("rows"), list):
        return None
    columns = list(recorded.get("columns", []))
    return [dict(zip(columns, raw, strict=False)) for raw in recorded["rows"]]


def wells(summary: dict[str, Any]) -> list[Well] | None:
    """The recorded array (None when the result was recorded without it)."""
    items = recorded_rows(summary.get("array"))
    if items is None:
        return None
    found = []
    for item in items:
        growth = item.get("growth")
        observed = item.get("observed")
        found.append(Well(str(item.get("compound_id", "")), str(item.get("name") or ""),
                          float(growth) if isinstance(growth, int | float) else None, str(item.get("status", "")),
                          bool(observed) if isinstance(observed, bool) else None))
    return found


def _fill(status: str, growth: float | None, top: float) -> str:
    if status == "no_uptake":
        return NO_UPTAKE
    if status == "growth":
        return mix("#a6dba0", GROWTH, min(1.0, (growth or 0.0) / top))
    return NO_GROWTH


def plate_svg(found: list[Well], threshold: float, title: str, svg_id: str = "plate") -> str:
    top = max([w.growth or 0.0 for w in found] + [threshold * 2])
    fitted = any(w.before_status is not None for w in found)
    body = []
    for i, well in enumerate(found):
        x, y = 10 + (i % COLUMNS) * (WELL_W + GAP), 10 + (i // COLUMNS) * (WELL_H + GAP)
        fill = _fill(well.status, well.growth, top)
        dark = well.predicted and (well.growth or 0.0) / top > 0.35
        ink = "#ffffff" if dark else "#1d2330"
        colour, stroke = ((MISMATCH, "3.5") if well.mismatch else (HELD_OUT, "2.5") if well.held_out
                          else ("#c3c9d0", "1"))
        border = f"stroke='{colour}' stroke-width='{stroke}'" + (" stroke-dasharray='6 3'" if well.held_out else "")
        observed = {True: "grows", False: "does not grow", None: "not observed"}[well.observed]
        growth = "no uptake" if well.growth is None else f"{well.growth:.3g} /h"
        before = "" if well.before_status is None else f"before the fit {well.before_status.replace('_', ' ')}; "
        tip = (f"{well.name} ({well.compound}): {before}predicted {well.status.replace('_', ' ')} ({growth}); "
               f"observed {observed}{' (held out of the fit)' if well.held_out else ''}"
               f"{' — MISMATCH' if well.mismatch else ''}")
        inset = STRIP if well.before_status is not None else 0
        parts = [f"<rect x='{x}' y='{y}' width='{WELL_W}' height='{WELL_H}' rx='6' fill='{fill}' {border}/>"]
        if well.before_status is not None:  # the call before the fit: a strip on the left
            parts.append(f"<rect class='before' x='{x + 2}' y='{y + 2}' width='{STRIP - 3}' height='{WELL_H - 4}' "
                         f"rx='3' fill='{_fill(well.before_status, None, top)}' stroke='#8a94a3' "
                         "stroke-width='0.8'/>")
        parts += [text(x + 6 + inset, y + 16, clip(well.name or well.compound, 14 - inset // 7), 10.5, fill=ink,
                       weight="600"),
                  text(x + 6 + inset, y + 31, well.compound, 9.5, fill=ink),
                  text(x + 6 + inset, y + 47, growth, 10, fill=ink)]
        if well.observed is not None:  # the observed call: a corner triangle, filled = grows
            colour = "#1b7837" if well.observed else "#ffffff"
            parts.append(f"<path d='M{x + WELL_W - 18},{y + 2} L{x + WELL_W - 2},{y + 2} L{x + WELL_W - 2},{y + 18} z' "
                         f"fill='{colour}' stroke='#1d2330' stroke-width='1'/>")
        if well.mismatch:
            parts.append(text(x + WELL_W - 8, y + WELL_H - 6, "≠", 15, "end", MISMATCH, "700"))
        body.append(f"<g class='well' data-compound='{e(well.compound)}' data-status='{e(well.status)}' "
                    f"data-observed='{'' if well.observed is None else int(well.observed)}' "
                    f"data-mismatch='{int(well.mismatch)}' data-before='{e(well.before_status or '')}' "
                    f"data-held-out='{int(well.held_out)}'><title>{e(tip)}</title>{''.join(parts)}</g>")
    rows = (len(found) + COLUMNS - 1) // COLUMNS
    legend_y = 20 + rows * (WELL_H + GAP)
    legend = [
        (NO_GROWTH, "no growth predicted"), ("#a6dba0", "growth (darker: faster)"), (NO_UPTAKE, "no uptake"),
    ]
    for j, (colour, label) in enumerate(legend):
        lx = 10 + j * 230
        body.append(f"<rect x='{lx}' y='{legend_y}' width='16' height='16' fill='{colour}' stroke='#c3c9d0'/>")
        body.append(text(lx + 22, legend_y + 13, label, 12))
    body.append(f"<rect x='700' y='{legend_y}' width='16' height='16' fill='#ffffff' stroke='{MISMATCH}' "
                f"stroke-width='3'/>" + text(722, legend_y + 13, "prediction ≠ observation", 12))
    body.append(f"<path d='M950,{legend_y} L966,{legend_y} L966,{legend_y + 16} z' fill='#1b7837' stroke='#1d2330'/>"
                + text(972, legend_y + 13, "observed growth (white: none)", 12))
    height = legend_y + 30
    if fitted:
        body.append(f"<rect x='10' y='{height}' width='8' height='16' fill='#a6dba0' stroke='#8a94a3'/>"
                    + text(24, height + 13, "left strip: the prediction before the fit", 12))
        body.append(f"<rect x='350' y='{height}' width='16' height='16' fill='#ffffff' stroke='{HELD_OUT}' "
                    f"stroke-width='2.5' stroke-dasharray='6 3'/>"
                    + text(372, height + 13, "held out of the fit (scores it)", 12))
        height += 26
    width = 20 + COLUMNS * (WELL_W + GAP)
    return svg(width, height, "".join(body), title, svg_id)


def phenotype_body(summary: dict[str, Any], model_id: str, media_id: str | None) -> str:
    found = wells(summary)
    head = cards([("tested", summary.get("tested")), ("growth", summary.get("growth")),
                  ("no growth", summary.get("no_growth")), ("no uptake", summary.get("no_uptake")),
                  ("base growth /h", summary.get("base_growth"))])
    head += comparison_cards(summary, "Against the observations", mismatches=True)
    if found is None:
        return head + ("<p class=err id=no-array>This array was recorded before the wells were kept: run "
                       "predict_growth_phenotypes again to see the plate.</p>")
    threshold = float(summary.get("growth_threshold") or 0.1)
    title = (f"{model_id}: {summary.get('panel') or 'compounds'} panel on {media_id} minus "
             f"{', '.join(summary.get('reference_removed') or []) or 'nothing'}")
    mismatched = [w for w in found if w.mismatch]
    rows = [(e(w.compound), e(w.name), e(w.status.replace("_", " ")),
             "-" if w.observed is None else ("grows" if w.observed else "no growth"),
             number(w.growth) if w.growth is not None else "-") for w in mismatched]
    every = [(e(w.compound), e(w.name), e(w.status.replace("_", " ")),
              "-" if w.observed is None else ("grows" if w.observed else "no growth"),
              number(w.growth) if w.growth is not None else "-") for w in found]
    return (head + figure(plate_svg(found, threshold, title),
                          f"Growth is called above {threshold:g} /h; no uptake (the model has no exchange for the "
                          "compound) counts as no growth.", "plate-figure")
            + f"<h2>Mismatches (<span id=mismatch-count>{len(mismatched)}</span>)</h2>"
            + table(("Compound", "Name", "Predicted", "Observed", "Growth /h"), rows, "mismatches",
                    "No mismatches (or no observations were given).")
            + f"<details><summary>All {len(found)} wells</summary>"
            + table(("Compound", "Name", "Predicted", "Observed", "Growth /h"), every, "wells") + "</details>")
