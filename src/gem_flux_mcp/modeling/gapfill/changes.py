"""Changes to the COBRApy model: template reactions added (with exchanges), directions
blocked, weak-evidence discounts."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.modeling.annotate import WEAK_EVIDENCE_NOTE
from gem_flux_mcp.modeling.gapfill.network import FLUX_MAX, WEAK_EVIDENCE_FACTOR, Flux, find_template_reaction

if TYPE_CHECKING:
    import cobra

# ---- changing the COBRApy model ----------------------------------------------------------------


def apply_changes(model: cobra.Model, template: Any, changes: list[tuple[str, int]], source: str,
                  weak: Mapping[str, float] | None = None) -> list[str]:
    """Add template reactions / open directions; returns ids of exchanges added for new
    extracellular metabolites."""

    directions: dict[str, set[int]] = {}
    for reaction_id, sign in changes:
        directions.setdefault(reaction_id, set()).add(sign)
    evidence = _weak_evidence(model)
    new_reactions = []
    for reaction_id, signs in directions.items():
        lower = -FLUX_MAX if -1 in signs else 0.0
        upper = FLUX_MAX if 1 in signs else 0.0
        if reaction_id in model.reactions:
            reaction = model.reactions.get_by_id(reaction_id)
            reaction.bounds = (min(reaction.lower_bound, lower), max(reaction.upper_bound, upper))
            reaction.notes["gemflux_reversed_by"] = source
            continue
        template_reaction = find_template_reaction(template, reaction_id)
        if template_reaction is None:
            continue
        reaction = template_reaction.to_reaction(model, index="0")
        reaction.bounds = (lower, upper)
        reaction.notes["gemflux_sources"] = source
        hint = evidence.get(reaction_id)
        if hint and weak and reaction_id in weak:
            reaction.gene_reaction_rule = str(hint.get("gene", ""))
            reaction.notes["gemflux_evidence"] = json.dumps({"weak_homology": hint}, sort_keys=True)
        new_reactions.append(reaction)
    model.add_reactions(new_reactions)
    added_exchanges = [new_exchange(m) for m in model.metabolites
                       if m.compartment == "e0" and not any(len(r.metabolites) == 1 for r in m.reactions)]
    for exchange in added_exchanges:
        exchange.notes["gemflux_sources"] = "auto_generated"
    model.add_reactions(added_exchanges)
    return [r.id for r in added_exchanges]


def new_exchange(metabolite: cobra.Metabolite) -> cobra.Reaction:
    """`EX_<met>: met <=>`, open both ways (a medium sets the uptake when it is applied)."""
    import cobra

    exchange = cobra.Reaction(f"EX_{metabolite.id}", f"Exchange for {metabolite.name}",
                              lower_bound=-FLUX_MAX, upper_bound=FLUX_MAX)
    exchange.add_metabolites({metabolite: -1.0})
    return exchange


def block_directions(model: cobra.Model, blocked: list[tuple[str, int]]) -> None:
    for reaction_id, sign in blocked:
        if reaction_id not in model.reactions:
            continue
        reaction = model.reactions.get_by_id(reaction_id)
        if sign > 0:
            reaction.upper_bound = min(reaction.upper_bound, 0.0)
        else:
            reaction.lower_bound = max(reaction.lower_bound, 0.0)
        reaction.notes["gemflux_atp_filtered"] = ">" if sign > 0 else "<"
        if reaction.lower_bound == 0 and reaction.upper_bound == 0:
            model.remove_reactions([reaction])


def _weak_evidence(model: cobra.Model) -> dict[str, dict[str, Any]]:
    raw = model.notes.get(WEAK_EVIDENCE_NOTE) if isinstance(model.notes, dict) else None
    if not raw:
        return {}
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def evidence_discounts(model: cobra.Model) -> dict[str, float]:
    """Template reactions the draft's genome supports weakly (homology below the build's
    identity cut-off): cheaper to add than reactions with no evidence."""
    return {rid: WEAK_EVIDENCE_FACTOR for rid in _weak_evidence(model)}


def flux_label(flux: Flux) -> str:
    return f"{flux.reaction}{'>' if flux.direction > 0 else '<'}"
