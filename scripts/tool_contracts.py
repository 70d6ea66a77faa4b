"""Versioned tool contracts: a checked-in snapshot of every tool's schemas and a checker.

The tool contract (each tool's input schema, output schema, annotations and title, as a
client sees them in ``tools/list``) carries its own semantic version, ``CONTRACT_VERSION``,
separate from the package version. Within a major version the contract only grows:

* **major** (X+1.0.0): a tool removed or renamed; an input property removed; a new required
  input; an input type changed or narrowed (enum values removed, nullable removed, tighter
  bounds, ...); an output property removed, its type changed or widened (e.g. may now be
  null), or no longer required; annotations that make a tool less safe to call
  (readOnlyHint true→false, destructiveHint false→true, idempotentHint true→false,
  openWorldHint false→true); anything else the checker cannot classify.
* **minor** (X.Y+1.0): a new tool; a new optional input; a new output property; an input
  widened (made nullable, enum values added, looser bounds); an output narrowed (never null
  now, now always present); annotation changes in the safe direction; title changes.

Descriptions (of tools and inside schemas) are not part of the contract: they are left out
of the snapshot and may change freely. Schema titles are kept in the snapshot but are
documentation: a change there only needs ``--update``, no version bump.

Workflow after changing a tool: bump ``CONTRACT_VERSION`` (in ``gem_flux_mcp/__init__.py``) as
``--check`` says, run ``python scripts/tool_contracts.py --update`` (it refuses while the bump is
missing or too small) and add a ``## <version>`` entry to CHANGELOG.md.
``tests/test_contracts.py`` runs the same check.

A repository script, not part of the package: the snapshot it reads and writes lives in the
repository. The live contract comes from the server app as ``create_app()`` builds it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from gem_flux_mcp import CONTRACT_VERSION

REPO_ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT_PATH = REPO_ROOT / "contracts" / "tools.json"
CHANGELOG_PATH = REPO_ROOT / "CHANGELOG.md"
UPDATE_COMMAND = "python scripts/tool_contracts.py --update"

Kind = Literal["major", "minor"]
Bump = Literal["major", "minor", "none"]
Side = Literal["input", "output"]
_Effect = Literal["widen", "narrow", "change"]

__all__ = [
    "CHANGELOG_PATH",
    "CONTRACT_VERSION",
    "SNAPSHOT_PATH",
    "Change",
    "check",
    "compare",
    "live_snapshot",
    "main",
    "next_version",
    "parse_version",
    "render",
    "required_bump",
    "review",
    "tool_contract",
    "update",
]


@dataclass(frozen=True)
class Change:
    """One contract difference between two snapshots."""

    kind: Kind
    tool: str
    path: str  # e.g. "search_compounds.input.limit"
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.kind}: {self.message}"


# --------------------------------------------------------------------------------------
# JSON-schema walking

# keywords whose value is a schema / a list of schemas / a name -> schema map
_SCHEMA_KEYS = frozenset({
    "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
    "unevaluatedItems", "unevaluatedProperties", "additionalItems",
})
_SCHEMA_LIST_KEYS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_MAP_KEYS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
# documentation only: never a contract change
_DOC_KEYS = frozenset({"title", "description", "examples", "$comment", "$schema"})

_Fn = Callable[[Any], Any]


def _map_subschemas(node: Mapping[str, Any], fn: _Fn) -> dict[str, Any]:
    """A copy of a schema node with ``fn`` applied to every direct subschema."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _SCHEMA_KEYS:
            out[key] = [fn(v) for v in value] if isinstance(value, list) else fn(value)
        elif key in _SCHEMA_LIST_KEYS and isinstance(value, list):
            out[key] = [fn(v) for v in value]
        elif key in _SCHEMA_MAP_KEYS and isinstance(value, dict):
            out[key] = {name: fn(v) for name, v in value.items()}
        else:
            out[key] = value
    return out


def _strip_keys(schema: Any, keys: frozenset[str]) -> Any:
    """``schema`` without the given keywords at schema positions (property *names* such as a
    property called "description" are kept)."""
    if not isinstance(schema, dict):
        return schema
    kept = {k: v for k, v in schema.items() if k not in keys}
    return _map_subschemas(kept, lambda sub: _strip_keys(sub, keys))


