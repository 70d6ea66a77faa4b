"""Phosphorylations by a triphosphate or PEP run one way: the donor is spent, never remade.

A kinase moves the terminal phosphate of a nucleoside triphosphate (ATP, GTP, ...) to an acceptor;
a PEP-dependent phosphotransferase moves phosphoenolpyruvate's. Where the acceptor takes the
phosphate as an ester (a sugar, a nucleoside, glycerol, NAD+, pantothenate), the transfer is
downhill by about 8-25 kJ/mol (ModelSEED's ΔG'° estimates: -2 to -6 kcal/mol for most alcohol
kinases, about -10 for the PEP-dependent ones), and in a growing cell ATP is kept ten-fold above
ADP on top of that; run backwards, the reaction would make ATP or PEP from a phosphate ester. The
templates list most of these kinases as reversible, and the reversed copies are bypasses: in the
E. coli model, thymidine kinase run backwards (dUMP + ADP -> deoxyuridine + ATP) fed a route from
pentoses through deoxyribose-phosphate aldolase around glyceraldehyde-3-phosphate dehydrogenase,
and the PEP-dependent dihydroxyacetone kinase run backwards made PEP from pyruvate
(benchmarks/HISTORY.md). The rule, beside energy.py's (ATP-driven transport, pyruvate and
carbamate kinases) and hydrolysis.py's:

- one compartment; exactly one donor pair, a nucleoside triphosphate and its diphosphate or PEP
  and pyruvate, on opposite sides; besides it and protons, exactly one compound turned into one
  other (the acceptor and its phosphorylated form);
- ModelSEED's ΔG'° of the donor-spending direction at most DOWNHILL_KCAL: where the acceptor
  takes the phosphate as a carboxyl-phosphate, a phosphoamide or a phosphoanhydride (acetate,
  phosphoglycerate and creatine kinases, NMP and NDP kinases) the transfer is near equilibrium or
  uphill and the reaction keeps the template's direction; so does a reaction with no estimate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .energy import NUCLEOTIDE_PAIRS, PEP, PYRUVATE, one_compartment_compounds, orient_by
from .hydrolysis import PROTON

if TYPE_CHECKING:
    import cobra

# donor -> what is left of it: the triphosphates energy.py knows (ATP, GTP, CTP, UTP, ITP, dATP,
# dGTP, dCTP) and PEP. Not dTTP or dUTP: closing dTTP:uridine kinase's reverse made B. subtilis'
# ndk a false "essential" gene (its other NDP-phosphorylating routes are not in the model)
DONOR_PAIRS = {**NUCLEOTIDE_PAIRS, PEP: PYRUVATE}
NUCLEOTIDES = frozenset(DONOR_PAIRS) | frozenset(DONOR_PAIRS.values())
# ΔG'° (kcal/mol, donor-spending direction) at or below which the reverse may not run: -8.4 kJ/mol;
# with ATP ten-fold above ADP, running back would need the ester ~300-fold above its acceptor
DOWNHILL_KCAL = -2.0


def phosphorylating_sign(stoichiometry: Mapping[str, float], deltag: float | None = None) -> int | None:
    """For a reaction written as {metabolite id (cpd#####_c0): coefficient} with ΔG'° `deltag`
    (kcal/mol, forward, None when unknown): +1 when its forward direction spends the phosphoryl
    donor and the reverse may not run (module docstring), -1 when its reverse does, else None."""
    if deltag is None or abs(deltag) >= 1e6:
        return None
    found = one_compartment_compounds(stoichiometry)
    if found is None:
        return None
    compounds = {cpd: c for cpd, c in found[0].items() if c and cpd != PROTON}
    pairs = [(donor, left) for donor, left in DONOR_PAIRS.items()
             if compounds.get(donor) and compounds.get(left) and compounds[donor] * compounds[left] < 0]
    if len(pairs) != 1:
        return None
    donor, left = pairs[0]
    others = {cpd: c for cpd, c in compounds.items() if cpd not in (donor, left)}
    if len(others) != 2 or NUCLEOTIDES & others.keys() or min(others.values()) * max(others.values()) > 0:
        return None
    sign = 1 if compounds[donor] < 0 else -1
    return sign if deltag * sign <= DOWNHILL_KCAL else None


def orient_phosphorylations(model: cobra.Model, deltag: Mapping[str, float | None]) -> list[str]:
    """Close the donor-making direction of every phosphorylation by a triphosphate or PEP (in
    place; `deltag` by ModelSEED reaction id, rxn#####); returns the ids changed."""
    return orient_by(model, phosphorylating_sign, deltag,
                     "phosphorylation: spends the triphosphate or PEP only (never makes it from an ester)")
