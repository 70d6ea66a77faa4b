"""Decarboxylations run one way: CO2 leaves, it is never fixed without an energy source.

Releasing CO2 from an organic acid (a decarboxylase, the decarboxylating Claisen condensation of
3-oxoacyl-ACP synthases) is strongly downhill; run backwards the reaction fixes CO2 for free. A
reversible template copy of such a reaction is a bypass: malonyl-ACP carboxy-lyase or the lumped
fatty-acyl-ACP synthases run backwards make malonyl-ACP from acetyl-ACP and CO2 without ATP, and
acetyl-CoA carboxylase (accABCD) stops being essential in E. coli. ModelSEED has no ΔG'° for most
of them (acyl-carrier-protein compounds), so the rule is chemical:

- one compartment, and exactly one of CO2 / HCO3- on one side, with an organic compound on each;
- no ATP-like nucleotide or other energy carrier (PEP, carbamoyl phosphate) in the reaction: a
  carboxylase driven by one is a different reaction (and energy.py orients ATP-driven ones);
- no reductant made where CO2 is released: an oxidative decarboxylation (malic enzyme, isocitrate
  dehydrogenase) can run backwards as a reductive carboxylation, paid for by NAD(P)H or ferredoxin.
  Except with NADH where ModelSEED's ΔG'° says the cell's NADH cannot pay: NAD+ is kept about 30
  times above NADH in a growing cell (E. coli, Bennett et al. 2009: +2.0 kcal/mol against the
  reduction), and where the reductive direction's ΔG'° at millimolar concentrations, with that
  term, is above zero, the carboxylation stays closed. NAD-dependent 6-phosphogluconate
  dehydrogenase run backwards (+3.55 kcal/mol so; the estimate's uncertainty is 0.77) took E.
  coli's NADH instead of alcohol dehydrogenase, fixing CO2 into 6-phosphogluconate
  (benchmarks/HISTORY.md).
  NADPH (kept above NADP+) and ferredoxin keep paying as before;
- not where ModelSEED's ΔG'° estimate says fixing the CO2 is itself downhill (RuBisCO: ribulose
  1,5-bisphosphate is the energy source).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .energy import one_compartment_compounds, orient_by
from .hydrolysis import MILLIMOLAR_KCAL, PROTON, WATER  # MILLIMOLAR_KCAL: RT ln 1000, per molecule at 1 mM

if TYPE_CHECKING:
    import cobra

CARBON_DIOXIDE = frozenset({"cpd00011", "cpd00242"})  # CO2, HCO3-
# what fixing CO2 can be paid with: nucleoside tri-, di- and monophosphates, PEP, carbamoyl
# phosphate, acetyl phosphate
ENERGY_CARRIERS = frozenset({"cpd00002", "cpd00008", "cpd00018", "cpd00038", "cpd00031", "cpd00126", "cpd00052",
                             "cpd00096", "cpd00046", "cpd00062", "cpd00014", "cpd00091", "cpd00061", "cpd00146",
                             "cpd00196"})
# reduced carriers: made where CO2 leaves, they can pay for the reverse (reductive carboxylation)
REDUCED_CARRIERS = frozenset({"cpd00004", "cpd00005", "cpd11620", "cpd00982", "cpd15561", "cpd15499"})
INORGANIC = CARBON_DIOXIDE | {"cpd00001", "cpd00067", "cpd00009", "cpd00012"}  # water, H+, Pi, PPi
UPHILL_KCAL = 2.0  # ΔG'° (kcal/mol) of releasing CO2 above which the estimate says fixing it is downhill
NADH = "cpd00004"
NAD_OVER_NADH_KCAL = 2.0  # RT ln 30 at 298 K: NAD+ about 30 times above NADH, against a reduction by NADH
UNINVOLVED = frozenset({WATER, PROTON})  # no concentration term


def decarboxylating_sign(stoichiometry: Mapping[str, float], deltag: float | None = None) -> int | None:
    """For a reaction written as {metabolite id (cpd#####_c0): coefficient} with ΔG'° `deltag`
    (kcal/mol, forward, None when unknown): +1 when its forward direction releases CO2 and the
    reverse may not run (module docstring), -1 when the reverse releases it, else None."""
    found = one_compartment_compounds(stoichiometry)
    if found is None:
        return None
    compounds = found[0]
    released = [c for cpd, c in compounds.items() if cpd in CARBON_DIOXIDE and c]
    if len(released) != 1 or ENERGY_CARRIERS & compounds.keys():
        return None
    sign = 1 if released[0] > 0 else -1
    reductants = {cpd for cpd, c in compounds.items() if cpd in REDUCED_CARRIERS and c * sign > 0}
    nadh_cannot_pay = reductants == {NADH} and _nadh_cannot_pay(compounds, sign, deltag)
    if reductants and not nadh_cannot_pay:
        return None
    organic = [c * sign for cpd, c in compounds.items() if cpd not in INORGANIC and c]
    if not any(c < 0 for c in organic) or not any(c > 0 for c in organic):
        return None
    if not nadh_cannot_pay and deltag is not None and abs(deltag) < 1e6 and deltag * sign > UPHILL_KCAL:
        return None
    return sign


def orient_decarboxylations(model: cobra.Model, deltag: Mapping[str, float | None]) -> list[str]:
    """Close the CO2-fixing direction of every decarboxylation (in place; `deltag` by ModelSEED
    reaction id, rxn#####); returns the ids changed."""
    return orient_by(model, decarboxylating_sign, deltag,
                     "decarboxylation: releases CO2 only (never fixes it without energy)")


def _nadh_cannot_pay(compounds: Mapping[str, float], sign: int, deltag: float | None) -> bool:
    """Whether the reductive carboxylation (the direction against `sign`) paid by NADH is uphill
    in a cell: its ΔG'° at millimolar concentrations plus the NAD+/NADH term above zero."""
    if deltag is None or abs(deltag) >= 1e6:
        return False
    fewer = sum(c * sign for cpd, c in compounds.items() if cpd not in UNINVOLVED)  # molecules the reduction removes
    reductive = -deltag * sign + MILLIMOLAR_KCAL * fewer + NAD_OVER_NADH_KCAL
    return reductive > 0
