"""gapfill_model's answer (contracts/tools.json), kept small: an LLM client caps tool results at ~25k
tokens, and the reference implementation's full reaction list reached 44k for 127 reactions.

Every added reaction gets a compact entry (id, name, direction, equation with names, source,
evidence); the answer carries the first page and the rest is paged through get_model.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.modeling.gapfill.reliance import addition_contexts

if TYPE_CHECKING:
    from gem_flux_mcp.modeling.gapfill.run import GapfillRun

MAX_LISTED = 40  # compound ids listed in an answer
MAX_EQUATION = 160
_GLOBAL_MAPS = ("rn011", "rn012")  # KEGG overview maps ("Metabolic pathways", "Carbon metabolism")

ReactionDetails = Callable[[Iterable[str]], dict[str, dict[str, Any]]]


def main_pathway(pathways: list[dict[str, Any]]) -> str:
    """One pathway name for grouping: the first specific KEGG map, else the first MetaCyc one."""
    for source in ("KEGG", "MetaCyc"):
        for item in pathways:
            if item.get("source") == source and item.get("name") and not str(item.get("id", "")).startswith(
                    _GLOBAL_MAPS):
                return str(item["name"])
    return "Unknown"


def added_reactions(run: GapfillRun, details: ReactionDetails) -> list[dict[str, Any]]:
    """Compact entries for every reaction the run added or opened, ATP correction first."""
    changes: list[tuple[str, str, set[int]]] = []  # (reaction, source, directions)

    def collect(items: Iterable[tuple[str, int]], source: str) -> None:
        grouped: dict[str, set[int]] = {}
        for rid, sign in items:
            grouped.setdefault(rid, set()).add(sign)
        changes.extend((rid, source, signs) for rid, signs in grouped.items())

    if run.atp is not None and not run.atp_reused:
        collect(run.atp.added, "atp_correction")
    if run.genome_scale is not None:
        collect(run.genome_scale.added, "template_gapfill")
        collect(run.genome_scale.reversed, "reversed")
        changes.extend((rid, "auto_generated", {1, -1}) for rid in run.genome_scale.exchanges)
    if run.uptake is not None:
        collect(run.uptake.added, "medium_uptake")
        collect([e for e in run.uptake.export_added if e not in run.uptake.added], "end_product_export")
        changes.extend((rid, "auto_generated", {1, -1}) for rid in run.uptake.exchanges)
    info = details(rid.split("_")[0] for rid, _, _ in changes if rid.startswith("rxn"))
    entries = []
    for rid, source, signs in changes:
        base = rid.split("_")[0]
        record = info.get(base, {})
        reaction = run.model.reactions.get_by_id(rid) if rid in run.model.reactions else None
        equation = reaction.build_reaction_string(use_metabolite_names=True) if reaction is not None else ""
        evidence = None
        if reaction is not None and reaction.notes.get("gemflux_evidence"):
            try:
                evidence = json.loads(reaction.notes["gemflux_evidence"])
            except ValueError:
                evidence = None
        entries.append({
            "id": rid,
            "name": record.get("name") or (reaction.name if reaction is not None else rid),
            "direction": "=" if signs == {1, -1} else (">" if 1 in signs else "<"),
            "equation": equation[:MAX_EQUATION] + ("…" if len(equation) > MAX_EQUATION else ""),
            "source": source,
            "pathway": main_pathway(record.get("pathways", [])) if record else "Exchange",
            "evidence": evidence,
        })
    return entries


def pathway_summary(entries: list[dict[str, Any]]) -> dict[str, Any]:
    counts = Counter(e["pathway"] for e in entries)
    examples: dict[str, list[dict[str, str]]] = {}
    for e in entries:
        examples.setdefault(e["pathway"], [])
        if len(examples[e["pathway"]]) < 3:
            examples[e["pathway"]].append({"id": e["id"], "name": e["name"]})
    unknown = counts.get("Unknown", 0)
    return {
        "total_reactions": len(entries),
        "pathways": [{"pathway": p, "reactions_added": n, "examples": examples[p]} for p, n in counts.most_common()],
        "num_pathways_affected": len([p for p in counts if p not in ("Unknown", "Exchange")]),
        "reactions_without_pathways": unknown,
        "reactions_without_pathways_percentage": round(100.0 * unknown / len(entries), 1) if entries else 0.0,
    }


def assessment(count: int) -> str:
    if count < 10:
        return "Minimal gapfilling: the annotation covered nearly everything needed for growth."
    if count < 50:
        return "Moderate gapfilling: some pathway steps had no genome evidence."
    return "Extensive gapfilling: many steps had no genome evidence (poor or partial annotation)."


def describe(run: GapfillRun, details: ReactionDetails, target: float) -> dict[str, Any]:
    """Everything the tool reports, except ids the store assigns; `reactions_added` is complete
    (the caller pages it)."""
    entries = added_reactions(run, details)
    atp = run.atp
    failed = [m for m, v in atp.core_gapfill.items() if v == "failed"] if atp else []
    selected = set(atp.selected_media) if atp else set()
    unused = [m for m in (atp.core_gapfill if atp else {}) if m not in selected and m not in failed]
    met = run.growth_after >= target * (1 - 1e-6)
    genome = run.genome_scale
    uptake = run.uptake
    several = len(run.by_medium) > 1
    return {
        "growth_rate_before": round(run.growth_before, 6),
        "growth_rate_after": round(run.growth_after, 6),
        # on several media: each medium's growth (growth_rate_before/after are the lowest)
        "growth_by_medium": {name: {"before": round(b, 6), "after": round(a, 6), "met_target": a >= target * (1 - 1e-6)}
                             for name, (b, a) in run.by_medium.items()} if several else None,
        "gapfilling_successful": met,
        "objective": run.objective,
        "num_reactions_added": len(entries),
        "reactions_added": entries,
        "pathway_summary": pathway_summary(entries),
        "additions_by_context": addition_contexts(run.model, entries),
        "atp_correction": {
            "performed": atp is not None,
            "media_tested": atp.media_tested if atp else 0,
            "media_passed": len(atp.selected_media) if atp else 0,
            "media_failed": len(failed),
            "media_not_selected": len(unused),
            "reactions_added": len(atp.added) if atp and not run.atp_reused else 0,
            "directions_blocked": len(atp.blocked) if atp else 0,
            "core_directions_set": len(atp.core_directions) if atp else 0,
            "failed_media_examples": failed[:5],
            "test_conditions": len(atp.tests) if atp else 0,
            "test_conditions_reused": run.atp_reused,
            "note": ("Reused the ATP correction computed for this model earlier." if run.atp_reused else
                     "Core metabolism checked on the ATP test media; the tests kept energy-inflating reactions "
                     "out of the genome-scale stage.") if atp else "Skipped (gapfill_mode='genomescale_only').",
        },
        "genomescale_gapfill": {
            "performed": genome is not None,
            # reactions, not directions (a transporter added both ways is one reaction)
            "reactions_added": len({r for r, _ in genome.added + genome.reversed}) if genome else 0,
            "new_reactions": len({r for r, _ in genome.added}) if genome else 0,
            "reversed_reactions": len(genome.reversed) if genome else 0,
            "exchanges_added": len(genome.exchanges) if genome else 0,
            "transporters_added_both_ways": len(genome.both_ways) if genome else 0,
            "rejected_for_energy_or_carbon": [f"{r}{'>' if d > 0 else '<'}: {why}" for r, d, why in genome.banned][:10]
            if genome else [],
            "integer_pass": genome.integer_pass if genome else False,
            "weighted_cost": round(genome.cost, 3) if genome else 0.0,
        },
        "medium_uptake": {
            "performed": uptake is not None,
            "transporters_added": len({r for r, _ in uptake.added}) if uptake else 0,
            "transporters_added_both_ways": len(uptake.both_ways) if uptake else 0,
            "end_products_made_exportable": uptake.exported[:MAX_LISTED] if uptake else [],
            "compounds_now_taken_up": uptake.compounds[:MAX_LISTED] if uptake else [],
            "compounds_without_template_transporter": uptake.without_transporter[:MAX_LISTED] if uptake else [],
            "rejected_for_energy_or_carbon": [f"{r}{'>' if d > 0 else '<'}: {why}"
                                              for r, d, why in uptake.rejected][:10] if uptake else [],
        },
        "quality_checks": run.quality,
        "interpretation": {
            "overview": ((f"Lowest growth over the {len(run.by_medium)} media " if several else "Growth ")
                         + f"{run.growth_before:.3f} → {run.growth_after:.3f} /h"
                         + ("" if several else " on the medium")
                         + f" ({'meets' if met else 'below'} the target {target}) with {len(entries)} reactions "
                           "added."),
            "growth_improvement": {"before": round(run.growth_before, 6), "after": round(run.growth_after, 6),
                                   "target": target, "met_target": met},
            "gapfilling_assessment": assessment(len(entries)),
            "warnings": _warnings(run),
        },
        "timings_s": run.timings,
    }


def _warnings(run: GapfillRun) -> list[str]:
    quality = run.quality
    notes = []
    if not quality["atp_with_all_uptakes_closed"]["passed"]:
        notes.append("The model makes ATP with every uptake closed (an energy-generating cycle)"
                     + (": run gapfill_mode='full' so ATP correction removes it." if run.atp is None else "."))
    if not quality["no_atp_driven_transport_backwards"]["passed"]:
        notes.append("An ATP-driven transporter can run backwards and make ATP.")
    if run.atp_transport_oriented:
        notes.append(f"{len(run.atp_transport_oriented)} ATP-driven transporters or reactions could run backwards "
                     "(making ATP); they now only hydrolyse ATP.")
    if run.decarboxylations_oriented:
        notes.append(f"{len(run.decarboxylations_oriented)} decarboxylations could run backwards (fixing CO2 without "
                     "an energy source); they now only release CO2.")
    if run.hydrolyses_oriented:
        notes.append(f"{len(run.hydrolyses_oriented)} hydrolyses could run backwards (joining what water splits, "
                     "without an energy source); they now only split.")
    if run.acyl_coa_oriented:
        notes.append(f"{len(run.acyl_coa_oriented)} acyl-CoA dehydrogenases could run backwards (beta-oxidation "
                     "reversed on free FADH2); they now only oxidise.")
    if not quality["growth_without_carbon"]["passed"]:
        notes.append("The model grows without a carbon source: check mass-imbalanced reactions.")
    if not quality["growth_on_medium"]["passed"]:
        notes.append("Growth on the medium is below the target.")
    share = quality.get("flux_through_gapfilled_reactions", {})
    if not share.get("passed", True):
        notes.append(f"{share['active_gapfilled']} of the {share['active_reactions']} reactions active at optimum "
                     f"were gapfilled (more than {100 * share['threshold']:.0f} %): the model rests much on reactions "
                     "without genes; an incomplete genome (see build_model's genome_completeness) is a common cause.")
    return notes
