"""Kinases that take other nucleotides: where a genome has a kinase, the same enzyme's reactions
with another nucleoside triphosphate as the phosphoryl donor.

The ModelSEED database writes a kinase's donors as separate reactions under one EC number:
pyruvate kinase (EC 2.7.1.40) is rxn00148 with ATP, and rxn00304, rxn00411, rxn00460, rxn00517,
rxn00840 and rxn01354 with GTP, CTP, UTP, ITP, dATP and dGTP. The templates attach some of these
to an unrelated role (pyruvate kinase's other donors to galacturonokinase, EC 2.7.1.44), so a
draft gets the ATP reaction by homology and not the others. Pyruvate kinase's other nucleotides
are how a cell without nucleoside-diphosphate kinase makes GTP, CTP and UTP (E. coli and
B. subtilis ndk mutants grow); without them a draft called ndk essential.

The rule (`add_donor_variants`): for every reaction with genes whose template reaction is a
phosphotransferase (an EC number 2.7.-) turning ATP into ADP or AMP, each template reaction that
is the same with another nucleotide (its triphosphate, diphosphate and monophosphate in place of
ATP, ADP and AMP) and shares one of its EC numbers gets the same genes and the same bounds. The
direction rules that run later in the build (energy.py) apply to the new reactions as to any.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import cobra

# (triphosphate, diphosphate, monophosphate)
ADENOSINE = ("cpd00002", "cpd00008", "cpd00018")
OTHER_NUCLEOTIDES = (
    ("cpd00038", "cpd00031", "cpd00126"),  # GTP, GDP, GMP
    ("cpd00052", "cpd00096", "cpd00046"),  # CTP, CDP, CMP
    ("cpd00062", "cpd00014", "cpd00091"),  # UTP, UDP, UMP
    ("cpd00068", "cpd00090", "cpd00114"),  # ITP, IDP, IMP
    ("cpd00115", "cpd00177", "cpd00294"),  # dATP, dADP, dAMP
    ("cpd00241", "cpd00295", "cpd00296"),  # dGTP, dGDP, dGMP
    ("cpd00356", "cpd00533", "cpd00206"),  # dCTP, dCDP, dCMP
    ("cpd00357", "cpd00297", "cpd00298"),  # dTTP, dTDP, dTMP
    ("cpd00358", "cpd00978", "cpd00299"),  # dUTP, dUDP, dUMP
)
PHOSPHOTRANSFERASE = "2.7."
NOTE = "gemflux_donor_variant_of"  # note on an added reaction: the ATP reaction it copies

Stoichiometry = frozenset[tuple[str, float]]  # ((compound id with compartment letter, coefficient), ...)


def _stoichiometry(template_reaction: Any) -> dict[str, float]:
    """{compound_compartment (cpd00002_c): coefficient} of a template reaction."""
    found: dict[str, float] = {}
    for metabolite, value in template_reaction.metabolites.items():
        found[metabolite.id] = found.get(metabolite.id, 0.0) + value
    return found


def _with_donor(stoichiometry: Mapping[str, float], nucleotide: tuple[str, str, str]) -> Stoichiometry | None:
    """The stoichiometry with ATP, ADP and AMP replaced by `nucleotide`'s three phosphates; None
    when it holds no ATP with ADP or AMP, or holds a nucleotide other than adenosine's already."""
    compounds = {met.rsplit("_", 1)[0] for met in stoichiometry}
    if ADENOSINE[0] not in compounds or not compounds & set(ADENOSINE[1:]):
        return None
    if compounds & {c for other in OTHER_NUCLEOTIDES for c in other}:
        return None
    swap = dict(zip(ADENOSINE, nucleotide, strict=True))
    replaced: dict[str, float] = {}
    for met, value in stoichiometry.items():
        compound, compartment = met.rsplit("_", 1)
        key = f"{swap.get(compound, compound)}_{compartment}"
        replaced[key] = replaced.get(key, 0.0) + value
    return frozenset(replaced.items())


def donor_variants(template: Any, ec_numbers: Mapping[str, list[str]]) -> dict[str, list[tuple[str, int]]]:
    """{template reaction id with ATP (rxn00148_c): [(id of an other-donor reaction, +1 written the
    same way round or -1 reversed), ...]}, for the template's phosphotransferases (module docstring)."""
    donors = {other[0] for other in OTHER_NUCLEOTIDES}
    by_stoichiometry: dict[Stoichiometry, tuple[str, int]] = {}
    for reaction in template.reactions:  # the reactions a variant can be: with another triphosphate
        stoichiometry = _stoichiometry(reaction)
        if not any(met.rsplit("_", 1)[0] in donors for met in stoichiometry):
            continue
        by_stoichiometry[frozenset(stoichiometry.items())] = (reaction.id, 1)
        by_stoichiometry[frozenset((m, -v) for m, v in stoichiometry.items())] = (reaction.id, -1)
    found: dict[str, list[tuple[str, int]]] = {}
    for reaction in template.reactions:
        numbers = {n for n in ec_numbers.get(reaction.id.rsplit("_", 1)[0], []) if n.startswith(PHOSPHOTRANSFERASE)}
        if not numbers:
            continue
        stoichiometry = _stoichiometry(reaction)
        for nucleotide in OTHER_NUCLEOTIDES:
            key = _with_donor(stoichiometry, nucleotide)
            other = by_stoichiometry.get(key) if key is not None else None
            if other is not None and numbers & set(ec_numbers.get(other[0].rsplit("_", 1)[0], [])):
                found.setdefault(reaction.id, []).append(other)
    return found


def add_donor_variants(model: cobra.Model, template: Any, ec_numbers: Mapping[str, list[str]],
                       index: str = "0") -> dict[str, str]:
    """Add, with the genes and bounds of the ATP reaction, each kinase's reactions with another
    donor that the model lacks (module docstring). Returns {added reaction id: the ATP reaction's id}."""
    added: dict[str, str] = {}
    new = []
    for template_id, others in sorted(donor_variants(template, ec_numbers).items()):
        source_id = f"{template_id}{index}"
        if source_id not in model.reactions or not model.reactions.get_by_id(source_id).genes:
            continue
        source = model.reactions.get_by_id(source_id)
        for other, sign in others:
            rid = f"{other}{index}"
            if rid in model.reactions or rid in added:
                continue
            reaction = template.reactions.get_by_id(other).to_reaction(model, index)
            reaction.bounds = source.bounds if sign > 0 else (-source.upper_bound, -source.lower_bound)
            reaction.gene_reaction_rule = source.gene_reaction_rule
            reaction.notes[NOTE] = source_id
            new.append(reaction)
            added[rid] = source_id
    model.add_reactions(new)
    return added
