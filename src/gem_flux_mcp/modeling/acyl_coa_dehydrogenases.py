"""Acyl-CoA dehydrogenases oxidise only: β-oxidation is never run backwards on free FADH2.

The flavoprotein acyl-CoA dehydrogenases (FadE and its kin, EC 1.3.8.x) take two hydrogens from an
acyl-CoA and pass them, through the electron-transfer flavoprotein, to the quinone pool. ModelSEED
writes their acceptor as free FAD; with free FADH2 as a donor, reducing an enoyl-CoA looks downhill
(the database's ΔG'° of the oxidation is +9.5 to +11 kcal/mol). In a model where NADH reduces free
FAD (flavin reductase) and succinate dehydrogenase fills the FADH2 pool, reversible template copies
of these reactions then run β-oxidation backwards: acetyl-CoA becomes a long-chain acyl-CoA with no
ATP spent per turn, a thioesterase and acyl-ACP synthetase carry it into the ACP pool, and fatty-acid
synthesis itself is never needed. In E. coli, fabI (enoyl-ACP reductase, essential in vivo and in
the curated iML1515, whose ACOAD reactions are irreversible) was then dispensable, and the wild type
made its fatty acids that way. A cell that reverses β-oxidation needs another enzyme: an NADH
trans-enoyl-CoA reductase (engineered E. coli replaces FadE by one: Dellomonaco et al. 2011, Nature
476:355) or the electron-bifurcating butyryl-CoA dehydrogenase of clostridia (Bcd-EtfAB, which the
template writes reductive only). The rule:

- one compartment; FAD and FADH2 are the only carriers; besides water, protons and CO2, one organic
  compound is consumed and one made, both CoA thioesters (by name);
- the reaction keeps the direction that reduces FAD. Only reversible reactions change in a draft,
  and gapfilling offers only that direction where the template allows both: a direction the
  template itself writes as a reduction stays (Bcd).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from .energy import keep_direction, one_compartment_compounds

if TYPE_CHECKING:
    import cobra

FAD, FADH2 = "cpd00015", "cpd00982"
UNINVOLVED = frozenset({"cpd00001", "cpd00067", "cpd00011"})  # water, H+, CO2
COA_THIOESTER = re.compile(r"coa(\b|$)", re.IGNORECASE)  # Octanoyl-CoA [c0], strcoa [c0]
WHY = "acyl-CoA dehydrogenase: oxidises only (beta-oxidation is not reversed by free FADH2)"


class Named(Protocol):
    id: str
    name: str


def acyl_coa_oxidation_sign(metabolites: Mapping[Named, float]) -> int | None:
    """For a reaction written as {metabolite: coefficient} (COBRApy metabolites or template
    species, ids cpd#####_<compartment>): +1 when its forward direction is an acyl-CoA
    dehydrogenation by FAD (module docstring), -1 when the reverse is, else None."""
    if not any(met.id.startswith(FADH2) for met in metabolites):  # most reactions: at once
        return None
    found = one_compartment_compounds({met.id: c for met, c in metabolites.items()})
    if found is None:
        return None
    coefficients = found[0]
    fad, fadh2 = coefficients.get(FAD, 0.0), coefficients.get(FADH2, 0.0)
    if not fad or fad * fadh2 >= 0:
        return None
    others = {cpd: c for cpd, c in coefficients.items() if cpd not in UNINVOLVED | {FAD, FADH2} and c}
    if len(others) != 2 or sum(1 for c in others.values() if c < 0) != 1:
        return None
    names = {met.id.split("_")[0]: met.name or "" for met in metabolites}
    if not all(COA_THIOESTER.search(names[cpd]) for cpd in others):
        return None
    return 1 if fad < 0 else -1


def orient_acyl_coa_dehydrogenases(model: cobra.Model) -> list[str]:
    """Make every reversible acyl-CoA dehydrogenase of `model` an oxidation only (in place);
    returns the ids changed."""
    changed = []
    for reaction in model.reactions:
        if reaction.boundary or not (reaction.lower_bound < 0 < reaction.upper_bound):
            continue
        sign = acyl_coa_oxidation_sign(reaction.metabolites)
        if sign is not None:
            keep_direction(reaction, sign, WHY)
            changed.append(reaction.id)
    return changed
