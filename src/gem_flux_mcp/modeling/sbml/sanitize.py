"""An export copy of a model: the model as it will be written, with what SBML cannot hold
made valid; what is left out or renamed is said in a warning.

The stored model is never changed: `export_copy` works on `Model.copy()`, whose metabolites and
genes share their `notes`/`annotation` dicts with the original, so every change here assigns a
new dict instead of editing one in place.

What SBML (level 3, fbc 2) cannot hold as COBRApy writes it, and what is done:
- an id that is not an SBML SId after COBRApy's own escaping (the model id, compartment ids;
  metabolite, reaction and gene ids are always escaped by COBRApy): made one (`x.draft.gf` ->
  `x_draft_gf`), the model's original id kept as its name (or in its notes if it has a name);
- `fbc:chemicalFormula` must be element symbols with counts (`C6H12O6`, `R` groups allowed);
  anything else (`null`, `(C6H10O5)n`, `C6H11O9P.H2O`) is left out;
- `fbc:charge` is an integer: a fractional charge is left out;
- notes are XML-escaped (see notes.py); SBO terms must look like `SBO:0000247`, annotation
  identifiers must be text: others are left out;
- a reaction subsystem that no SBML group gives back is written as a group (COBRApy reads a
  reaction's subsystem from its groups);
- a gene without a name is named by its id (COBRApy would name it by its escaped SBML id).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.modeling.sbml.annotations import SBO_TERM, ModelAnnotations, merge_annotation
from gem_flux_mcp.modeling.sbml.notes import escape_notes

if TYPE_CHECKING:
    import cobra

CHEMICAL_FORMULA = re.compile(r"^(?:[A-Z][a-z]*\d*)+$")  # what libsbml accepts (else its error 2020303)
_SID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NOT_SID_CHARACTER = re.compile(r"[^A-Za-z0-9_]")
_SBO_GROUP_PARTONOMY = "SBO:0000633"
MISSING_COMPARTMENT = "unknown_compartment"
_EXAMPLES = 5


@dataclass
class ExportCopy:
    model: cobra.Model
    warnings: list[str] = field(default_factory=list)


def is_sid(text: object) -> bool:
    return isinstance(text, str) and bool(_SID.match(text))


def to_sid(text: object, taken: set[str] | frozenset[str] = frozenset(), fallback: str = "model") -> str:
    """A valid SBML SId for `text`: invalid characters become `_`, a leading digit gets `id_`,
    and a number is appended when the result is already taken."""
    base = _NOT_SID_CHARACTER.sub("_", str(text or "")).strip("_") or fallback
    if not _SID.match(base):
        base = f"id_{base}"
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}_{n}"
    return candidate


def is_chemical_formula(formula: object) -> bool:
    return isinstance(formula, str) and bool(CHEMICAL_FORMULA.match(formula))


def export_copy(model: cobra.Model, annotations: ModelAnnotations | None, sbml: bool) -> ExportCopy:
    """A copy of `model` with `annotations` merged in and, for SBML, made writable (module
    docstring). The caller releases the copy's solver (`solver_memory.release_model`)."""
    result = ExportCopy(model.copy())
    copy = result.model
    if annotations is not None:
        _merge_annotations(copy, annotations)
    if sbml:
        _sanitize_ids(copy, result.warnings)
        _sanitize_metabolites(copy, result.warnings)
        for gene in copy.genes:
            if not gene.name:  # COBRApy would write the escaped SBML id (G_NP_418647__46__1) as its name
                gene.name = gene.id
        _sanitize_annotations(copy, result.warnings)
        _subsystems_as_groups(copy)
        _escape_all_notes(copy)
    return result


def _merge_annotations(copy: cobra.Model, annotations: ModelAnnotations) -> None:
    for metabolite in copy.metabolites:
        metabolite.annotation = merge_annotation(metabolite.annotation, annotations.metabolites.get(metabolite.id))
    for reaction in copy.reactions:
        reaction.annotation = merge_annotation(reaction.annotation, annotations.reactions.get(reaction.id))
    for gene in copy.genes:
        gene.annotation = merge_annotation(gene.annotation, annotations.genes.get(gene.id))


def _sanitize_ids(copy: cobra.Model, warnings: list[str]) -> None:
    if not is_sid(copy.id):
        original = copy.id
        copy.id = to_sid(original)
        if not copy.name:
            copy.name = str(original or "")
            kept = "it is the model's name"
        else:
            copy.notes = {**copy.notes, "original_model_id": str(original)}
            kept = "it is in the model's notes as original_model_id"
        warnings.append(f"Model id {original!r} is not an SBML identifier; written as {copy.id!r} ({kept}).")
    used = {m.compartment for m in copy.metabolites}
    names = dict(copy.compartments)
    renamed: dict[str | None, str] = {}
    taken = {c for c in used if is_sid(c)}
    for compartment in sorted(used, key=str):
        if not is_sid(compartment):
            renamed[compartment] = to_sid(compartment, taken, MISSING_COMPARTMENT)
            taken.add(renamed[compartment])
    if not renamed:
        return
    for metabolite in copy.metabolites:
        if metabolite.compartment in renamed:
            metabolite.compartment = renamed[metabolite.compartment]
    compartments: dict[str, str] = {k: v for k, v in names.items() if k not in renamed}
    for old, new in renamed.items():
        compartments[new] = names.get(old) or str(old or "")  # the old id as the name when it had none
    # Model.copy() shares the compartment-name dict with the original: give the copy its own
    copy.__dict__["_compartments"] = compartments
    warnings.append("Compartment ids that are not SBML identifiers were renamed: "
                    + ", ".join(f"{old!r} -> {new!r}" for old, new in renamed.items()) + ".")


