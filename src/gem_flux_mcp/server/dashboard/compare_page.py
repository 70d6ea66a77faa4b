"""Two models side by side (/compare?a=…&b=…): counts and where their reactions came from, what
only one of them has (reactions, genes), shared reactions that differ, the growth each recorded
on each medium, and where their latest phenotype arrays disagree."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gem_flux_mcp.server.dashboard import loaders
from gem_flux_mcp.server.dashboard.html import cards, e, figure, model_href, number, page, result_href, table
from gem_flux_mcp.server.dashboard.model_facts import ORIGIN_LABELS, ModelFacts
from gem_flux_mcp.server.dashboard.phenotype_view import Well, wells
from gem_flux_mcp.server.dashboard.source import DashboardSource, model_results, visible_model
from gem_flux_mcp.server.dashboard.svg import stacked_bar
from gem_flux_mcp.store.rows import ModelRow, ResultRow

LISTED = 300


def _picker(models: list[str], a: str | None, b: str | None) -> str:
    def options(chosen: str | None) -> str:
        return "".join(f"<option value='{e(m)}'{' selected' if m == chosen else ''}>{e(m)}</option>" for m in models)

    return (f"<form id=compare-form method=get action='/compare'><label>A <select name=a>{options(a)}</select></label> "
            f"<label>B <select name=b>{options(b)}</select></label> <button type=submit>Compare</button></form>")


def _column(row: ModelRow, facts: ModelFacts, side: str) -> str:
    parts = [(label, colour, n) for _, label, colour, n in facts.origin_counts()]
    return (f"<div data-side='{side}'><h2>{side.upper()}: <a href='{e(model_href(row.model_id))}'>{e(row.model_id)}"
            f"</a></h2><p class=muted>{e(row.state)} · {e(row.source)} · template {e(row.template or '-')}</p>"
            + cards([("reactions", row.num_reactions), ("metabolites", row.num_metabolites), ("genes", row.num_genes),
                     ("exchanges", row.num_exchanges)])
            + figure(stacked_bar(parts, f"where the reactions of {row.model_id} came from", width=620,
                                 svg_id=f"origins-{side}")) + "</div>")


def _reaction_rows(ids: list[str], facts: ModelFacts) -> list[tuple[str, ...]]:
    return [(e(r), e(facts.reactions[r].name), e(ORIGIN_LABELS.get(facts.origin[r], facts.origin[r])))
            for r in ids[:LISTED]]


def _differences(a: ModelFacts, b: ModelFacts) -> str:
    ra, rb = set(a.reactions), set(b.reactions)
    only_a, only_b, shared = sorted(ra - rb), sorted(rb - ra), ra & rb
    changed = sorted(r for r in shared if (a.reactions[r].lower, a.reactions[r].upper, a.reactions[r].rule)
                     != (b.reactions[r].lower, b.reactions[r].upper, b.reactions[r].rule))
    ga, gb = set(a.genes), set(b.genes)
    summary = table(("", "only in A", "only in B", "shared", "shared but changed"), [
        ("reactions", f"<span id=only-a>{len(only_a)}</span>", f"<span id=only-b>{len(only_b)}</span>",
         str(len(shared)), str(len(changed))),
        ("genes", str(len(ga - gb)), str(len(gb - ga)), str(len(ga & gb)), "-"),
        ("metabolites", str(len(set(a.metabolite_names) - set(b.metabolite_names))),
         str(len(set(b.metabolite_names) - set(a.metabolite_names))),
         str(len(set(a.metabolite_names) & set(b.metabolite_names))), "-")], "differences")
    more = f" (the first {LISTED})"
    changed_rows = [(e(r), e(a.reactions[r].name), e(f"{a.reactions[r].lower:g} … {a.reactions[r].upper:g}"),
                     e(f"{b.reactions[r].lower:g} … {b.reactions[r].upper:g}"),
                     e("gene rule differs" if a.reactions[r].rule != b.reactions[r].rule else "")) for r in changed]
    return (summary
            + f"<h3>Reactions only in A{more if len(only_a) > LISTED else ''}</h3>"
            + table(("Reaction", "Name", "Came from"), _reaction_rows(only_a, a), "only-in-a", "None.")
            + f"<h3>Reactions only in B{more if len(only_b) > LISTED else ''}</h3>"
            + table(("Reaction", "Name", "Came from"), _reaction_rows(only_b, b), "only-in-b", "None.")
            + "<h3>Shared reactions with other bounds or gene rule</h3>"
            + table(("Reaction", "Name", "Bounds in A", "Bounds in B", ""), changed_rows[:LISTED], "changed", "None."))


def _growth(row_a: ModelRow, res_a: list[ResultRow], row_b: ModelRow, res_b: list[ResultRow]) -> str:
    def latest(results: list[ResultRow]) -> dict[str, ResultRow]:
        found: dict[str, ResultRow] = {}
        for r in results:  # newest first
            if r.kind == "fba" and r.media_id and not r.summary.get("what_if") and r.media_id not in found:
                found[r.media_id] = r
        return found

    fa, fb = latest(res_a), latest(res_b)

    def cell(row: ModelRow, result: ResultRow | None) -> str:
        if result is None:
            return "<span class=muted>not run</span>"
        return (f"<a href='{e(result_href(row.model_id, result.id))}'>{number(result.summary.get('objective_value'))}"
                f"</a> <span class=muted>{e(result.summary.get('method', ''))}</span>")

    rows = [(e(m), cell(row_a, fa.get(m)), cell(row_b, fb.get(m))) for m in sorted(set(fa) | set(fb))]
    return "<h2>Growth recorded by run_fba</h2>" + table(("Medium", "A", "B"), rows, "growth",
                                                         "Neither model has an FBA result recorded.")


def _phenotypes(res_a: list[ResultRow], res_b: list[ResultRow]) -> str:
    def latest(results: list[ResultRow]) -> tuple[ResultRow | None, dict[str, Well]]:
        for r in results:
            found = wells(r.summary) if r.kind == "growth_phenotypes" else None
            if found is not None:
                return r, {w.compound: w for w in found}
        return None, {}

    ra, wa = latest(res_a)
    rb, wb = latest(res_b)
    if ra is None or rb is None:
        return ""
    differ = [c for c in wa if c in wb and wa[c].predicted != wb[c].predicted]
    rows = [(e(c), e(wa[c].name), e(wa[c].status.replace("_", " ")), e(wb[c].status.replace("_", " ")),
             "-" if wa[c].observed is None else ("grows" if wa[c].observed else "no growth")) for c in differ]
    return (f"<h2>Phenotype arrays: where A and B disagree ({len(differ)} of {len(set(wa) & set(wb))} shared "
            f"compounds)</h2><p class=muted>A: {e(ra.summary.get('panel'))} on {e(ra.media_id)}, "
            f"B: {e(rb.summary.get('panel'))} on {e(rb.media_id)}.</p>"
            + table(("Compound", "Name", "A predicts", "B predicts", "Observed"), rows, "phenotype-differences",
                    "They predict the same on every shared compound."))


def routes(source: DashboardSource) -> list[Route]:
    async def compare(request: Request) -> Response:
        workspace = source.workspace(request)
        models = [r.model_id for r in source.store.list_models(workspace)]
        a, b = request.query_params.get("a"), request.query_params.get("b")
        body = ["<h1>Compare two models</h1>", _picker(models, a, b)]
        row_a = visible_model(source, request, a) if a else None
        row_b = visible_model(source, request, b) if b else None
        if a and b and (row_a is None or row_b is None):
            body.append("<p class=err>No such model in this workspace: "
                        f"{e(', '.join(x for x, r in ((a, row_a), (b, row_b)) if r is None))}.</p>")
            return page("compare models", "".join(body), status_code=404)
        if row_a is None or row_b is None:
            body.append("<p class=muted>Choose two models.</p>")
            return page("compare models", "".join(body))
        facts_a, facts_b = loaders.model_facts(source, row_a), loaders.model_facts(source, row_b)
        res_a, res_b = model_results(source, row_a), model_results(source, row_b)
        body += [f"<div class=side>{_column(row_a, facts_a, 'a')}{_column(row_b, facts_b, 'b')}</div>",
                 "<h2>What differs</h2>", _differences(facts_a, facts_b), _growth(row_a, res_a, row_b, res_b),
                 _phenotypes(res_a, res_b)]
        return page(f"compare {row_a.model_id} and {row_b.model_id}", "".join(body))

    return [Route("/compare", compare)]
