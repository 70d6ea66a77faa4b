"""The models list and a model's page: counts, the communities it is a member of, where its
reactions came from, the reactions gapfilling added (evidence, pathway), its family as a graph,
revisions, and its recorded results linked to their pictures."""

from __future__ import annotations

from collections import Counter
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gem_flux_mcp.server.dashboard import live, loaders
from gem_flux_mcp.server.dashboard.community_page import communities_of, community_href
from gem_flux_mcp.server.dashboard.html import (
    cards,
    e,
    figure,
    model_href,
    not_found,
    number,
    page,
    result_href,
    table,
    url,
    when,
)
from gem_flux_mcp.server.dashboard.lineage import Family, lineage_rows, lineage_svg
from gem_flux_mcp.server.dashboard.model_facts import ModelFacts, evidence_text
from gem_flux_mcp.server.dashboard.results_common import PICTURED, headline, kind_title
from gem_flux_mcp.server.dashboard.source import DashboardSource, model_results, visible_model
from gem_flux_mcp.server.dashboard.svg import bar_chart, stacked_bar
from gem_flux_mcp.store.rows import ModelRow, ResultRow

GAPFILL_SHOWN = 500
PATHWAYS_CHARTED = 15


def models_list(source: DashboardSource, request: Request) -> str:
    workspace = source.workspace(request)
    models = source.store.list_models(workspace)
    rows = [(f"<a href='{e(model_href(r.model_id))}'>{e(r.model_id)}</a>", e(r.state), e(r.source),
             str(r.num_reactions), str(r.num_genes),
             f"<a href='{e(model_href(r.derived_from))}'>{e(r.derived_from)}</a>" if r.derived_from else "-",
             when(r.created_at)) for r in models]
    body = ["<h1>Models</h1>", table(("Model", "State", "Source", "Reactions", "Genes", "Derived from", "Created"),
                                     rows, "models", "No models stored yet.")]
    if len(models) >= 2:
        options = "".join(f"<option value='{e(r.model_id)}'>{e(r.model_id)}</option>" for r in models)
        body.append(f"<form id=compare-form method=get action='/compare'><label>Compare <select name=a>{options}"
                    f"</select></label> <label>with <select name=b>{options}</select></label> "
                    f"<button type=submit>Compare</button></form>")
    media = source.store.list_media(workspace)
    body.append("<h2>Media you built</h2>")
    body.append(table(("Medium", "Compounds", "Created"),
                      [(e(m.media_id), str(len(m.compounds)), when(m.created_at)) for m in media], "media",
                      "No media built yet (predefined media are listed by the list_media tool)."))
    return "".join(body)


def origin_figure(facts: ModelFacts, svg_id: str = "origins") -> str:
    parts = [(label, colour, n) for _, label, colour, n in facts.origin_counts()]
    chart = stacked_bar(parts, f"where the {len(facts.reactions)} reactions of {facts.model_id} came from",
                        svg_id=svg_id)
    rows = [(e(label), f"<span data-origin='{e(key)}'>{n}</span>") for key, label, _, n in facts.origin_counts()]
    return figure(chart) + ("<details><summary>As a table</summary>"
                            + table(("Came from", "Reactions"), rows, f"{svg_id}-table") + "</details>")


def _gapfill_section(row: ModelRow, facts: ModelFacts) -> str:
    record = row.extra.get("gapfill")
    if not isinstance(record, dict):
        return ""
    entries: list[dict[str, Any]] = [x for x in record.get("reactions_added", []) if isinstance(x, dict)]
    checks = record.get("quality_checks")
    checks = checks if isinstance(checks, dict) else {}
    by_pathway = Counter(str(x.get("pathway", "Unknown")) for x in entries)
    ranked = sorted(by_pathway.items(), key=lambda pn: (pn[0] == "Unknown", -pn[1], pn[0]))[:PATHWAYS_CHARTED]
    chart = bar_chart([(p, n, "#bab0ac" if p == "Unknown" else "#e45756") for p, n in ranked],
                      f"reactions gapfilling added to {row.model_id}, by pathway", svg_id="gapfill-pathways")
    rows = []
    for x in entries[:GAPFILL_SHOWN]:
        rid = str(x.get("id", ""))
        evidence = x.get("evidence")
        note = evidence_text(facts.reactions[rid].evidence) if rid in facts.reactions else ""
        shown = note or (", ".join(f"{k}: {v}" for k, v in evidence.items()) if isinstance(evidence, dict) else "")
        rows.append((e(rid), e(x.get("name")), e(x.get("direction")), e(x.get("source")), e(x.get("pathway")),
                     e(shown) or "<span class=muted>none</span>", f"<span class=mono>{e(x.get('equation'))}</span>"))
    more = (f"<p class=muted>The first {GAPFILL_SHOWN} of {len(entries)} are listed.</p>"
            if len(entries) > GAPFILL_SHOWN else "")
    passed = checks.get("all_passed")
    return (f"<h2 id=gapfill>Gapfilled reactions</h2><p>{len(entries)} reactions added on medium "
            f"<b>{e(record.get('media_id'))}</b> (target growth {number(record.get('target_growth_rate'))} /h, "
            f"mode {e(record.get('mode'))}); quality checks: "
            f"{'<span class=ok>passed</span>' if passed else '<span class=err>not all passed</span>'}.</p>"
            + figure(chart, "Pathways are the first specific KEGG map of each reaction (else MetaCyc).")
            + table(("Reaction", "Name", "Dir.", "Added by", "Pathway", "Evidence", "Equation"), rows,
                    "gapfill-reactions", "No reactions were added.") + more)


