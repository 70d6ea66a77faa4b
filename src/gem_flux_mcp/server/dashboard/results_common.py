"""Recorded results in a line (for lists) and as a plain table of their summary (for the kinds
without a picture of their own)."""

from __future__ import annotations

from typing import Any

from gem_flux_mcp.server.dashboard.html import cards, e, number, table
from gem_flux_mcp.store.rows import ResultRow

KIND_TITLES = {
    "fba": "Flux balance analysis", "growth_phenotypes": "Phenotype array",
    "gene_essentiality": "Gene essentiality", "reaction_essentiality": "Reaction essentiality",
    "fva": "Flux variability", "diagnosis": "Diagnosis", "gapfill": "Gapfill", "atp_correction": "ATP correction",
    "fermentation_products": "Fermentation products", "explain_essentiality": "Explain essentiality",
}
PICTURED = {"fba": "flux map", "growth_phenotypes": "plate", "gene_essentiality": "by pathway",
            "reaction_essentiality": "by pathway", "fermentation_products": "products"}


def kind_title(kind: str) -> str:
    return KIND_TITLES.get(kind, kind.replace("_", " "))


def phenotype_mismatches(summary: dict[str, Any]) -> int | None:
    metrics = summary.get("comparison")
    if not isinstance(metrics, dict):
        return None
    return int(metrics.get("fp", 0)) + int(metrics.get("fn", 0))


def headline(result: ResultRow) -> str:
    """The result in a few words (plain text)."""
    s = result.summary
    if result.kind == "fba":
        what_if = " (what if: knockouts/bounds)" if s.get("what_if") else ""
        return (f"{s.get('objective', 'objective')} = {number(s.get('objective_value'))} "
                f"({s.get('method', 'fba')}, {s.get('status', '')}){what_if}")
    if result.kind == "growth_phenotypes":
        mismatches = phenotype_mismatches(s)
        return (f"{s.get('panel') or 'compounds'}: {s.get('growth', 0)} growth, {s.get('no_growth', 0)} no growth, "
                f"{s.get('no_uptake', 0)} no uptake of {s.get('tested', 0)}"
                + (f"; {mismatches} mismatches with observations" if mismatches is not None else ""))
    if result.kind.endswith("_essentiality"):
        return (f"{s.get('essential', 0)} essential, {s.get('slowed', 0)} slowed of {s.get('tested', 0)} "
                f"{s.get('target', '')}")
    if result.kind == "fva":
        forced = int(s.get("forward_only_forced", 0)) + int(s.get("reverse_only_forced", 0))
        return f"{s.get('blocked', 0)} blocked, {forced} forced of {s.get('tested', 0)} reactions"
    if result.kind == "diagnosis":
        grows = "grows" if s.get("grows") else "does not grow"
        return (f"{grows} ({number(s.get('growth'))} /h); {s.get('mass_imbalanced', 0)} mass-imbalanced, "
                f"{s.get('blocked_reactions', 0)} blocked, {s.get('energy_generating_cycles', 0)} energy cycles")
    if result.kind == "gapfill":
        return (f"{s.get('original_model_id', '')} → {s.get('gapfilled_model_id', '')}: "
                f"+{s.get('num_reactions_added', 0)} reactions, growth {number(s.get('growth_rate_before'))} → "
                f"{number(s.get('growth_rate_after'))} /h")
    if result.kind == "fermentation_products":
        made = ", ".join(map(str, s.get("scored_products_made", []))) or "none"
        return f"{s.get('products', 0)} products at growth {number(s.get('growth'))} /h; makes {made}"
    if result.kind == "atp_correction":
        return f"ATP yields checked on {s.get('media_tested', 0)} test media"
    return ", ".join(f"{k}={v}" for k, v in list(s.items())[:4] if not isinstance(v, dict | list))


def comparison_cards(summary: dict[str, Any], title: str, *, mismatches: bool = False) -> str:
    """The recorded comparison with observations as cards ('' when none was recorded)."""
    metrics = summary.get("comparison")
    if not isinstance(metrics, dict):
        return ""
    counted = [("mismatches", int(metrics.get("fp", 0)) + int(metrics.get("fn", 0)))] if mismatches else []
    return f"<h2>{e(title)}</h2>" + cards(
        [*counted, ("compared", metrics.get("compared")), ("accuracy", metrics.get("accuracy")),
         ("MCC", metrics.get("mcc")), ("true +", metrics.get("tp")), ("false +", metrics.get("fp")),
         ("true −", metrics.get("tn")), ("false −", metrics.get("fn"))])


def summary_table(summary: dict[str, Any], skip: frozenset[str] = frozenset()) -> str:
    """Every field of a summary: numbers and words as they are, lists and tables in short."""
    rows = []
    for key, value in summary.items():
        if key in skip:
            continue
        if isinstance(value, dict):
            shown = e(", ".join(f"{k}: {v}" for k, v in list(value.items())[:20])
                      + (" …" if len(value) > 20 else ""))
        elif isinstance(value, list):
            shown = e(", ".join(str(v) for v in value[:40]) + (f" … ({len(value)} in all)" if len(value) > 40 else ""))
        else:
            shown = number(value)
        rows.append((f"<b>{e(key)}</b>", shown))
    return table(("field", "value"), rows, "summary")
