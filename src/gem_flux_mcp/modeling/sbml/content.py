"""What a model file must give back: a model's content in a comparable form, and the differences
between what was meant to be written and what reading the file gives.

Compared: model id, name, notes, annotation, objective (coefficients and direction);
compartments and their names; metabolites (name, compartment, formula, charge, notes,
annotation); reactions (name, bounds, stoichiometry, gene rule, subsystem, notes, annotation);
genes (name, notes, annotation); and for SBML the groups. Values are normalised the way the
formats store them (notes as stripped text, names with their whitespace collapsed, gene rules by
their boolean structure, annotations as sets of identifiers, numbers to 12 significant digits),
so only real losses differ.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.modeling.sbml.notes import decoded_notes, normalized_notes

if TYPE_CHECKING:
    import cobra

Content = dict[str, dict[str, Any]]  # section -> object id -> fields
_EXAMPLES = 5
_SIGNIFICANT = 12  # libsbml writes doubles with 15 significant digits; differences below this are not losses


def _number(value: float) -> float:
    return float(f"{float(value):.{_SIGNIFICANT}g}")


def objective_coefficients(model: cobra.Model) -> dict[str, float]:
    """{reaction id: coefficient} from the solver (not `Reaction.objective_coefficient`, whose
    sympy expressions leak memory: see model_io.objective_reaction_ids)."""
    coefficients = model.solver.objective.get_linear_coefficients(model.variables)
    found: dict[str, float] = {}
    for reaction in model.reactions:
        value = float(coefficients.get(reaction.forward_variable, 0.0))
        if value != 0.0:
            found[reaction.id] = value
    return found


def normalized_annotation(annotation: Any) -> dict[str, list[str]]:
    """{collection: sorted identifiers}; COBRApy's `(qualifier, id)` pairs count by their id and
    'SBO' as 'sbo' (the qualifier is not kept by COBRApy's SBML reader)."""
    result: dict[str, list[str]] = {}
    if not isinstance(annotation, dict):
        return result
    for collection, value in annotation.items():
        key = "sbo" if collection in ("sbo", "SBO") else str(collection)
        items = value if isinstance(value, list) else [value]
        identifiers = set()
        for item in items:
            if isinstance(item, (tuple, list)) and len(item) == 2:
                item = item[1]
            if item is not None and str(item).strip():
                identifiers.add(str(item).strip())
        if identifiers:
            result[key] = sorted(identifiers)
    return result


def _gene_rule(reaction: cobra.Reaction) -> str:
    """The gene rule by its meaning: nested and/or of one kind flattened, repeated terms dropped,
    terms sorted. `(A or B) or (A or B) or C` and `A or B or C` are one rule; SBML's fbc writes a
    rule's nesting its own way, so the text may change while the rule does not."""
    if reaction.gpr is None or reaction.gpr.body is None:
        return ""
    return _render(_canonical(reaction.gpr.body), top=True)


def _canonical(node: ast.AST) -> str | tuple[str, frozenset[Any]]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.BoolOp):
        kind = "and" if isinstance(node.op, ast.And) else "or"
        terms: set[Any] = set()
        for value in node.values:
            term = _canonical(value)
            if isinstance(term, tuple) and term[0] == kind:
                terms |= term[1]
            else:
                terms.add(term)
        return next(iter(terms)) if len(terms) == 1 else (kind, frozenset(terms))
    return ast.dump(node)  # not written by COBRApy; compared as it is


def _render(term: str | tuple[str, frozenset[Any]], top: bool = False) -> str:
    if isinstance(term, str):
        return term
    text = f" {term[0]} ".join(sorted(_render(t) for t in term[1]))
    return text if top else f"({text})"


def _name(value: str | None) -> str:
    """A name as SBML keeps it: runs of whitespace as one space, none at the ends."""
    return " ".join((value or "").split())