def _revisions_section(row: ModelRow, facts: ModelFacts, lineage: Family) -> str:
    rows = []
    for member in lineage.ancestors(row.model_id):
        revision = member.extra.get("revision")
        if not isinstance(revision, dict):
            continue
        changes = revision.get("changes") or {}
        said = "; ".join(f"{k.replace('_', ' ')}: {', '.join(str(c.get('id', c.get('gene', ''))) for c in v[:8])}"
                         for k, v in changes.items() if v)
        rows.append((f"<a href='{e(model_href(member.model_id))}'>{e(member.model_id)}</a>", e(revision.get("reason")),
                     e(said), f"{number(revision.get('growth_before'))} → {number(revision.get('growth_after'))}",
                     e(revision.get("media_id"))))
    if not rows:
        return ""
    return "<h2 id=revisions-title>Revisions</h2>" + table(("Revision", "Reason", "Changes", "Growth", "Medium"), rows,
                                                      "revisions")


def results_table(row: ModelRow, results: list[ResultRow]) -> str:
    rows = [(f"<a href='{e(result_href(row.model_id, r.id))}' data-kind='{e(r.kind)}'>{e(kind_title(r.kind))}</a>"
             + (f" <span class=muted>({e(PICTURED[r.kind])})</span>" if r.kind in PICTURED else ""),
             e(r.media_id) or "-", e(headline(r)), when(r.created_at)) for r in results]
    return table(("Result", "Medium", "In short", "Recorded"), rows, "results", "No results recorded yet: run_fba, "
                 "predict_growth_phenotypes, predict_gene_essentiality, run_fva and diagnose_model record theirs.")


def genome_section(lineage: Family, row: ModelRow) -> str:
    """How complete the genome behind the model looks (its draft's marker genes)."""
    found = next((r.extra["genome_completeness"] for r in lineage.ancestors(row.model_id)
                  if isinstance(r.extra.get("genome_completeness"), dict)), None)
    if found is None:
        return ""
    missing = ", ".join(found.get("missing_markers") or []) or "none"
    doubled = ", ".join(f"{family} ({len(genes)})" for family, genes in (found.get("duplicated_markers") or {}).items())
    return (f"<h2 id=genome-title>Genome</h2><p id=genome-verdict>{e(found.get('verdict'))}.</p>"
            + cards([("completeness %", found.get("completeness")), ("contamination %", found.get("contamination")),
                     ("markers", found.get("markers"))])
            + f"<p class=muted>Markers not found: {e(missing)}. Found more than once: {e(doubled or 'none')}.</p>")


def _communities_line(source: DashboardSource, row: ModelRow) -> str:
    found = communities_of(source, row.workspace, row.model_id)
    if not found:
        return ""
    links = ", ".join(f"<a href='{e(community_href(c))}'>{e(c)}</a>" for c in found)
    return f"<p id=communities>Member of {'community' if len(found) == 1 else 'communities'} {links}.</p>"


def model_body(source: DashboardSource, row: ModelRow) -> str:
    lineage = loaders.family(source, row)
    facts = loaders.model_facts(source, row, lineage)
    parent = row.derived_from if row.derived_from in lineage.rows else None
    compare = (f" · <a href='{e(url('/compare', a=parent, b=row.model_id))}'>compare with {e(parent)}</a>"
               if parent else "")
    body = [
        f"<h1>Model {e(row.model_id)}</h1>",
        f"<p>{e(row.model_name) + ' · ' if row.model_name else ''}state {e(row.state)} · {e(row.source)} · template "
        f"{e(row.template or '-')} · created {when(row.created_at)} UTC · objective {e(', '.join(facts.objective))}"
        f"{' · last medium ' + e(row.last_media_id) if row.last_media_id else ''}{compare}</p>",
        cards([("reactions", row.num_reactions), ("metabolites", row.num_metabolites), ("genes", row.num_genes),
               ("exchanges", row.num_exchanges), ("compartments", len(row.compartments))]),
        _communities_line(source, row),
        genome_section(lineage, row),
        "<h2 id=origins-title>Where the reactions came from</h2>", origin_figure(facts),
        "<h2 id=lineage-title>Lineage</h2>",
        figure(lineage_svg(lineage, row.model_id), "Draft → gapfilled (.gf) → revisions; click a model to open it."),
        table(("Model", "Made from", "How"),
              [(f"<a href='{e(model_href(x['model_id']))}'>{e(x['model_id'])}</a>", e(x["derived_from"] or "-"),
                e(x["step"])) for x in lineage_rows(lineage)], "lineage-table"),
        "<h2 id=results-title>Recorded results</h2>", results_table(row, model_results(source, row)),
        _gapfill_section(row, facts),
        _revisions_section(row, facts, lineage),
    ]
    return "".join(body)


def routes(source: DashboardSource) -> list[Route]:
    async def models(request: Request) -> Response:
        return page("gem-flux models", models_list(source, request))

    async def model(request: Request) -> Response:
        row = visible_model(source, request, str(request.path_params["model_id"]))
        if row is None:
            return not_found("Model")
        box, refresh = live.live_box(source, row.workspace, row.model_id)
        return page(f"model {row.model_id}", box + model_body(source, row), refresh_s=refresh)

    return [Route("/models", models), Route("/models/{model_id}", model)]
