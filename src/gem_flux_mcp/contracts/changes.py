"""Contract changes between two snapshots, each classified as the versioning policy says
(``major`` or ``minor``; see the package's docstring), and the version bump they need."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gem_flux_mcp.contracts.schema_walk import DOC_KEYS, canon, inline_refs, show, strip_keys

Kind = Literal["major", "minor"]
Bump = Literal["major", "minor", "none"]
Side = Literal["input", "output"]
_Effect = Literal["widen", "narrow", "change"]


@dataclass(frozen=True)
class Change:
    """One contract difference between two snapshots."""

    kind: Kind
    tool: str
    path: str  # e.g. "search_compounds.input.limit"
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.kind}: {self.message}"


_KIND_BY_EFFECT: dict[Side, dict[_Effect, Kind]] = {
    # inputs: the new schema must accept everything the old one did
    "input": {"widen": "minor", "narrow": "major", "change": "major"},
    # outputs: the new schema must promise everything the old one did
    "output": {"widen": "major", "narrow": "minor", "change": "major"},
}
_CONSEQUENCE: dict[Side, dict[_Effect, str]] = {
    "input": {"widen": "", "narrow": "; calls valid before may now be rejected",
              "change": "; calls valid before may now be rejected"},
    "output": {"widen": "; clients may now receive values they do not expect", "narrow": "",
               "change": "; clients may now receive values they do not expect"},
}
# (keyword, True if a larger value is tighter)
_BOUNDS: tuple[tuple[str, bool], ...] = (
    ("minimum", True), ("exclusiveMinimum", True), ("minLength", True), ("minItems", True),
    ("minProperties", True), ("minContains", True),
    ("maximum", False), ("exclusiveMaximum", False), ("maxLength", False), ("maxItems", False),
    ("maxProperties", False), ("maxContains", False),
)
_RESTRICTIONS = ("pattern", "format", "multipleOf", "contentEncoding", "contentMediaType")
_HANDLED = frozenset(
    {"type", "enum", "const", "properties", "required", "additionalProperties", "items", "prefixItems",
     "default", "uniqueItems", "deprecated", "anyOf", "oneOf"}
    | {k for k, _ in _BOUNDS} | set(_RESTRICTIONS)
)
_NULL = {"type": "null"}


class _Comparer:
    def __init__(self, tool: str, side: Side) -> None:
        self.tool = tool
        self.side = side
        self.changes: list[Change] = []

    def add(self, kind: Kind, path: str, message: str) -> None:
        self.changes.append(Change(kind, self.tool, path, message))

    def effect(self, effect: _Effect, path: str, detail: str) -> None:
        self.add(_KIND_BY_EFFECT[self.side][effect], path, f"{self.side} {detail}{_CONSEQUENCE[self.side][effect]}")

    # -- one schema node ----------------------------------------------------------------
    def node(self, old: Any, new: Any, path: str) -> None:
        if canon(old) == canon(new):
            return
        if not isinstance(old, dict) or not isinstance(new, dict):
            self.add("major", path, f"{self.side} schema changed from {show(old)} to {show(new)}")
            return
        old, new = _merge_single_all_of(old), _merge_single_all_of(new)
        self.default(old, new, path)
        old_null, old_variants = _split_null(old)
        new_null, new_variants = _split_null(new)
        if old_null and not new_null:
            self.effect("narrow", path, "is no longer nullable" if self.side == "input" else "is never null now")
        elif new_null and not old_null:
            self.effect("widen", path, "is now nullable (accepts null)" if self.side == "input" else "may now be null")
        self.variants(old_variants, new_variants, path)

    def default(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        if canon(old.get("default")) == canon(new.get("default")) and ("default" in old) == ("default" in new):
            return
        if self.side == "input" and "default" in old:
            what = f"to {show(new['default'])}" if "default" in new else "removed"
            self.add("major", path, f"input default changed from {show(old['default'])} {what}; "
                                    "calls that omit it now behave differently")
        else:
            what = show(new["default"]) if "default" in new else "none"
            self.add("minor", path, f"{self.side} default is now {what}")

    def variants(self, old: list[Any], new: list[Any], path: str) -> None:
        new_left = list(new)
        old_left: list[Any] = []
        for variant in old:
            match = next((i for i, cand in enumerate(new_left) if canon(cand) == canon(variant)), None)
            if match is None:
                old_left.append(variant)
            else:
                new_left.pop(match)
        if not old_left and not new_left:
            return
        if len(old_left) == len(new_left):
            single = len(old) == 1 and len(new) == 1
            for i, (o, n) in enumerate(zip(old_left, new_left, strict=True)):
                self.core(o, n, path if single else f"{path}<variant {i}>")
            return
        for variant in old_left:
            self.effect("narrow", path, f"no longer allows {show(variant)}")
        for variant in new_left:
            self.effect("widen", path, f"now also allows {show(variant)}")

    # -- a non-union, non-null schema ---------------------------------------------------
    def core(self, old: Any, new: Any, path: str) -> None:
        if canon(old) == canon(new):
            return
        if not isinstance(old, dict) or not isinstance(new, dict):
            self.add("major", path, f"{self.side} schema changed from {show(old)} to {show(new)}")
            return
        self.types(old, new, path)
        self.enum(old, new, path)
        self.bounds(old, new, path)
        if {"properties", "required", "additionalProperties"} & (old.keys() | new.keys()):
            self.object(old, new, path)
        self.items(old, new, path)
        if old.get("deprecated", False) != new.get("deprecated", False):
            self.add("minor", path, f"{self.side} deprecated is now {bool(new.get('deprecated'))}")
        for key in sorted((old.keys() | new.keys()) - _HANDLED):
            if canon(old.get(key)) != canon(new.get(key)):
                self.add("major", path, f"{self.side} schema keyword {key!r} changed from "
                                        f"{show(old.get(key))} to {show(new.get(key))} (not classified)")

    def types(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        old_t, new_t = _types(old), _types(new)
        if old_t == new_t:
            return
        old_s, new_s = "|".join(sorted(old_t or {"any"})), "|".join(sorted(new_t or {"any"}))
        if _types_within(old_t, new_t):
            self.effect("widen", path, f"type widened from {old_s} to {new_s}")
        elif _types_within(new_t, old_t):
            self.effect("narrow", path, f"type narrowed from {old_s} to {new_s}")
        else:
            self.effect("change", path, f"type changed from {old_s} to {new_s}")

    def enum(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        old_e, new_e = _enum(old), _enum(new)
        if old_e == new_e:
            return
        if old_e is None:
            self.effect("narrow", path, f"is now restricted to {show(sorted(new_e or []))}")
        elif new_e is None:
            self.effect("widen", path, "is no longer restricted to fixed values")
        else:
            if old_e - new_e:
                self.effect("narrow", path, f"enum values removed: {', '.join(sorted(old_e - new_e))}")
            if new_e - old_e:
                self.effect("widen", path, f"enum values added: {', '.join(sorted(new_e - old_e))}")

    def bounds(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        for key, larger_is_tighter in _BOUNDS:
            o, n = old.get(key), new.get(key)
            if canon(o) == canon(n):
                continue
            if o is None:
                self.effect("narrow", path, f"{key} {show(n)} added")
            elif n is None:
                self.effect("widen", path, f"{key} {show(o)} removed")
            elif _is_number(o) and _is_number(n):
                tighter = (n > o) == larger_is_tighter
                self.effect("narrow" if tighter else "widen", path, f"{key} changed from {o} to {n}")
            else:
                self.effect("change", path, f"{key} changed from {show(o)} to {show(n)}")
        if bool(old.get("uniqueItems")) != bool(new.get("uniqueItems")):
            self.effect("narrow" if new.get("uniqueItems") else "widen", path,
                        f"uniqueItems is now {bool(new.get('uniqueItems'))}")
        for key in _RESTRICTIONS:
            o, n = old.get(key), new.get(key)
            if canon(o) == canon(n):
                continue
            if o is None:
                self.effect("narrow", path, f"{key} {show(n)} added")
            elif n is None:
                self.effect("widen", path, f"{key} {show(o)} removed")
            else:
                self.effect("change", path, f"{key} changed from {show(o)} to {show(n)}")

    def object(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        old_p: dict[str, Any] = old.get("properties") or {}
        new_p: dict[str, Any] = new.get("properties") or {}
        old_r, new_r = set(old.get("required") or []), set(new.get("required") or [])
        for name in old_p.keys() - new_p.keys():
            self.add("major", f"{path}.{name}", f"{self.side} property removed"
                     + ("; clients sending it are rejected or ignored" if self.side == "input"
                        else "; clients reading it break"))
        for name in new_p.keys() - old_p.keys():
            if self.side == "output":
                self.add("minor", f"{path}.{name}", "new output property")
            elif name in new_r:
                self.add("major", f"{path}.{name}", "new required input; existing calls lack it")
            else:
                self.add("minor", f"{path}.{name}", "new optional input")
        for name in sorted(old_p.keys() & new_p.keys()):
            sub = f"{path}.{name}"
            self.node(old_p[name], new_p[name], sub)
            was, now = name in old_r, name in new_r
            if was == now:
                continue
            if self.side == "input":
                if now:
                    self.add("major", sub, "input is now required; calls that omit it are rejected")
                else:
                    self.add("minor", sub, "input is now optional")
            elif was:
                self.add("major", sub, "output property no longer required; clients relying on it may break")
            else:
                self.add("minor", sub, "output property is now always present")
        for name in sorted((old_r - old_p.keys()) ^ (new_r - new_p.keys())):
            now = name in new_r
            self.effect("narrow" if now == (self.side == "input") else "widen", f"{path}.{name}",
                        f"undeclared property {'now' if now else 'no longer'} required")
        self.additional(old.get("additionalProperties", True), new.get("additionalProperties", True), path)

    def additional(self, old: Any, new: Any, path: str) -> None:
        if canon(old) == canon(new):
            return
        sub = f"{path}.*"
        if isinstance(old, dict) and isinstance(new, dict):
            self.node(old, new, sub)
        elif old is False or new is True:  # from nothing to something, or from something to anything
            self.effect("widen", sub, f"additional properties widened from {show(old)} to {show(new)}")
        else:  # old is True or a schema; new is False or a schema
            self.effect("narrow", sub, f"additional properties narrowed from {show(old)} to {show(new)}")

    def items(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        old_i, new_i = old.get("items"), new.get("items")
        if canon(old_i) != canon(new_i):
            sub = f"{path}[]"
            if isinstance(old_i, dict) and isinstance(new_i, dict):
                self.node(old_i, new_i, sub)
            elif old_i is None:
                self.effect("narrow", sub, f"items now constrained to {show(new_i)}")
            elif new_i is None:
                self.effect("widen", sub, "items no longer constrained")
            else:
                self.effect("change", sub, f"items changed from {show(old_i)} to {show(new_i)}")
        old_t, new_t = old.get("prefixItems"), new.get("prefixItems")
        if canon(old_t) != canon(new_t):
            if isinstance(old_t, list) and isinstance(new_t, list) and len(old_t) == len(new_t):
                for i, (o, n) in enumerate(zip(old_t, new_t, strict=True)):
                    self.node(o, n, f"{path}[{i}]")
            else:
                self.effect("change", path, f"tuple items changed from {show(old_t)} to {show(new_t)}")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _merge_single_all_of(node: dict[str, Any]) -> dict[str, Any]:
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        rest = {k: v for k, v in node.items() if k != "allOf"}
        return {**all_of[0], **rest}
    return node


def _split_null(node: dict[str, Any]) -> tuple[bool, list[Any]]:
    """(nullable, the non-null variants): ``anyOf: [X, {"type": "null"}]`` is nullable X;
    ``type: [X, "null"]`` likewise. ``default`` is compared separately and dropped here."""
    node = {k: v for k, v in node.items() if k != "default"}
    for key in ("anyOf", "oneOf"):
        alternatives = node.get(key)
        if isinstance(alternatives, list):
            siblings = {k: v for k, v in node.items() if k != key}
            nullable = any(canon(alt) == canon(_NULL) for alt in alternatives)
            variants = [{**siblings, **alt} if isinstance(alt, dict) else alt
                        for alt in alternatives if canon(alt) != canon(_NULL)]
            return nullable, variants
    types = node.get("type")
    if isinstance(types, list) and "null" in types:
        rest = [t for t in types if t != "null"]
        core = dict(node)
        if rest:
            core["type"] = rest[0] if len(rest) == 1 else rest
            return True, [core]
        return True, []
    if types == "null":
        return True, []
    return False, [node]


def _types(node: dict[str, Any]) -> frozenset[str] | None:
    value = node.get("type")
    if value is None:
        return None
    types = frozenset([value] if isinstance(value, str) else value)
    return types - {"integer"} if "number" in types else types


def _types_within(inner: frozenset[str] | None, outer: frozenset[str] | None) -> bool:
    if outer is None:
        return True
    if inner is None:
        return False
    return all(t in outer or (t == "integer" and "number" in outer) for t in inner)


def _enum(node: dict[str, Any]) -> frozenset[str] | None:
    if "const" in node:
        return frozenset({canon(node["const"])})
    values = node.get("enum")
    return frozenset(canon(v) for v in values) if isinstance(values, list) else None


# annotation -> (value assumed when absent, per the MCP spec; the safe value)
_HINTS: dict[str, tuple[bool, bool]] = {
    "readOnlyHint": (False, True),
    "destructiveHint": (True, False),
    "idempotentHint": (False, True),
    "openWorldHint": (True, False),
}


def _compare_annotations(tool: str, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[Change]:
    old, new = old or {}, new or {}
    changes: list[Change] = []
    for key in sorted(old.keys() | new.keys()):
        path = f"{tool}.annotations.{key}"
        if key in _HINTS:
            default, safe = _HINTS[key]
            was, now = old.get(key, default), new.get(key, default)
            if was == now:
                continue
            if now == safe:
                changes.append(Change("minor", tool, path, f"{key} {show(was)} → {show(now)} (safer to call)"))
            else:
                changes.append(Change("major", tool, path, f"{key} {show(was)} → {show(now)}: the tool is less "
                                                            "safe to call than clients were told"))
        elif key == "title":
            if old.get(key) != new.get(key):
                changes.append(Change("minor", tool, path, f"title {old.get(key)!r} → {new.get(key)!r}"))
        elif canon(old.get(key)) != canon(new.get(key)):
            changes.append(Change("major", tool, path, f"annotation {key} changed from {show(old.get(key))} to "
                                                       f"{show(new.get(key))} (not classified)"))
    return changes


def _schema_view(schema: Any) -> Any:
    """A schema as compared: refs inlined, documentation keywords dropped."""
    return strip_keys(inline_refs(schema, schema), DOC_KEYS)


def _compare_tool(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    changes: list[Change] = []
    comparer = _Comparer(name, "input")
    comparer.node(_schema_view(old.get("input_schema")), _schema_view(new.get("input_schema")), f"{name}.input")
    changes += comparer.changes
    old_out, new_out = old.get("output_schema"), new.get("output_schema")
    if old_out and not new_out:
        changes.append(Change("major", name, f"{name}.output", "output schema removed; clients relying on "
                                                               "structured results break"))
    elif new_out and not old_out:
        changes.append(Change("minor", name, f"{name}.output", "output schema added"))
    elif old_out and new_out:
        comparer = _Comparer(name, "output")
        comparer.node(_schema_view(old_out), _schema_view(new_out), f"{name}.output")
        changes += comparer.changes
    changes += _compare_annotations(name, old.get("annotations"), new.get("annotations"))
    if old.get("title") != new.get("title"):
        changes.append(Change("minor", name, f"{name}.title", f"title {old.get('title')!r} → {new.get('title')!r}"))
    for key in sorted((old.keys() | new.keys()) - {"input_schema", "output_schema", "annotations", "title"}):
        if canon(old.get(key)) != canon(new.get(key)):
            changes.append(Change("major", name, f"{name}.{key}", f"{key} changed (not classified)"))
    return changes


def compare(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Every contract change from snapshot ``old`` to snapshot ``new``, classified."""
    old_tools: Mapping[str, Any] = old.get("tools") or {}
    new_tools: Mapping[str, Any] = new.get("tools") or {}
    changes: list[Change] = []
    added = sorted(new_tools.keys() - old_tools.keys())
    for name in sorted(old_tools.keys() - new_tools.keys()):
        twins = [n for n in added if canon(new_tools[n]) == canon(old_tools[name])]
        hint = f" (renamed to {twins[0]}?)" if twins else ""
        changes.append(Change("major", name, name, f"tool removed{hint}; clients calling {name} break"))
    for name in added:
        changes.append(Change("minor", name, name, "new tool"))
    for name in sorted(old_tools.keys() & new_tools.keys()):
        changes += _compare_tool(name, old_tools[name], new_tools[name])
    return changes


def required_bump(changes: Iterable[Change]) -> Bump:
    kinds = {change.kind for change in changes}
    return "major" if "major" in kinds else "minor" if "minor" in kinds else "none"
