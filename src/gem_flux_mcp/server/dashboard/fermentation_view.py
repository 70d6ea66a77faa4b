"""Fermentation products as bars (secretion per unit of growth) and a table; the scored products
the model makes, and the comparison with the observed products when one was given."""

from __future__ import annotations

from typing import Any

from gem_flux_mcp.server.dashboard.html import cards, e, figure, number, table
from gem_flux_mcp.server.dashboard.results_common import comparison_cards
from gem_flux_mcp.server.dashboard.svg import bar_chart

PRODUCT, ALSO_IN_MEDIUM = "#1a9850", "#91bfdb"


def fermentation_body(summary: dict[str, Any]) -> str:
    secreted = [p for p in summary.get("secreted", []) if isinstance(p, dict)]
    made = ", ".join(str(p) for p in summary.get("scored_products_made", [])) or "none"
    head = cards([("growth /h", summary.get("growth")), ("products", summary.get("products")),
                  ("not in the medium", summary.get("products_not_in_medium")),
                  ("min. secretion / growth", summary.get("min_ratio"))])
    head += f"<p>Fermentation products made: <b>{e(made)}</b></p>"
    reversed_atp = summary.get("reversed_atp_transport") or []
    if reversed_atp:
        head += (f"<p class=err>ATP-driven transporters run backwards (making ATP) in this solution: "
                 f"{e(', '.join(map(str, reversed_atp)))}</p>")
    rows = [(f"{p.get('name', p.get('compound_id'))}", float(p.get("per_growth", 0.0)),
             ALSO_IN_MEDIUM if p.get("in_medium") else PRODUCT) for p in secreted[:30]]
    head += figure(bar_chart(rows, "secretion per unit of growth", unit=" x", svg_id="products"),
                   "Secretion (mmol/gDW/h) divided by the growth rate (1/h), in the minimal-total-flux solution at "
                   "optimal growth; green: made by the organism, blue: offered by the medium too.")
    head += comparison_cards(summary, "Against the observed products")
    listed = [(e(p.get("compound_id")), e(p.get("name")), number(p.get("flux")), number(p.get("per_growth")),
               "yes" if p.get("in_medium") else "") for p in secreted]
    return head + "<h2>Secreted</h2>" + table(("compound", "name", "flux", "per growth", "in the medium"), listed,
                                              "secreted")
