"""A reconcile_phenotypes result: the agreement with the observations before and after the fit,
on the wells fitted and on those held out of it, and the plate with each well's prediction after
the fit, its prediction before (the strip on its left) and the held-out wells outlined (dashed);
then the wells whose call the fit changed and the held-out wells as tables."""

from __future__ import annotations

from typing import Any

from gem_flux_mcp.modeling.phenotypes import growth_status
from gem_flux_mcp.server.dashboard.html import cards, e, figure, model_href, number, table
from gem_flux_mcp.server.dashboard.phenotype_view import Well, plate_svg, recorded_rows


def reconciled_wells(plate: Any) -> tuple[list[Well], float] | None:
    """(the recorded wells, the growth threshold), None when the result was recorded without them."""
    items = recorded_rows(plate)
    if items is None:
        return None
    threshold = float(plate.get("growth_threshold") or 0.1)
    found = []
    for item in items:
        after, before = (float(v) if isinstance(v, int | float) else None
                         for v in (item.get("after"), item.get("before")))
        observed = item.get("observed")
        found.append(Well(str(item.get("compound_id", "")), str(item.get("name") or item.get("label") or ""),
                          after, growth_status(after, threshold),
                          bool(observed) if isinstance(observed, bool) else None,
                          before_status=growth_status(before, threshold), held_out=bool(item.get("held_out"))))
    return found, threshold


def _mcc(agreement: Any, subset: str, when: str) -> Any:
    part = agreement.get(subset) if isinstance(agreement, dict) else None
    return (part.get(when) or {}).get("mcc") if isinstance(part, dict) else None


def _call(value: str) -> str:
    return value.replace("_", " ")


def reconcile_body(summary: dict[str, Any], model_id: str, media_id: str | None) -> str:
    agreement = summary.get("agreement") or {}
    head = cards([("changes", summary.get("changes")), ("wells unreconciled", summary.get("unreconciled")),
                  ("MCC fitted, before", _mcc(agreement, "fitted", "before")),
                  ("MCC fitted, after", _mcc(agreement, "fitted", "after")),
                  ("MCC held out, before", _mcc(agreement, "held_out", "before")),
                  ("MCC held out, after", _mcc(agreement, "held_out", "after"))])
    revision = str(summary.get("new_model_id") or "")
    if revision:
        head += f"<p>The revision: <a id=revision href='{e(model_href(revision))}'>{e(revision)}</a></p>"
    read = reconciled_wells(summary.get("plate"))
    if read is None:
        return head + ("<p class=err id=no-plate>This fit was recorded before its wells were kept: run "
                       "reconcile_phenotypes again to see the plate.</p>")
    found, threshold = read
    if not found:
        return head + "<p id=no-plate>This fit had no growth observations (essentiality only): no plate to draw.</p>"
    held = [w for w in found if w.held_out]
    title = (f"{model_id}: {len(found)} observed wells on {media_id}, {len(held)} held out of the fit")

    def row(w: Well) -> tuple[str, ...]:
        observed = "-" if w.observed is None else ("grows" if w.observed else "no growth")
        return (e(w.compound), e(w.name), observed, e(_call(w.before_status or "")), e(_call(w.status)),
                number(w.growth) if w.growth is not None else "-", "yes" if w.held_out else "")

    headers = ("Compound", "Name", "Observed", "Before", "After", "Growth after /h", "Held out")
    changed = [w for w in found if (w.before_status == "growth") != w.predicted]
    return (head + figure(plate_svg(found, threshold, title, "reconcile-plate"),
                          f"Growth is called above {threshold:g} /h; no uptake counts as no growth. The fit saw "
                          "only the wells without a dashed outline: those are its test.", "plate-figure")
            + f"<h2>Wells whose call the fit changed (<span id=changed-count>{len(changed)}</span>)</h2>"
            + table(headers, [row(w) for w in changed], "changed-wells", "The fit changed no well's call.")
            + f"<h2>Held-out wells (<span id=held-out-count>{len(held)}</span>)</h2>"
            + table(headers, [row(w) for w in held], "held-out-wells",
                    "No wells were held out (pass holdout_fraction to score the fit on wells it did not see)."))
