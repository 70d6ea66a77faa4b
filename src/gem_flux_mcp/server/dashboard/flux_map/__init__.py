"""An FBA result drawn on a central-metabolism map (own SVG, see layout.py for why not Escher's
own map), with the tables that say the same in words: the map's reactions and their fluxes, those
the model does not have, and the reactions carrying flux that the map does not show.

The fluxes are those recorded with the result (run_fba records the fluxes it answered, largest
first, at most 1000); a result recorded before that has none, and the page says to run it again.
"""

from __future__ import annotations

from typing import Any, cast

from gem_flux_mcp.server.dashboard import loaders
from gem_flux_mcp.server.dashboard.flux_map.layout import EDGES, EXCHANGES, NODE_BY_KEY
from gem_flux_mcp.server.dashboard.flux_map.mapping import MapAliases, MapMapping, map_aliases, map_model
from gem_flux_mcp.server.dashboard.flux_map.render import flux_map_svg
from gem_flux_mcp.server.dashboard.html import cards, e, figure, number, table
from gem_flux_mcp.server.dashboard.model_facts import ModelFacts
from gem_flux_mcp.server.dashboard.source import DashboardSource
from gem_flux_mcp.store.rows import ModelRow, ResultRow

UNMAPPED_SHOWN = 60

__all__ = ["fba_body", "map_for_model", "recorded_fluxes"]


def map_for_model(source: DashboardSource, row: ModelRow, facts: ModelFacts) -> MapMapping | None:
    """The map's reactions in this model (None without the biochemistry index)."""
    biochem = source.biochem
    if biochem is None:
        return None
    aliases = cast(MapAliases, source.cached(("map-aliases",), lambda: map_aliases(biochem)))
    return cast(MapMapping, source.cached(("map", row.workspace, row.model_id, row.file_sha256),
                                          lambda: map_model(facts, aliases)))


def recorded_fluxes(summary: dict[str, Any]) -> dict[str, float] | None:
    raw = summary.get("fluxes")
    if not isinstance(raw, dict):
        return None
    return {str(k): float(v) for k, v in raw.items() if isinstance(v, int | float)}


def map_values(mapping: MapMapping, fluxes: dict[str, float]) -> dict[str, float]:
    """Every map reaction and exchange the model has, with its flux on the map."""
    return {key: mapping.flux(key, fluxes) for key, edge in mapping.edges.items() if edge.in_model}


def fba_body(source: DashboardSource, row: ModelRow, result: ResultRow) -> str:
    summary = result.summary
    facts = loaders.model_facts(source, row)
    fluxes = recorded_fluxes(summary)
    what_if = summary.get("what_if")
    head = [cards([("objective value", summary.get("objective_value")), ("method", summary.get("method")),
                   ("status", summary.get("status")), ("fluxes recorded", len(fluxes or {}))])]
    if isinstance(what_if, dict):
        head.append(f"<p class=live>What if: {e(', '.join(f'{k}: {v}' for k, v in what_if.items() if v))} "
                    "(applied for this run only).</p>")
    if fluxes is None:
        head.append("<p class=err id=no-fluxes>This result was recorded before run_fba kept its fluxes: run "
                    f"run_fba(model_id='{e(row.model_id)}', media_id='{e(result.media_id)}') again to draw it. The "
                    "map below shows which of its reactions the model has.</p>")
    elif summary.get("fluxes_truncated"):
        head.append("<p class=muted>Only the 1000 largest fluxes were recorded; smaller ones show as 0.</p>")
    mapping = map_for_model(source, row, facts)
    if mapping is None:
        return "".join(head) + ("<p class=err>The reference data (ModelSEED's BiGG aliases) is not available to "
                                "this dashboard, so the map cannot be drawn. Set GEMFLUX_DATA_DIR.</p>")
    title = f"{row.model_id} on {result.media_id}: {summary.get('method', 'fba')} fluxes (mmol/gDW/h)"
    picture = figure(flux_map_svg(mapping, fluxes, title),
                     "Arrows point the way the flux runs; width and colour grow with it (the largest map flux is "
                     "the darkest). Grey: no flux; dashed: the model has no such reaction. Hover for the model's "
                     "reaction ids.", "flux-map-figure")
    return "".join(head) + picture + _tables(mapping, facts, fluxes)


def _tables(mapping: MapMapping, facts: ModelFacts, fluxes: dict[str, float] | None) -> str:
    values = map_values(mapping, fluxes) if fluxes is not None else {}
    rows = []
    for edge in EDGES:
        mapped = mapping.edges[edge.key]
        if not mapped.in_model:
            continue
        flux = values.get(edge.key)
        rows.append((f"<span data-reaction='{e(edge.key)}'>{e(edge.key)}</span>", e(edge.pathway),
                     e(" ".join(f"{'−' if s < 0 else ''}{r}" for r, s in mapped.members)),
                     e(f"{NODE_BY_KEY[edge.source].label} → {NODE_BY_KEY[edge.target].label}"),
                     number(flux) if flux is not None else "-"))
    for exchange in EXCHANGES:
        mapped = mapping.edges[exchange.key]
        if mapped.in_model:
            flux = values.get(exchange.key)
            rows.append((e(exchange.key), "exchange", e(mapped.members[0][0]),
                         e(f"{NODE_BY_KEY[exchange.node].label} taken up (+) / secreted (−)"),
                         number(flux) if flux is not None else "-"))
    missing = [(e(edge.key), e(edge.pathway), e(", ".join(edge.bigg)),
                e(", ".join(mapping.edges[edge.key].candidates[:6])) or "<span class=muted>no alias</span>")
               for edge in EDGES if not mapping.edges[edge.key].in_model]
    missing += [(e(x.key), "exchange", e(x.compound), "") for x in EXCHANGES if not mapping.edges[x.key].in_model]
    parts = ["<h2>Map reactions in this model</h2>",
             table(("On the map", "Pathway", "Model reactions (− runs backwards on the map)", "Drawn as",
                    "Flux on the map"), rows, "map-reactions"),
             "<h2>Map reactions this model does not have</h2>",
             table(("On the map", "Pathway", "BiGG ids looked for", "ModelSEED ids they name"), missing,
                   "map-missing", "The model has every reaction of the map.")]
    if fluxes is not None:
        on_map = mapping.mapped_reactions()
        off = sorted(((rid, v) for rid, v in fluxes.items() if rid not in on_map and abs(v) > 1e-9),
                     key=lambda item: -abs(item[1]))
        shown = [(e(rid), e(facts.reactions[rid].name if rid in facts.reactions else ""), number(v))
                 for rid, v in off[:UNMAPPED_SHOWN]]
        more = (f"<p class=muted>{len(off) - UNMAPPED_SHOWN} more carry flux.</p>" if len(off) > UNMAPPED_SHOWN
                else "")
        parts += [f"<h2>Carrying flux, not on the map ({len(off)})</h2>",
                  table(("Reaction", "Name", "Flux"), shown, "off-map", "Every flux is on the map."), more]
    return "".join(parts)
