"""Passive diffusion across the cytoplasmic membrane: small uncharged molecules cross a lipid
bilayer without a transporter (urea, dihydroxyacetone, glycerol, ethanol, acetoin; thymine, and
the phenolic alcohols saligenin and hydroquinone that breaking down salicin and arbutin leaves),
so no gene can be its evidence and no annotation brings it. (CO2, O2, NH3 and water have their
own template reactions already.)

For each such compound whose cytosolic form the draft has and that nothing in the draft moves
across the membrane yet, the template's reaction that moves it alone, a gene-less one where the
template has it (else a carrier's, the same chemistry), is added in both directions: diffusion
follows the gradient. Where the template has none (it moves thymine, saligenin and hydroquinone
only with a proton, an energy-coupled carrier), the ModelSEED database's reaction that moves it
alone is taken (`database_transport.moving_alone`). The reaction carries no gene and is recorded
as a spontaneous reaction with a note, so the essentiality of every gene is unaffected.

Weak acids are left out although their protonated forms diffuse too (acetic, propionic, butyric
acid; written as the anion's proton symport): added to the draft, acetate's symport enters
gapfilling's ATP correction, which then, in Zymomonas mobilis, settles on a network without its
ethanol fermentation (growth on FT 0.059 -> 0.025 /h). Gapfilling's medium-uptake step adds their
symports, both ways, where a medium has them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cobra

NOTE = "gemflux_diffusion"
NEUTRAL = {"cpd00073": "urea", "cpd00157": "dihydroxyacetone", "cpd00100": "glycerol", "cpd00363": "ethanol",
           "cpd00361": "acetoin", "cpd00151": "thymine", "cpd01553": "saligenin", "cpd00415": "hydroquinone"}


def _moves(reaction: Any, compound: str) -> bool:
    """Whether the template reaction moves `compound` alone between outside (e) and cytosol (c)."""
    coefficients: dict[str, float] = {m.id: float(c) for m, c in reaction.metabolites.items()}
    if set(coefficients) != {f"{compound}_c", f"{compound}_e"}:
        return False
    return abs(coefficients[f"{compound}_c"]) == 1 and coefficients[f"{compound}_e"] == -coefficients[f"{compound}_c"]


def moves_across(model: cobra.Model, compound: str, index: str = "0") -> bool:
    """Whether a reaction of the model already moves `compound` between outside and cytosol."""
    outside, inside = f"{compound}_e{index}", f"{compound}_c{index}"
    if outside not in model.metabolites or inside not in model.metabolites:
        return False
    return any(any(m.id == outside for m in r.metabolites) for r in model.metabolites.get_by_id(inside).reactions)


def add_diffusion(model: cobra.Model, template: Any, from_database: Mapping[str, cobra.Reaction] | None = None,
                  index: str = "0") -> list[str]:
    """Add the diffusion of the permeant compounds (module docstring) that the model makes or uses
    but cannot move across its membrane; `from_database`: {compound: the database's reaction that
    moves it alone, not yet in the model}, for those the template has no such reaction for.
    Returns the ids added."""
    added = []
    for compound in NEUTRAL:
        if f"{compound}_c{index}" not in model.metabolites or moves_across(model, compound, index):
            continue
        # the gene-less one first; else a carrier's reaction, which is the same chemistry
        found = sorted((r for r in template.reactions if _moves(r, compound)),
                       key=lambda r: (bool(r.complexes), r.id))
        if found:
            reaction = found[0].to_reaction(model, index)
            reaction.notes[NOTE] = NEUTRAL[compound]
        elif from_database and compound in from_database:
            reaction = from_database[compound]
            reaction.notes[NOTE] = f"{NEUTRAL[compound]} (the ModelSEED database's reaction: none in the template)"
        else:
            continue
        reaction.bounds = (-1000.0, 1000.0)
        added.append(reaction)
    model.add_reactions(added)
    return [r.id for r in added]

