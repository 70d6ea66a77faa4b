"""Enzymes outside the cell: cytosolic template reactions run in e0, and the broad phosphatases.

The two-compartment templates hold every enzyme's chemistry in the cytosol. Where homology shows
an enzyme that works outside the cell (a periplasmic nucleotidase, a secreted amylase; see
`bigg_match`), the build adds an outside copy of the cytosolic template reaction (`outside_copy`).

**Phosphate esters broken down outside** (`add_outside_phosphatases`). Bacteria take phosphorus
from organic phosphates through phosphatases of broad specificity in the periplasm or outside the
cell: alkaline phosphatase (PhoA; B. subtilis PhoA and PhoB), class A and B acid phosphatases,
5'- and 3'-nucleotidases. They hydrolyse almost any phosphomonoester, and the free phosphate is
taken up; a reference model lists only the handful of substrates someone measured, so a draft
could use glucose-6-phosphate but not 2-phosphoglycerate or dTMP as its phosphorus source (E. coli
and B. subtilis grow on nearly every well of Biolog's phosphorus plate). Here a genome has such
an enzyme when a gene carries outside hydrolyses of at least `BROAD` different phosphomonoesters
(homology to a periplasmic phosphatase of a reference model), or a reaction whose only EC number
is 3.1.3.1 (alkaline phosphatase: the bacterial enzymes are exported, their metal sites fold
outside the cytosol). Such a genome gets the outside copy of every template hydrolysis
`X + H2O -> Y + phosphate` of a compound X the template knows outside the cell (EC 3.1.3.- or no
EC number; and di- and triphosphate, EC 3.6.1.1, which alkaline phosphatase also cleaves), with
those genes, in the hydrolysing direction only (run backwards outside it would phosphorylate
without ATP). Exchanges for the new outside compounds come with the build's other exchanges.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import cobra

WATER = "cpd00001"
PHOSPHATE = "cpd00009"
PROTON = "cpd00067"
PHOSPHOMONOESTERASE = "3.1.3."  # EC sub-subclass: phosphoric-monoester hydrolases
PYROPHOSPHATASE = "3.6.1.1"  # inorganic diphosphatase (diphosphate, triphosphate)
ALKALINE_PHOSPHATASE = "3.1.3.1"
BROAD = 3  # different outside substrates that make a gene a broad phosphatase
NOTE = "gemflux_outside_phosphatase"  # note on an added reaction: the genes it rests on


def outside_copy(model: cobra.Model, reaction: cobra.Reaction, rid: str) -> cobra.Reaction:
    """The cytosolic template reaction run in e0 (an enzyme outside the cell; see bigg_match)."""
    from cobra import Metabolite, Reaction

    copy = Reaction(rid, f"{reaction.name} (outside the cell)", reaction.subsystem,
                    reaction.lower_bound, reaction.upper_bound)
    copy.annotation.update(reaction.annotation)
    coefficients: dict[Metabolite, float] = {}
    for metabolite, value in reaction.metabolites.items():
        outside_id = metabolite.id.rsplit("_", 1)[0] + "_e0"
        if outside_id in model.metabolites:
            outside = model.metabolites.get_by_id(outside_id)
        else:
            outside = Metabolite(outside_id, metabolite.formula, outside_name(metabolite.name), metabolite.charge, "e0")
            outside.annotation.update(metabolite.annotation)
        coefficients[outside] = coefficients.get(outside, 0.0) + value
    copy.add_metabolites(coefficients)
    return copy


def outside_name(name: str) -> str:
    """A cytosolic metabolite's name for its copy outside: `Glycerol-3-phosphate [c0]` ->
    `Glycerol-3-phosphate [e0]` (the copy kept the cytosolic name, so a reaction that moves a
    compound across read as if it did not: `Na+ [e0] + H+ [c0] <=> Na+ [c0] + H+ [c0]`)."""
    stem, bracket, place = name.rpartition(" [")
    if bracket and place.startswith("c") and place.endswith("]"):
        return f"{stem} [e{place[1:-1]}]"
    return name


def hydrolysis_sides(coefficients: Mapping[str, float]) -> tuple[str, str, float] | None:
    """(ester, product, sign) when {compound id: coefficient} is `ester + H2O <=> product +
    phosphate` in the direction `sign` (+1 as written, -1 backwards), one of each, protons aside
    (diphosphate: `PPi + H2O <=> 2 phosphate`, product phosphate); None otherwise."""
    kept = {cid: value for cid, value in coefficients.items() if cid != PROTON and abs(value) > 1e-9}
    if set(kept) - {WATER, PHOSPHATE} == set() or WATER not in kept or PHOSPHATE not in kept:
        return None
    sign = 1.0 if kept[PHOSPHATE] > 0 else -1.0
    esters = [cid for cid, value in kept.items() if cid not in (WATER, PHOSPHATE) and value * sign < 0]
    products = [cid for cid, value in kept.items() if cid not in (WATER, PHOSPHATE) and value * sign > 0]
    if kept[WATER] * sign != -1 or len(esters) != 1 or kept[esters[0]] * sign != -1:
        return None
    if not products and kept[PHOSPHATE] * sign == 2:  # diphosphate: both halves are phosphate
        return esters[0], PHOSPHATE, sign
    if len(products) != 1 or kept[PHOSPHATE] * sign != 1 or kept[products[0]] * sign != 1:
        return None
    return esters[0], products[0], sign


def _compound_coefficients(reaction: Any) -> dict[str, float]:
    """{compound id without compartment: net coefficient} of a model or template reaction."""
    found: dict[str, float] = {}
    for metabolite, value in reaction.metabolites.items():
        cid = metabolite.id.rsplit("_", 1)[0]
        found[cid] = found.get(cid, 0.0) + value
    return found


def broad_phosphatase_genes(model: cobra.Model, ec_numbers: Mapping[str, list[str]]) -> set[str]:
    """Genes of a phosphatase of broad specificity outside the cell (see the module docstring).
    `ec_numbers`: {ModelSEED reaction id: its EC numbers}."""
    substrates: dict[str, set[str]] = {}
    found: set[str] = set()
    for reaction in model.reactions:
        if not reaction.genes:
            continue
        base = reaction.id.split("_")[0]
        if ec_numbers.get(base) == [ALKALINE_PHOSPHATASE]:
            found.update(g.id for g in reaction.genes)
        if reaction.compartments != {"e0"}:
            continue
        sides = hydrolysis_sides(_compound_coefficients(reaction))
        if sides is not None:
            for gene in reaction.genes:
                substrates.setdefault(gene.id, set()).add(sides[0])
    return found | {gene for gene, esters in substrates.items() if len(esters) >= BROAD}


def outside_hydrolyses(template: Any, ec_numbers: Mapping[str, list[str]]) -> dict[str, tuple[str, float]]:
    """{cytosolic template reaction id: (ester, direction)} for the template's hydrolyses of a
    phosphate ester (EC 3.1.3.-, or no EC number: the template's mannose-6-phosphatase,
    phosphotyrosine phosphatase, ...) or of di- and triphosphate (EC 3.6.1.1), of compounds the
    template also has outside the cell."""
    outside = {c.id.rsplit("_", 1)[0] for c in template.compcompounds if c.compartment == "e"}
    found: dict[str, tuple[str, float]] = {}
    for reaction in template.reactions:
        if not reaction.id.endswith("_c") or any(m.compartment != "c" for m in reaction.metabolites):
            continue
        numbers = ec_numbers.get(reaction.id[:-2], [])
        if numbers and not any(ec.startswith(PHOSPHOMONOESTERASE) or ec == PYROPHOSPHATASE for ec in numbers):
            continue
        sides = hydrolysis_sides(_compound_coefficients(reaction))
        if sides is not None and sides[0] in outside:
            found[reaction.id] = (sides[0], sides[2])
    return found


def add_outside_phosphatases(model: cobra.Model, template: Any, ec_numbers: Mapping[str, list[str]],
                             index: str = "0") -> list[str]:
    """Give a genome with a broad outside phosphatase the outside hydrolysis of every
    phosphomonoester the template knows outside the cell (see the module docstring). Returns the
    ids of the reactions added ([] without such genes)."""
    genes = broad_phosphatase_genes(model, ec_numbers)
    if not genes:
        return []
    rule = " or ".join(sorted(genes))
    present_esters = {sides[0] for r in model.reactions if r.compartments == {f"e{index}"}
                      for sides in [hydrolysis_sides(_compound_coefficients(r))] if sides is not None}
    added = []
    for template_id, (ester, sign) in sorted(outside_hydrolyses(template, ec_numbers).items()):
        rid = f"{template_id[:-2]}_e{index}"
        if rid in model.reactions or ester in present_esters:
            continue
        reaction = outside_copy(model, template.reactions.get_by_id(template_id).to_reaction(model, index), rid)
        reaction.bounds = (0.0, 1000.0) if sign > 0 else (-1000.0, 0.0)
        reaction.gene_reaction_rule = rule
        reaction.notes[NOTE] = rule
        reaction.annotation["sbo"] = "SBO:0000176"
        added.append(reaction)
        present_esters.add(ester)
    model.add_reactions(added)
    return [r.id for r in added]
