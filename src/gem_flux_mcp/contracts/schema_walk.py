"""Walking JSON Schemas as the contract checker needs: the subschemas of a node, keywords
stripped at schema positions, local ``$ref``s inlined, and one canonical JSON text per value."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

# keywords whose value is a schema / a list of schemas / a name -> schema map
_SCHEMA_KEYS = frozenset({
    "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
    "unevaluatedItems", "unevaluatedProperties", "additionalItems",
})
_SCHEMA_LIST_KEYS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_MAP_KEYS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
# documentation only: never a contract change
DOC_KEYS = frozenset({"title", "description", "examples", "$comment", "$schema"})

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


def strip_keys(schema: Any, keys: frozenset[str]) -> Any:
    """``schema`` without the given keywords at schema positions (property *names* such as a
    property called "description" are kept)."""
    if not isinstance(schema, dict):
        return schema
    kept = {k: v for k, v in schema.items() if k not in keys}
    return _map_subschemas(kept, lambda sub: strip_keys(sub, keys))


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


def inline_refs(schema: Any, root: Any, stack: tuple[str, ...] = ()) -> Any:
    """``schema`` with every resolvable local ``$ref`` replaced by its target (siblings of the
    ``$ref`` merged in) and ``$defs``/``definitions`` dropped. A recursive reference is left
    as ``{"$ref": ...}`` at its second occurrence."""
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref not in stack:
        target = _pointer(root, ref)
        if target is not None:
            merged = dict(inline_refs(target, root, (*stack, ref))) if isinstance(target, dict) else {}
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            merged.update(inline_refs(siblings, root, stack))
            return merged
    body = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    return _map_subschemas(body, lambda sub: inline_refs(sub, root, stack))


def canon(value: Any) -> str:
    """One JSON text per value (sorted keys, no spaces): equal values compare equal."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def show(value: Any, limit: int = 80) -> str:
    """``value`` as canonical JSON for a message, cut to ``limit`` characters."""
    text = canon(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
