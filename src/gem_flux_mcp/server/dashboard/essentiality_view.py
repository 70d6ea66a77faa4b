"""Essentiality as counts, and the essential genes (or reactions) by pathway: a gene's pathway is
the one most of its reactions belong to (the first specific KEGG map of each ModelSEED reaction,
else MetaCyc, as gapfill reports group them). Where observations were given, each disagreement
links to its explain_essentiality answer, or gives the call that asks why."""

from __future__ import annotations

from collections import Counter
from typing import Any

from gem_flux_mcp.modeling.gapfill.report import main_pathway
from gem_flux_mcp.server.dashboard.html import cards, e, figure, result_href, table
from gem_flux_mcp.server.dashboard.model_facts import ModelFacts
from gem_flux_mcp.server.dashboard.results_common import comparison_cards
from gem_flux_mcp.server.dashboard.source import DashboardSource
from gem_flux_mcp.server.dashboard.svg import bar_chart, stacked_bar

UNKNOWN = "Unknown"
PATHWAYS_CHARTED = 25


def reaction_pathways(source: DashboardSource, reaction_ids: list[str], facts: ModelFacts) -> dict[str, str]:
    """Model reaction id -> pathway name (Unknown without the biochemistry index, or for
    reactions that are not ModelSEED's)."""
    bases = {rid: facts.reactions[rid].base_id for rid in reaction_ids if rid in facts.reactions}
    details = source.biochem.reaction_details(set(bases.values())) if source.biochem is not None else {}
    return {rid: main_pathway(details[base].get("pathways", [])) if base in details else UNKNOWN
            for rid, base in bases.items()}


def by_pathway(source: DashboardSource, ids: list[str], target: str, facts: ModelFacts) -> dict[str, list[str]]:
    """{pathway: ids} for essential genes or reactions, largest pathway first."""
    reactions = {i: facts.genes.get(i, []) for i in ids} if target == "genes" else {i: [i] for i in ids}
    pathways = reaction_pathways(source, sorted({r for rs in reactions.values() for r in rs}), facts)
    grouped: dict[str, list[str]] = {}
    for item, rs in reactions.items():
        counts = Counter(pathways.get(r, UNKNOWN) for r in rs)
        known = [(n, p) for p, n in counts.items() if p != UNKNOWN]
        chosen = min(known, key=lambda np: (-np[0], np[1]))[1] if known else UNKNOWN  # most, then by name
        grouped.setdefault(chosen, []).append(item)
    return dict(sorted(grouped.items(), key=lambda kv: (kv[0] == UNKNOWN, -len(kv[1]), kv[0])))


def disagreements(summary: dict[str, Any], model_id: str, media_id: str | None, explained: dict[str, int]) -> str:
    """The recorded mismatches with the observations, each with why: the recorded
    explain_essentiality answer for that deletion on this medium, else the call to make."""
    mismatches = [m for m in summary.get("mismatches", []) if isinstance(m, dict)]
    if not mismatches:
        return ""
    target = str(summary.get("target", "genes"))
    rows = []
    for item in mismatches:
        deleted = str(item.get("id"))
        predicted, observed = item.get("predicted_essential"), item.get("observed_essential")
        argument = "gene" if target == "genes" else "reaction"
        why = (f"<a class=explain href='{e(result_href(model_id, explained[deleted]))}'>the route, explained</a>"
               if deleted in explained else
               f"<span class=mono>explain_essentiality(model_id='{e(model_id)}', media_id='{e(media_id)}', "
               f"{argument}='{e(deleted)}')</span>")
        rows.append((f"<span class=mono>{e(deleted)}</span>", "essential" if predicted else "not essential",
                     "essential" if observed else "not essential", why))
    return ("<h2 id=disagreements-title>Where the model and the observations disagree</h2>"
            + table(("Deleted", "Model", "Observed", "Why"), rows, "disagreements"))


def essentiality_body(source: DashboardSource, summary: dict[str, Any], facts: ModelFacts, *,
                      model_id: str = "", media_id: str | None = None,
                      explained: dict[str, int] | None = None) -> str:
    target = str(summary.get("target", "genes"))
    counts = [("essential", "#d7191c", int(summary.get("essential", 0))),
              ("slowed", "#fdae61", int(summary.get("slowed", 0))),
              ("no effect", "#abd9e9", int(summary.get("no_effect", 0)))]
    head = cards([("tested", summary.get("tested")), ("essential", summary.get("essential")),
                  ("slowed", summary.get("slowed")), ("no effect", summary.get("no_effect")),
                  ("wild-type growth /h", summary.get("wild_type_growth"))])
    head += figure(stacked_bar(counts, f"deletions of {summary.get('tested', 0)} {target}", svg_id="deletions"),
                   f"Essential: growth below {summary.get('threshold', 0.1)} of the wild type; slowed: below 99 %.")
    head += comparison_cards(summary, "Against the observations")
    head += disagreements(summary, model_id, media_id, explained or {})
    ids = [str(i) for i in summary.get("essential_ids", [])]
    grouped = by_pathway(source, ids, target, facts)
    chart = bar_chart([(p, len(v), "#d7191c" if p != UNKNOWN else "#bab0ac")
                       for p, v in list(grouped.items())[:PATHWAYS_CHARTED]],
                      f"essential {target} by pathway", svg_id="essential-pathways")
    rows = []
    for pathway, items in grouped.items():
        shown = ", ".join(f"{i} ({', '.join(facts.genes.get(i, [])[:3])})" if target == "genes" else i
                          for i in items)
        rows.append((e(pathway), str(len(items)), f"<span class=mono>{e(shown)}</span>"))
    note = "" if source.biochem is not None else ("<p class=muted>Pathways need the reference data "
                                                  "(GEMFLUX_DATA_DIR); every gene is listed as Unknown.</p>")
    listed = (f"<p class=muted>The first {len(ids)} essential {target} were recorded.</p>"
              if len(ids) < int(summary.get("essential", 0)) else "")
    return (head + f"<h2>Essential {e(target)} by pathway</h2>" + note + figure(chart) + listed
            + table(("Pathway", target.capitalize(), "Which (with their reactions)" if target == "genes" else "Which"),
                    rows, "essential-by-pathway", f"No essential {target}."))
