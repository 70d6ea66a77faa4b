"""Energy-coupled transport: ATP-driven transporters (ABC transporters, P-type ATPases) and the
direction in which they hydrolyse ATP.

An ATP-driven transporter moves a solute across the membrane and hydrolyses ATP (to ADP + Pi,
or AMP + PPi) in the same reaction. Run backwards it exports the solute and *makes* ATP, which no
such transporter does in a cell: an optimal solution that exports a nutrient this way has energy
from a transporter, not from metabolism. ATP synthases are not counted: the only thing they move
across is H+ (or Na+), and making ATP from that gradient is their job. The phosphotransferase
system (PTS) is held to the same rule: it takes a sugar in by phosphorylating it with
phosphoenolpyruvate, and run backwards it would export the sugar and make PEP, a donor above ATP,
from pyruvate (the templates list 15-17 PTS reactions as reversible in each development model;
the database calls them irreversible).

Kinases of phosphoryl donors above ATP (`orient_nucleotide_making_kinases`): phosphoenolpyruvate
and carbamoyl phosphate give their phosphate to ADP (pyruvate kinase, carbamate kinase); the
reverse, NTP + pyruvate -> PEP or NTP + carbamate -> carbamoyl phosphate, is uphill by 24-30
kJ/mol (ModelSEED's estimates: +5.7 to +7.2 kcal/mol for the pyruvate kinases with any NTP,
+6.3 for carbamate kinase), and cells make PEP and carbamoyl phosphate by other enzymes (PEP
synthase, PEP carboxykinase, carbamoyl-phosphate synthetase with two ATP). Run backwards, a
kinase bypassed those enzymes in the models (E. coli's carA/carB, ppc; benchmarks/HISTORY.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import cobra

ATP, ADP, AMP = "cpd00002", "cpd00008", "cpd00018"
PEP, PYRUVATE = "cpd00061", "cpd00020"
# the ions ATP synthases and redox pumps translocate: moving only these is not transport
PUMPED_IONS = frozenset({"cpd00067", "cpd00971"})  # H+, Na+
# what crosses with an ATP-driven transporter's solute without being it: water, the pumped ions, the nucleotides
NOT_A_SOLUTE = PUMPED_IONS | {"cpd00001", ATP, ADP, AMP}
METABOLITE_ID = re.compile(r"^(cpd\d{5})_([a-z])\d*$")  # compound, compartment letter
ACTIVE = 1e-7


def atp_hydrolysis_sign(stoichiometry: Mapping[str, float]) -> int | None:
    """For a reaction written as {metabolite id (cpd#####_c0 / _e0): coefficient}: +1 when its
    forward direction hydrolyses ATP while moving a solute across the membrane, -1 when the
    reverse does, None when it is not an ATP-driven transporter."""
    by_compound: dict[str, dict[str, float]] = {}
    for met, coefficient in stoichiometry.items():
        match = METABOLITE_ID.match(met)
        if not match:
            return None
        by_compound.setdefault(match.group(1), {})[match.group(2)] = coefficient
    compartments = {c for places in by_compound.values() for c in places}
    if len(compartments) < 2:
        return None
    atp = by_compound.get(ATP, {})
    spent = [c for c in atp.values() if c]
    made = [c for cpd in (ADP, AMP) for c in by_compound.get(cpd, {}).values() if c]
    if len(spent) != 1 or not made or spent[0] * made[0] > 0 or not moves_solute(stoichiometry, NOT_A_SOLUTE):
        return None
    return 1 if spent[0] < 0 else -1


def pts_sign(stoichiometry: Mapping[str, float]) -> int | None:
    """+1 when the forward direction spends phosphoenolpyruvate (to pyruvate, in the cytosol) while
    moving a solute across the membrane, as a phosphotransferase system does; -1 when the reverse
    does; None for any other reaction."""
    cytosol: dict[str, float] = {}
    for met, coefficient in stoichiometry.items():
        match = METABOLITE_ID.match(met)
        if match and match.group(2) == "c":
            cytosol[match.group(1)] = cytosol.get(match.group(1), 0.0) + coefficient
    pep, pyruvate = cytosol.get(PEP, 0.0), cytosol.get(PYRUVATE, 0.0)
    if not pep or not pyruvate or pep * pyruvate > 0 or not moves_solute(stoichiometry, NOT_A_SOLUTE):
        return None
    return 1 if pep < 0 else -1


def driven_transport_sign(stoichiometry: Mapping[str, float]) -> int | None:
    """The direction that spends the energy of an ATP-driven transporter or a PTS (+1 forward,
    -1 reverse), None for any other reaction."""
    sign = atp_hydrolysis_sign(stoichiometry)
    return sign if sign is not None else pts_sign(stoichiometry)


def moves_solute(stoichiometry: Mapping[str, float], ignore: frozenset[str] = PUMPED_IONS) -> bool:
    """A compound other than those in `ignore` found outside the cytosol ({cpd#####_c0:
    coefficient}): a transporter, not a redox pump that only translocates protons."""
    for met in stoichiometry:
        match = METABOLITE_ID.match(met)
        if match and match.group(2) != "c" and match.group(1) not in ignore:
            return True
    return False


def atp_driven_transporters(model: cobra.Model) -> dict[str, int]:
    """Reaction id -> the sign of its energy-spending direction, for every ATP-driven transporter
    and PTS."""
    found = {}
    for reaction in model.reactions:
        if reaction.boundary:
            continue
        sign = driven_transport_sign({m.id: c for m, c in reaction.metabolites.items()})
        if sign is not None:
            found[reaction.id] = sign
    return found


def atp_making_directions_open(model: cobra.Model) -> dict[str, int]:
    """ATP-driven transporters and PTS whose bounds let them run in the direction that makes ATP
    or PEP (id -> sign of the energy-spending direction)."""
    opened = {}
    for rid, sign in sorted(atp_driven_transporters(model).items()):
        if runs_against(model.reactions.get_by_id(rid), sign):
            opened[rid] = sign
    return opened


def runs_against(reaction: cobra.Reaction, sign: int) -> bool:
    """Whether the bounds let `reaction` run against `sign` (+1 forward, -1 reverse)."""
    return bool(reaction.lower_bound < 0) if sign > 0 else bool(reaction.upper_bound > 0)


def keep_direction(reaction: cobra.Reaction, sign: int, why: str) -> None:
    """Close the direction against `sign` and say why in the reaction's notes."""
    if sign > 0:
        reaction.lower_bound = 0.0
    else:
        reaction.upper_bound = 0.0
    reaction.notes["gemflux_direction"] = why


def orient_atp_driven_transport(model: cobra.Model) -> list[str]:
    """Close the ATP-making direction of every ATP-driven transporter (in place); returns the ids
    changed. A transporter left with no direction at all is kept, closed, for the record."""
    changed = []
    for rid, sign in atp_making_directions_open(model).items():
        reaction = model.reactions.get_by_id(rid)
        atp = atp_hydrolysis_sign({m.id: c for m, c in reaction.metabolites.items()}) is not None
        keep_direction(reaction, sign, "ATP-driven transport: hydrolyses ATP only" if atp
                       else "phosphotransferase system: spends phosphoenolpyruvate only")
        changed.append(rid)
    return changed


def cytosolic_compounds(stoichiometry: Mapping[str, float]) -> dict[str, float] | None:
    """{compound: net coefficient} of a reaction whose metabolites are all cytosolic
    ({cpd#####_c0: coefficient}); None when any is elsewhere or not a ModelSEED id."""
    found = one_compartment_compounds(stoichiometry)
    return found[0] if found is not None and found[1] == "c" else None


def one_compartment_compounds(stoichiometry: Mapping[str, float]) -> tuple[dict[str, float], str] | None:
    """({compound: net coefficient}, compartment letter) of a reaction whose metabolites are all in
    one compartment ({cpd#####_c0: coefficient}); None when they are in several or one is not a
    ModelSEED id."""
    compounds: dict[str, float] = {}
    places = set()
    for met, coefficient in stoichiometry.items():
        match = METABOLITE_ID.match(met)
        if not match:
            return None
        places.add(match.group(2))
        compounds[match.group(1)] = compounds.get(match.group(1), 0.0) + coefficient
    return (compounds, places.pop()) if len(places) == 1 else None


SignRule = Callable[[Mapping[str, float], float | None], int | None]


def orient_by(model: cobra.Model, rule: SignRule, deltag: Mapping[str, float | None], why: str) -> list[str]:
    """Close, in place, the direction of every reaction against the one `rule` (stoichiometry, ΔG'°
    by ModelSEED reaction id, rxn#####) allows, noting `why`; returns the ids changed."""
    changed = []
    for reaction in model.reactions:
        if reaction.boundary:
            continue
        sign = rule({m.id: c for m, c in reaction.metabolites.items()}, deltag.get(reaction.id.split("_")[0]))
        if sign is None or not runs_against(reaction, sign):
            continue
        keep_direction(reaction, sign, why)
        changed.append(reaction.id)
    return changed


def atp_coupled_sign(stoichiometry: Mapping[str, float]) -> int | None:
    """For a reaction inside one compartment ({cpd#####_c0: coefficient}): +1 when its forward
    direction turns ATP into ADP or AMP, -1 when the reverse does, else None."""
    compounds = cytosolic_compounds(stoichiometry)
    if compounds is None:
        return None
    spent, made = compounds.get(ATP, 0.0), compounds.get(ADP, 0.0) + compounds.get(AMP, 0.0)
    if not spent or not made or spent * made > 0:
        return None
    return 1 if spent < 0 else -1


def orient_atp_coupled_reactions(model: cobra.Model, reversibility: Mapping[str, str]) -> list[str]:
    """Close the ATP-making direction of every cytosolic ATP-driven reaction that ModelSEED's
    `reversibility` ({rxn#####: '>' / '<' / '=' / '?'}) calls irreversible in its ATP-hydrolysing
    direction (in place); returns the ids changed."""
    changed = []
    for reaction in model.reactions:
        if reaction.boundary:
            continue
        sign = atp_coupled_sign({m.id: c for m, c in reaction.metabolites.items()})
        if sign is None or reversibility.get(reaction.id.split("_")[0]) != (">" if sign > 0 else "<"):
            continue
        if runs_against(reaction, sign):
            keep_direction(reaction, sign, "ATP-driven, irreversible in the database: hydrolyses ATP only")
            changed.append(reaction.id)
    return changed


# nucleoside triphosphate -> diphosphate: ATP, CTP, GTP, UTP, ITP, dATP, dGTP, dCTP
NUCLEOTIDE_PAIRS = {ATP: ADP, "cpd00052": "cpd00096", "cpd00038": "cpd00031", "cpd00062": "cpd00014",
                    "cpd00068": "cpd00090", "cpd00115": "cpd00177", "cpd00241": "cpd00295", "cpd00356": "cpd00533"}
HIGH_ENERGY_PHOSPHATES = frozenset({"cpd00061", "cpd00146"})  # phosphoenolpyruvate, carbamoyl phosphate
# what else such a kinase may hold: pyruvate, carbamate (or CO2 + NH3, as ModelSEED writes it), water, H+
KINASE_PARTNERS = frozenset({"cpd00020", "cpd01101", "cpd00011", "cpd00013", "cpd00001", "cpd00067"})


def nucleotide_making_sign(stoichiometry: Mapping[str, float]) -> int | None:
    """For a cytosolic reaction ({cpd#####_c0: coefficient}) that moves a phosphate between
    phosphoenolpyruvate or carbamoyl phosphate and a nucleoside diphosphate: the direction that
    makes the triphosphate (+1 forward, -1 reverse); None for any other reaction."""
    compounds = cytosolic_compounds(stoichiometry)
    if compounds is None:
        return None
    donors = [c for c in HIGH_ENERGY_PHOSPHATES if compounds.get(c)]
    pairs = [(n, d) for n, d in NUCLEOTIDE_PAIRS.items() if compounds.get(n) and compounds.get(d)
             and compounds[n] * compounds[d] < 0]
    if len(donors) != 1 or len(pairs) != 1 or set(compounds) - {donors[0], *pairs[0]} - KINASE_PARTNERS:
        return None
    return 1 if compounds[donors[0]] < 0 else -1


def orient_nucleotide_making_kinases(model: cobra.Model) -> list[str]:
    """Close the direction of every pyruvate or carbamate kinase that would spend a nucleoside
    triphosphate to make phosphoenolpyruvate or carbamoyl phosphate (in place); returns the ids
    changed."""
    changed = []
    for reaction in model.reactions:
        if reaction.boundary:
            continue
        sign = nucleotide_making_sign({m.id: c for m, c in reaction.metabolites.items()})
        if sign is not None and runs_against(reaction, sign):
            keep_direction(reaction, sign, "kinase of a phosphoryl donor above ATP: makes the triphosphate only")
            changed.append(reaction.id)
    return changed


def reversed_atp_transport(model: cobra.Model, fluxes: Mapping[str, float]) -> list[tuple[str, float]]:
    """ATP-driven transporters carrying flux in their ATP-making direction in a flux solution
    (reaction id, flux), largest first."""
    found = [(rid, float(fluxes[rid])) for rid, sign in atp_driven_transporters(model).items()
             if rid in fluxes and float(fluxes[rid]) * sign < -ACTIVE]
    return sorted(found, key=lambda item: -abs(item[1]))
