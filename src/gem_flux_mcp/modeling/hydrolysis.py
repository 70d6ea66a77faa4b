"""Hydrolyses run one way: water splits a compound in two, it never joins two for free.

A hydrolase (phosphatase, nucleosidase, glycosidase, peptidase, amidase, esterase, thioesterase)
splits one compound into two or more with water. Splitting a phosphoester, glycoside, amide, ester
or thioester bond is downhill (ΔG'° about -9 to -35 kJ/mol), and at the millimolar
concentrations of a cell one molecule becoming two adds about -17 kJ/mol more (RT ln 1000 per
extra molecule); run backwards, the reaction would make the bond without an energy source. A
reversible template copy of such a reaction is a bypass: in E. coli, nucleoside triphosphate
triphosphohydrolase run backwards made GTP from guanosine and triphosphate in the optimum, so
guanylate kinase (gmk) was not essential; with the rule, gmk, murC/D/E, murI, nadD, nadE, plsB
and plsC become essential, as they are in vivo (benchmarks/HISTORY.md). The rule is chemical, as in
decarboxylation.py:

- one compartment; in the direction that takes up water, exactly one compound (besides water and
  protons) is split into two or more molecules: a hydrolysis, not a hydration (fumarase, carbonic
  anhydrase: one molecule stays one) or a ring opening (dihydroorotase);
- no redox carrier (NAD(P), flavins, quinones, ferredoxin, flavodoxin, thioredoxin, glutathione,
  glutaredoxin, cytochrome c, O2, H2O2): an oxidation with water (aldehyde dehydrogenase) is not
  a hydrolysis;
- not where ModelSEED's ΔG'° estimate, with the millimolar term, says the hydrolysis is uphill
  (S-adenosylhomocysteine hydrolase-like equilibria): there the template's direction stays.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .energy import one_compartment_compounds, orient_by

if TYPE_CHECKING:
    import cobra

WATER, PROTON = "cpd00001", "cpd00067"
REDOX_CARRIERS = frozenset({
    "cpd00003", "cpd00004", "cpd00005", "cpd00006",  # NAD(H), NADP(H)
    "cpd00015", "cpd00982", "cpd00050", "cpd01270",  # FAD(H2), FMN(H2)
    "cpd15560", "cpd15561", "cpd15500", "cpd15499", "cpd15352", "cpd15353", "cpd11606", "cpd17026",  # quinones
    "cpd11620", "cpd11621", "cpd12122", "cpd12173", "cpd12207",  # ferredoxin, flavodoxin
    "cpd11420", "cpd11421", "cpd29682", "cpd00042", "cpd00111", "cpd15480", "cpd15481",  # thiol redox
    "cpd00109", "cpd00110", "cpd00007", "cpd00025",  # cytochrome c, O2, H2O2
})
MILLIMOLAR_KCAL = 4.09  # RT ln 1000 at 298 K: each extra molecule at 1 mM instead of 1 M, kcal/mol


def hydrolysis_sign(stoichiometry: Mapping[str, float], deltag: float | None = None) -> int | None:
    """For a reaction written as {metabolite id (cpd#####_c0): coefficient} with ΔG'° `deltag`
    (kcal/mol, forward, None when unknown): +1 when its forward direction is a hydrolysis whose
    reverse may not run (module docstring), -1 when its reverse is, else None."""
    found = one_compartment_compounds(stoichiometry)
    if found is None:
        return None
    compounds = found[0]
    water = compounds.get(WATER, 0.0)
    if not water or REDOX_CARRIERS & compounds.keys():
        return None
    sign = 1 if water < 0 else -1  # the direction that takes up water
    split = [c * sign for cpd, c in compounds.items() if cpd not in (WATER, PROTON) and c]
    substrates, products = [-c for c in split if c < 0], [c for c in split if c > 0]
    extra_molecules = sum(products) - sum(substrates)
    if len(substrates) != 1 or extra_molecules < 1:
        return None
    if deltag is not None and abs(deltag) < 1e6 and deltag * sign - MILLIMOLAR_KCAL * extra_molecules > 0:
        return None
    return sign


def orient_hydrolyses(model: cobra.Model, deltag: Mapping[str, float | None]) -> list[str]:
    """Close the bond-making direction of every hydrolysis (in place; `deltag` by ModelSEED
    reaction id, rxn#####); returns the ids changed."""
    return orient_by(model, hydrolysis_sign, deltag, "hydrolysis: splits with water only (never joins without energy)")
