"""The package's layers (docs/architecture.md): a layer imports only the layers before it, and
no module imports itself back through others (no import cycles)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "src" / "gem_flux_mcp"
# root modules are "base"; contracts/ (the tool-contract checker) reads the server's tool list
LAYERS = ["base", "data", "modeling", "store", "services", "server", "cli", "contracts"]


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = frozenset(_module(p) for p in PACKAGE.rglob("*.py"))


def _imports(path: Path, nodes: list[ast.stmt] | None = None) -> set[str]:
    """Modules of the package imported by `path` (by `nodes` of it when given; else at any
    depth: lazy imports count too)."""
    found: set[str] = set()
    package = _module(path) if path.name == "__init__.py" else _module(path).rsplit(".", 1)[0]
    tree = ast.Module(body=nodes, type_ignores=[]) if nodes is not None else ast.parse(path.read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("gem_flux_mcp")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            if base.startswith("gem_flux_mcp"):
                # `from package import module` depends on that module; other names, on the package
                submodules = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES}
                found |= submodules if len(submodules) == len(node.names) else {base, *submodules}
    return found


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "base"


def test_lower_layers_never_import_higher_ones() -> None:
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _module(path)
        for target in _imports(path):
            if LAYERS.index(_layer(target)) > LAYERS.index(_layer(source)):
                wrong.append(f"{source} ({_layer(source)}) imports {target} ({_layer(target)})")
    assert wrong == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def _graph(module_level_only: bool) -> dict[str, set[str]]:
    """module -> the package's modules it imports (a package counts as its __init__)."""
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)] if module_level_only else None
        graph[name] = {t for t in _imports(path, top) if t in modules and t != name}
    return graph


def test_no_import_cycles_at_module_level() -> None:
    """Imports at module level that form a cycle break loading."""
    assert _cycles(_graph(module_level_only=True)) == []


def test_no_import_cycles_through_deferred_imports_either() -> None:
    """A cycle closed by an import inside a function loads, but ties two modules into one: each
    needs the other. Type-checking-only imports count too (they name what a module depends on)."""
    assert _cycles(_graph(module_level_only=False)) == []


def test_lower_layers_name_no_tools() -> None:
    """Lower layers raise errors with codes and details; what to call next is added at the server
    boundary (server/hints.py); answers' next steps are written by services/. No tool name appears
    as a value or a call in data/, modeling/ or store/."""
    tools = sorted(json.loads((REPO / "contracts" / "tools.json").read_text())["tools"])  # every published tool
    assert len(tools) >= 25 and "predict_fermentation_products" in tools
    watched = [p for layer in ("data", "modeling", "store") for p in (PACKAGE / layer).rglob("*.py")]
    found = []
    for path in watched:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found += [f"{path.name}: {tool}" for tool in tools if f"{tool}(" in node.value or node.value == tool]
            if isinstance(node, ast.JoinedStr):
                text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
                found += [f"{path.name}: {tool}" for tool in tools if f"{tool}(" in text]
    assert found == []