def _sanitize_metabolites(copy: cobra.Model, warnings: list[str]) -> None:
    dropped_formula: list[str] = []
    dropped_charge: list[str] = []
    for metabolite in copy.metabolites:
        formula = metabolite.formula
        if formula is not None and not is_chemical_formula(formula):
            if str(formula).strip():
                dropped_formula.append(f"{metabolite.id} ({formula!r})")
            metabolite.formula = None
        charge = metabolite.charge
        if charge is not None and not isinstance(charge, int):
            if isinstance(charge, float) and charge.is_integer():
                metabolite.charge = int(charge)
            else:
                dropped_charge.append(f"{metabolite.id} ({charge!r})")
                metabolite.charge = None
    if dropped_formula:
        warnings.append(f"{len(dropped_formula)} metabolite formula(s) are not chemical formulas and were left "
                        f"out of the SBML: {', '.join(dropped_formula[:_EXAMPLES])}"
                        + (" ..." if len(dropped_formula) > _EXAMPLES else "") + ".")
    if dropped_charge:
        warnings.append(f"{len(dropped_charge)} metabolite charge(s) are not integers and were left out of the "
                        f"SBML: {', '.join(dropped_charge[:_EXAMPLES])}.")


def _clean_annotation(annotation: dict[str, Any], where: str, dropped: list[str]) -> dict[str, Any]:
    """COBRApy's annotation shape with what it cannot write left out (recorded in `dropped`)."""
    clean: dict[str, Any] = {}
    for collection, value in annotation.items():
        if collection in ("sbo", "SBO"):
            term = value[0] if isinstance(value, list) and value else value
            if isinstance(term, str) and SBO_TERM.match(term.strip()):
                clean["sbo"] = term.strip()
            else:
                dropped.append(f"{where} sbo {value!r}")
            continue
        items = value if isinstance(value, list) else [value]
        kept: list[Any] = []
        for item in items:
            if isinstance(item, (tuple, list)) and len(item) == 2 and all(isinstance(x, str) for x in item):
                if item[1].strip():
                    kept.append(tuple(item))
                continue
            if isinstance(item, (str, int, float)) and not isinstance(item, bool) and str(item).strip():
                kept.append(str(item).strip())
            elif item not in (None, ""):
                dropped.append(f"{where} {collection} {item!r}")
        if kept:
            clean[str(collection)] = kept[0] if len(kept) == 1 and isinstance(kept[0], str) else kept
    return clean


def _sanitize_annotations(copy: cobra.Model, warnings: list[str]) -> None:
    dropped: list[str] = []
    for kind in ("metabolites", "reactions", "genes", "groups"):
        for obj in getattr(copy, kind):
            if obj.annotation:
                obj.annotation = _clean_annotation(obj.annotation, obj.id, dropped)
    if copy.annotation:
        copy.annotation = _clean_annotation(copy.annotation, "model", dropped)
    if dropped:
        warnings.append(f"{len(dropped)} annotation value(s) that SBML cannot hold were left out: "
                        + ", ".join(dropped[:_EXAMPLES]) + (" ..." if len(dropped) > _EXAMPLES else "") + ".")


def subsystem_read_back(reaction: cobra.Reaction, groups: list[Any]) -> str | None:
    """The subsystem COBRApy gives `reaction` when reading SBML: the name of the last group that
    has it as a member (None when no group has it)."""
    name = None
    for group in groups:
        if reaction in group.members:
            name = group.name
    return name


def _subsystems_as_groups(copy: cobra.Model) -> None:
    from cobra.core import Group

    groups = list(copy.groups)
    by_name: dict[str, list[Any]] = {}
    for reaction in copy.reactions:
        if reaction.subsystem and subsystem_read_back(reaction, groups) != reaction.subsystem:
            by_name.setdefault(reaction.subsystem, []).append(reaction)
    if not by_name:
        return
    taken = {g.id for g in groups} | {g.id for g in copy.genes}
    new_groups = []
    for name, members in by_name.items():
        group = Group(to_sid(f"subsystem_{name}", taken, "subsystem"), name=name, kind="partonomy")
        taken.add(group.id)
        group.annotation = {"sbo": _SBO_GROUP_PARTONOMY}
        group.add_members(members)
        new_groups.append(group)
    copy.add_groups(new_groups)


def _escape_all_notes(copy: cobra.Model) -> None:
    for kind in ("metabolites", "reactions", "genes", "groups"):
        for obj in getattr(copy, kind):
            if obj.notes:
                obj.notes = escape_notes(obj.notes)
    copy.notes = escape_notes(copy.notes or {})
    meta = getattr(copy, "_sbml", None)
    if isinstance(meta, dict):  # read from SBML: COBRApy writes its document notes back
        copy._sbml = {**meta, "notes": escape_notes(meta.get("notes") or {})}