def model_content(model: cobra.Model, sbml: bool, escaped_notes: bool = False) -> Content:
    """The content of `model` in comparable form (`sbml`: as SBML stores it, groups included;
    `escaped_notes`: the model's notes are XML-escaped, as in an export copy, see notes.py)."""

    def notes(values: Any) -> dict[str, str]:
        values = values or {}
        return normalized_notes(decoded_notes(values) if escaped_notes else values)

    content: Content = {
        "model": {"model": {
            "id": model.id or "",
            "name": _name(model.name),
            "notes": notes(model.notes),
            "annotation": normalized_annotation(model.annotation),
            "objective": {k: _number(v) for k, v in objective_coefficients(model).items()},
            "objective direction": model.solver.objective.direction,
        }},
        "compartments": {str(k): {"name": _name(v)} for k, v in model.compartments.items()},
        "metabolites": {m.id: {
            "name": _name(m.name), "compartment": m.compartment or "", "formula": m.formula or None,
            # COBRApy's SBML reader gives a species without fbc:charge the charge 0
            "charge": (0.0 if sbml else None) if m.charge is None else _number(m.charge),
            "notes": notes(m.notes), "annotation": normalized_annotation(m.annotation),
        } for m in model.metabolites},
        "reactions": {},
        "genes": {g.id: {
            "name": _name(g.name),
            "notes": notes(g.notes), "annotation": normalized_annotation(g.annotation),
        } for g in model.genes},
    }
    for r in model.reactions:
        fields: dict[str, Any] = {
            "name": _name(r.name), "bounds": (_number(r.lower_bound), _number(r.upper_bound)),
            "stoichiometry": {m.id: _number(c) for m, c in r.metabolites.items()}, "gene rule": _gene_rule(r),
            "notes": notes(r.notes), "annotation": normalized_annotation(r.annotation),
        }
        if r.subsystem:  # read back from SBML groups, which may also name reactions that had none
            fields["subsystem"] = r.subsystem
        content["reactions"][r.id] = fields
    if sbml:
        document = getattr(model, "_sbml", None)
        if isinstance(document, dict) and document.get("notes"):
            content["model"]["model"]["document notes"] = notes(document["notes"])
        content["groups"] = {g.id: {"name": g.name or "", "kind": g.kind,
                                    "members": sorted(f"{type(m).__name__}:{m.id}" for m in g.members),
                                    "notes": notes(g.notes),
                                    "annotation": normalized_annotation(g.annotation)} for g in model.groups}
    return content


def _examples(ids: list[str]) -> str:
    return ", ".join(ids[:_EXAMPLES]) + (f" and {len(ids) - _EXAMPLES} more" if len(ids) > _EXAMPLES else "")


def content_differences(expected: Content, found: Content) -> list[str]:
    """What `found` lacks or has changed compared with `expected`, one line per section and
    field ('reactions: notes differ for 3 (rxn00134_c0, ...)'). Fields `found` has and
    `expected` does not (a subsystem COBRApy derives from a group) are not differences."""
    problems: list[str] = []
    for section, objects in expected.items():
        got = found.get(section, {})
        missing = [key for key in objects if key not in got]
        extra = [key for key in got if key not in objects]
        if missing:
            problems.append(f"{section}: {len(missing)} missing from the file ({_examples(missing)})")
        if extra:
            problems.append(f"{section}: {len(extra)} in the file that the model does not have ({_examples(extra)})")
        differing: dict[str, list[str]] = {}
        for key, fields in objects.items():
            if key not in got:
                continue
            for name, value in fields.items():
                if got[key].get(name) != value:
                    differing.setdefault(name, []).append(key)
        for name, keys in differing.items():
            example = keys[0]
            problems.append(f"{section}: {name} differs for {len(keys)} ({_examples(keys)}); e.g. {example}: "
                            f"{_short(objects[example][name])} written as {_short(got[example].get(name))}")
    return problems


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."
