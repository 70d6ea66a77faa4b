"""libsbml's checks of SBML groups' members, made from one index of the model's identifiers.

libsbml finds the element a group member names by walking the whole model (`getElementBySId`)
for each member: ~10 ms a member on a genome-scale model, 60 % of checking a draft's file (its
333 exchanges) and ~20 s of iJO1366's (2,253 members in 37 subsystems), for checks that are a
set look-up each. `validate.libsbml_problems` runs libsbml's general checks on the model without
its groups and these in their place; every other libsbml check (the groups' identifiers among
them) still runs on the whole file. The same rules as libsbml's groups validator:

* a member names exactly one of `idRef` and `metaIdRef` (GroupsMemberAllowedAttributes);
* the element it names exists in the model (GroupsMemberIdRefMustBeSBase,
  GroupsMemberMetaIdRefMustBeSBase): the model-level lists are indexed; a name outside them (a
  species reference's id, say) is looked up by libsbml as before;
* no member names its own group or list of members (GroupsNotCircularReferences; groups may
  contain each other).

A file whose lists of members carry SBO terms, or whose members have ids or metaids of their own,
is left to libsbml entirely (its rules that groups sharing a member have consistent SBO terms and
that members naming members form no cycle are not repeated here); COBRApy writes neither.
`benchmarks/sbml_export.py` times the export both ways.
"""

from __future__ import annotations

from typing import Any

# model-level lists whose elements a group member may name: libsbml's getter of one and of the count
_CORE_LISTS = (("getFunctionDefinition", "getNumFunctionDefinitions"), ("getUnitDefinition", "getNumUnitDefinitions"),
               ("getCompartment", "getNumCompartments"), ("getSpecies", "getNumSpecies"),
               ("getParameter", "getNumParameters"), ("getReaction", "getNumReactions"), ("getEvent", "getNumEvents"))


_PREFIX = "libsbml consistency error (groups):"


def group_references_checked_here(model: Any) -> bool:
    """Whether the model has groups whose members these checks cover: no SBO term on a list of
    members, no member with an id or metaid of its own."""
    plugin = model.getPlugin("groups") if model is not None else None
    if plugin is None or plugin.getNumGroups() == 0:
        return False
    for i in range(plugin.getNumGroups()):
        group = plugin.getGroup(i)
        if group.getListOfMembers().isSetSBOTerm():
            return False
        for j in range(group.getNumMembers()):
            if group.getMember(j).isSetId() or group.getMember(j).isSetMetaId():
                return False
    return True


def _elements(model: Any) -> list[Any]:
    found: list[Any] = [model]
    for one, count in _CORE_LISTS:
        getter = getattr(model, one)
        found += [getter(i) for i in range(getattr(model, count)())]
    fbc = model.getPlugin("fbc")
    if fbc is not None:
        found += [fbc.getGeneProduct(i) for i in range(fbc.getNumGeneProducts())]
        found += [fbc.getObjective(i) for i in range(fbc.getNumObjectives())]
    groups = model.getPlugin("groups")
    for i in range(groups.getNumGroups()):
        group = groups.getGroup(i)
        found += [group, *(group.getMember(j) for j in range(group.getNumMembers()))]
    return found


def group_member_problems(model: Any) -> list[str]:
    """What libsbml's general checks of the groups' members would report, one line each."""
    ids: set[str] = set()
    metaids: set[str] = set()
    for element in _elements(model):
        if element.isSetIdAttribute():
            ids.add(element.getIdAttribute())
        if element.isSetMetaId():
            metaids.add(element.getMetaId())
    groups = model.getPlugin("groups")
    problems: list[str] = []
    for i in range(groups.getNumGroups()):
        group = groups.getGroup(i)
        label = group.getId() or group.getMetaId() or f"#{i + 1}"
        members = group.getListOfMembers()
        parent = {name for name in (group.getId(), group.getMetaId(), members.getId(), members.getMetaId()) if name}
        for j in range(group.getNumMembers()):
            member = group.getMember(j)
            by_id, by_meta = member.isSetIdRef(), member.isSetMetaIdRef()
            if by_id == by_meta:
                problems.append(f"{_PREFIX} a member of group {label} sets "
                                f"{'both idRef and metaIdRef' if by_id else 'neither idRef nor metaIdRef'}")
                continue
            name = member.getIdRef() if by_id else member.getMetaIdRef()
            if by_id:
                found = name in ids or model.getElementBySId(name) is not None
            else:
                found = name in metaids or model.getElementByMetaId(name) is not None
            if not found:
                problems.append(f"{_PREFIX} group {label} has a member whose {'idRef' if by_id else 'metaIdRef'} "
                                f"'{name}' names no element of the model")
            elif name in parent:
                problems.append(f"{_PREFIX} group {label} has a member naming its own group ('{name}')")
    return problems