def _pointer(root: Any, ref: str) -> Any:
    """Resolve a local JSON pointer ("#/$defs/Name"); None when it does not resolve."""
    if not ref.startswith("#"):
        return None
    node = root
    for raw in ref[1:].split("/")[1:] if ref != "#" else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _inline(schema: Any, root: Any, stack: tuple[str, ...] = ()) -> Any:
    """``schema`` with every resolvable local ``$ref`` replaced by its target (siblings of the
    ``$ref`` merged in) and ``$defs``/``definitions`` dropped. A recursive reference is left
    as ``{"$ref": ...}`` at its second occurrence."""
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref not in stack:
        target = _pointer(root, ref)
        if target is not None:
            merged = dict(_inline(target, root, (*stack, ref))) if isinstance(target, dict) else {}
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            merged.update(_inline(siblings, root, stack))
            return merged
    body = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    return _map_subschemas(body, lambda sub: _inline(sub, root, stack))


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _show(value: Any, limit: int = 80) -> str:
    text = _canon(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------------------
# Snapshots


def tool_contract(input_schema: Any, output_schema: Any, annotations: Any, title: Any) -> dict[str, Any]:
    """The contract of one tool as stored in the snapshot: descriptions stripped, keys sorted
    when serialised. ``annotations`` is the wire dict (camelCase) or None."""
    return {
        "annotations": dict(annotations) if annotations else None,
        "input_schema": _strip_keys(input_schema, frozenset({"description"})),
        "output_schema": _strip_keys(output_schema, frozenset({"description"})) if output_schema else None,
        "title": title,
    }


async def _live_snapshot_async() -> dict[str, Any]:
    from gem_flux_mcp.server.app import create_app  # lazy: FastMCP and the tools load only when needed

    tools: dict[str, Any] = {}
    for tool in await create_app().list_tools():
        wire = tool.to_mcp_tool()  # what tools/list sends (title falls back to annotations.title)
        annotations = (
            wire.annotations.model_dump(by_alias=True, exclude_none=True, mode="json") if wire.annotations else None
        )
        tools[wire.name] = tool_contract(wire.input_schema, wire.output_schema, annotations, wire.title)
    return {"contract_version": CONTRACT_VERSION, "tools": dict(sorted(tools.items()))}


def live_snapshot() -> dict[str, Any]:
    """The contract of the app as built by ``create_app()`` (no resources needed)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_live_snapshot_async())
    # called from async code: run the app's event-loop work on a thread of its own
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _live_snapshot_async()).result()


def render(snapshot: Mapping[str, Any]) -> str:
    """The snapshot file's text: pretty JSON, sorted keys, trailing newline."""
    return json.dumps(snapshot, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------------------
# Comparison

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
        if _canon(old) == _canon(new):
            return
        if not isinstance(old, dict) or not isinstance(new, dict):
            self.add("major", path, f"{self.side} schema changed from {_show(old)} to {_show(new)}")
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
        if _canon(old.get("default")) == _canon(new.get("default")) and ("default" in old) == ("default" in new):
            return
        if self.side == "input" and "default" in old:
            what = f"to {_show(new['default'])}" if "default" in new else "removed"
            self.add("major", path, f"input default changed from {_show(old['default'])} {what}; "
                                    "calls that omit it now behave differently")
        else:
            what = _show(new["default"]) if "default" in new else "none"
            self.add("minor", path, f"{self.side} default is now {what}")

    def variants(self, old: list[Any], new: list[Any], path: str) -> None:
        new_left = list(new)
        old_left: list[Any] = []
        for variant in old:
            match = next((i for i, cand in enumerate(new_left) if _canon(cand) == _canon(variant)), None)
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
            self.effect("narrow", path, f"no longer allows {_show(variant)}")
        for variant in new_left:
            self.effect("widen", path, f"now also allows {_show(variant)}")

    # -- a non-union, non-null schema ---------------------------------------------------
    def core(self, old: Any, new: Any, path: str) -> None:
        if _canon(old) == _canon(new):
            return
        if not isinstance(old, dict) or not isinstance(new, dict):
            self.add("major", path, f"{self.side} schema changed from {_show(old)} to {_show(new)}")
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
            if _canon(old.get(key)) != _canon(new.get(key)):
                self.add("major", path, f"{self.side} schema keyword {key!r} changed from "
                                        f"{_show(old.get(key))} to {_show(new.get(key))} (not classified)")

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
            self.effect("narrow", path, f"is now restricted to {_show(sorted(new_e or []))}")
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
            if _canon(o) == _canon(n):
                continue
            if o is None:
                self.effect("narrow", path, f"{key} {_show(n)} added")
            elif n is None:
                self.effect("widen", path, f"{key} {_show(o)} removed")
            elif _is_number(o) and _is_number(n):
                tighter = (n > o) == larger_is_tighter
                self.effect("narrow" if tighter else "widen", path, f"{key} changed from {o} to {n}")
            else:
                self.effect("change", path, f"{key} changed from {_show(o)} to {_show(n)}")
        if bool(old.get("uniqueItems")) != bool(new.get("uniqueItems")):
            self.effect("narrow" if new.get("uniqueItems") else "widen", path,
                        f"uniqueItems is now {bool(new.get('uniqueItems'))}")
        for key in _RESTRICTIONS:
            o, n = old.get(key), new.get(key)
            if _canon(o) == _canon(n):
                continue
            if o is None:
                self.effect("narrow", path, f"{key} {_show(n)} added")
            elif n is None:
                self.effect("widen", path, f"{key} {_show(o)} removed")
            else:
                self.effect("change", path, f"{key} changed from {_show(o)} to {_show(n)}")

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
        if _canon(old) == _canon(new):
            return
        sub = f"{path}.*"
        if isinstance(old, dict) and isinstance(new, dict):
            self.node(old, new, sub)
        elif old is False or new is True:  # from nothing to something, or from something to anything
            self.effect("widen", sub, f"additional properties widened from {_show(old)} to {_show(new)}")
        else:  # old is True or a schema; new is False or a schema
            self.effect("narrow", sub, f"additional properties narrowed from {_show(old)} to {_show(new)}")

    def items(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        old_i, new_i = old.get("items"), new.get("items")
        if _canon(old_i) != _canon(new_i):
            sub = f"{path}[]"
            if isinstance(old_i, dict) and isinstance(new_i, dict):
                self.node(old_i, new_i, sub)
            elif old_i is None:
                self.effect("narrow", sub, f"items now constrained to {_show(new_i)}")
            elif new_i is None:
                self.effect("widen", sub, "items no longer constrained")
            else:
                self.effect("change", sub, f"items changed from {_show(old_i)} to {_show(new_i)}")
        old_t, new_t = old.get("prefixItems"), new.get("prefixItems")
        if _canon(old_t) != _canon(new_t):
            if isinstance(old_t, list) and isinstance(new_t, list) and len(old_t) == len(new_t):
                for i, (o, n) in enumerate(zip(old_t, new_t, strict=True)):
                    self.node(o, n, f"{path}[{i}]")
            else:
                self.effect("change", path, f"tuple items changed from {_show(old_t)} to {_show(new_t)}")


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
            nullable = any(_canon(alt) == _canon(_NULL) for alt in alternatives)
            variants = [{**siblings, **alt} if isinstance(alt, dict) else alt
                        for alt in alternatives if _canon(alt) != _canon(_NULL)]
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
        return frozenset({_canon(node["const"])})
    values = node.get("enum")
    return frozenset(_canon(v) for v in values) if isinstance(values, list) else None


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
                changes.append(Change("minor", tool, path, f"{key} {_show(was)} → {_show(now)} (safer to call)"))
            else:
                changes.append(Change("major", tool, path, f"{key} {_show(was)} → {_show(now)}: the tool is less "
                                                            "safe to call than clients were told"))
        elif key == "title":
            if old.get(key) != new.get(key):
                changes.append(Change("minor", tool, path, f"title {old.get(key)!r} → {new.get(key)!r}"))
        elif _canon(old.get(key)) != _canon(new.get(key)):
            changes.append(Change("major", tool, path, f"annotation {key} changed from {_show(old.get(key))} to "
                                                       f"{_show(new.get(key))} (not classified)"))
    return changes


def _schema_view(schema: Any) -> Any:
    """A schema as compared: refs inlined, documentation keywords dropped."""
    return _strip_keys(_inline(schema, schema), _DOC_KEYS)


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
        if _canon(old.get(key)) != _canon(new.get(key)):
            changes.append(Change("major", name, f"{name}.{key}", f"{key} changed (not classified)"))
    return changes


def compare(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Every contract change from snapshot ``old`` to snapshot ``new``, classified."""
    old_tools: Mapping[str, Any] = old.get("tools") or {}
    new_tools: Mapping[str, Any] = new.get("tools") or {}
    changes: list[Change] = []
    added = sorted(new_tools.keys() - old_tools.keys())
    for name in sorted(old_tools.keys() - new_tools.keys()):
        twins = [n for n in added if _canon(new_tools[n]) == _canon(old_tools[name])]
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


# --------------------------------------------------------------------------------------
# Versions, review and the file-level check

_VERSION = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


def parse_version(version: Any) -> tuple[int, int, int]:
    match = _VERSION.match(str(version))
    if not match:
        raise ValueError(f"not a MAJOR.MINOR.PATCH version: {version!r}")
    return int(match[1]), int(match[2]), int(match[3])


def next_version(version: str, bump: Bump) -> str:
    major, minor, patch = parse_version(version)
    if bump == "major":
        return f"{major + 1}.0.0"
    if bump == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch}"


def _bump_level(old: tuple[int, int, int], new: tuple[int, int, int]) -> int:
    """0 none or patch, 1 minor, 2 major."""
    if new[0] > old[0]:
        return 2
    if new[0] == old[0] and new[1] > old[1]:
        return 1
    return 0


def _has_heading(changelog: str, version: str) -> bool:
    pattern = rf"^##\s+\[?v?{re.escape(version)}\]?(?=\s|$)"
    return re.search(pattern, changelog, flags=re.MULTILINE) is not None


def _todo(version: str) -> str:
    return (f"bump CONTRACT_VERSION to {version}, run `{UPDATE_COMMAND}`, "
            f"and add a `## {version}` entry to CHANGELOG.md (CONTRACT_VERSION is in src/gem_flux_mcp/__init__.py)")


def _bump_problems(old: Mapping[str, Any], new: Mapping[str, Any], changes: list[Change]) -> list[str]:
    try:
        old_v = parse_version(old.get("contract_version"))
    except ValueError as exc:
        return [f"snapshot: {exc}; run `{UPDATE_COMMAND}` to rewrite it"]
    try:
        new_v = parse_version(new.get("contract_version"))
    except ValueError as exc:
        return [f"CONTRACT_VERSION: {exc}"]
    old_s, new_s = ".".join(map(str, old_v)), ".".join(map(str, new_v))
    if new_v < old_v:
        return [f"CONTRACT_VERSION went backwards: {new_s} is lower than the snapshot's {old_s}"]
    needed = required_bump(changes)
    if needed == "none":
        return []
    target = next_version(old_s, needed)
    level = _bump_level(old_v, new_v)
    return [
        f"{change.path}: {change.kind} change ({change.message}) needs at least a {change.kind} version bump, "
        f"but CONTRACT_VERSION is {new_s} (snapshot {old_s}): {_todo(target)}"
        for change in changes
        if (2 if change.kind == "major" else 1) > level
    ]


def review(old: Mapping[str, Any], new: Mapping[str, Any], changelog: str | None) -> list[str]:
    """Problems with the step from snapshot ``old`` to snapshot ``new``: the version bump the
    changes need and the CHANGELOG entry for the new version. ``changelog`` is the text of
    CHANGELOG.md (None when it is missing)."""
    problems = _bump_problems(old, new, compare(old, new))
    version = str(new.get("contract_version"))
    if changelog is None:
        problems.append(f"CHANGELOG.md is missing: create it with a `## {version}` entry")
    elif not _has_heading(changelog, version):
        problems.append(f"CHANGELOG.md has no `## {version}` entry for the current contract version: add one "
                        "that lists the contract changes")
    return problems


def _read_snapshot(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, f"no contract snapshot at {path}: run `{UPDATE_COMMAND}`"
    except (OSError, ValueError) as exc:
        return None, f"cannot read the contract snapshot {path} ({exc}): run `{UPDATE_COMMAND}`"
    if not isinstance(data, dict) or not isinstance(data.get("tools"), dict):
        return None, f"{path} is not a contract snapshot: run `{UPDATE_COMMAND}`"
    return data, None


def check(snapshot_path: Path | str = SNAPSHOT_PATH, changelog_path: Path | str = CHANGELOG_PATH,
          live: Mapping[str, Any] | None = None) -> list[str]:
    """Human-readable problems (empty when all is well) between the live app (or ``live``),
    the snapshot file and CHANGELOG.md."""
    live = live_snapshot() if live is None else live
    snapshot, error = _read_snapshot(Path(snapshot_path))
    try:
        changelog: str | None = Path(changelog_path).read_text(encoding="utf-8")
    except FileNotFoundError:
        changelog = None
    if snapshot is None:
        return [error or "no snapshot", *review(live, live, changelog)]
    problems = review(snapshot, live, changelog)
    if _canon(snapshot) != _canon(live):
        changes = compare(snapshot, live)
        what = []
        if changes:
            what.append(f"{len(changes)} contract change(s), {required_bump(changes)} bump")
        if snapshot.get("contract_version") != live.get("contract_version"):
            what.append(f"contract_version {snapshot.get('contract_version')} → {live.get('contract_version')}")
        if not what:
            what.append("documentation-only differences such as schema titles; no version bump needed")
        problems.append(f"{snapshot_path} is out of date with the live app ({'; '.join(what)}): "
                        f"run `{UPDATE_COMMAND}`")
    return problems


def update(snapshot_path: Path | str = SNAPSHOT_PATH, live: Mapping[str, Any] | None = None) -> list[str]:
    """Write the live snapshot to ``snapshot_path`` unless the contract changed without a large
    enough CONTRACT_VERSION bump; returns those problems (nothing is written then)."""
    live = live_snapshot() if live is None else live
    path = Path(snapshot_path)
    old, _ = _read_snapshot(path)
    if old is not None:
        problems = _bump_problems(old, live, compare(old, live))
        if problems:
            return problems
    text = render(live)
    try:
        if path.read_text(encoding="utf-8") == text:
            return []
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/tool_contracts.py",
                                     description="Check or update the versioned tool-contract snapshot.")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--check", action="store_true", help="print problems; exit 1 if there are any")
    action.add_argument("--update", action="store_true", help="write the snapshot from the live app")
    action.add_argument("--diff", action="store_true", help="list contract changes against the snapshot")
    parser.add_argument("--snapshot", type=Path, default=SNAPSHOT_PATH, help=f"default {SNAPSHOT_PATH}")
    parser.add_argument("--changelog", type=Path, default=CHANGELOG_PATH, help=f"default {CHANGELOG_PATH}")
    args = parser.parse_args(argv)
    live = live_snapshot()
    old, _ = _read_snapshot(args.snapshot)
    changes = compare(old, live) if old is not None else []
    if args.check:
        problems = check(args.snapshot, args.changelog, live)
        for problem in problems:
            print(problem)
        if not problems:
            print(f"tool contract {live['contract_version']}: {len(live['tools'])} tools match {args.snapshot}")
        return 1 if problems else 0
    if args.diff:
        for change in changes:
            print(change)
        print(f"required bump: {required_bump(changes)}")
        return 0
    try:
        before: str | None = args.snapshot.read_text(encoding="utf-8")
    except OSError:
        before = None
    problems = update(args.snapshot, live)
    if problems:
        print(f"not updating {args.snapshot}:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    for change in changes:
        print(change)
    verb = "already up to date:" if before == render(live) else "wrote"
    print(f"{verb} {args.snapshot}: contract {live['contract_version']}, {len(live['tools'])} tools")
    try:
        changelog = args.changelog.read_text(encoding="utf-8")
    except OSError:
        changelog = ""
    if not _has_heading(changelog, str(live["contract_version"])):
        print(f"now add a `## {live['contract_version']}` entry to {args.changelog}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
