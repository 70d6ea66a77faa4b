"""Gene rules: parsed by one thread at a time, and built without a parser where they are plain.

COBRApy turns a gene rule into a tree with `ast.parse`. On CPython 3.11 before the fix of
gh-106905 (3.11.7 here), `ast.parse` keeps its recursion count in state shared by every thread;
when a collection runs a finaliser mid-parse and another thread parses meanwhile, the first one
fails with "SystemError: AST constructor recursion depth mismatch". The server loads models in
worker threads, so two clients loading models at once could be told a valid model cannot be
read. A lock around COBRApy's parse keeps those parses apart (a rule parses in microseconds).
"""

from __future__ import annotations

import ast
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cobra import Reaction
    from cobra.core.gene import GPR

_LOCK = threading.RLock()  # re-entrant: a finaliser run mid-parse may itself parse a rule
_MARK = "_gemflux_one_thread_at_a_time"


def parse_one_thread_at_a_time() -> None:
    """Make COBRApy parse gene rules under one process-wide lock (idempotent, cheap to repeat)."""
    from gem_flux_mcp.modeling.cobra_import import import_cobra

    import_cobra()  # not at the same moment as another thread (cobra_import.py)
    import cobra.core.gene as gene_module

    parse = gene_module.ast_parse
    if getattr(parse, _MARK, False):
        return

    def locked_parse(*args: Any, **kwargs: Any) -> Any:
        with _LOCK:
            return parse(*args, **kwargs)

    setattr(locked_parse, _MARK, True)
    gene_module.ast_parse = locked_parse


def held() -> threading.RLock:
    """The lock itself, for a test that holds it and checks a parse waits."""
    return _LOCK


# -- rules built without ast.parse ---------------------------------------------------------------
#
# COBRApy's GPR.from_string escapes the rule, runs `ast.parse`, rewrites the tree with a
# NodeTransformer and deep-copies it twice: ~0.1 ms a rule, ~0.3 s of reading an E. coli draft
# and ~0.4 s of building one. Most rules are gene names joined by "and", "or" and parentheses;
# for those `gpr_of` builds the very tree COBRApy builds (the same nodes, as `ast.dump` shows:
# tests/test_gene_rules.py compares every rule of a curated model and generated ones), and any
# other text goes to COBRApy.

_TOKEN = re.compile(r"\(|\)|[^ ()]+")
# names COBRApy's escaping gives back unchanged: letters, digits, _ . : -, no "__" (its escapes)
_PLAIN_NAME = re.compile(r"(?!.*__)[A-Za-z0-9_.:\-]+")
_OTHER_SPACE = re.compile(r"[^\S ]")  # tabs, line breaks: Python's parser treats them otherwise


def gpr_of(text: str) -> GPR:
    """The GPR COBRApy's `GPR.from_string(text)` gives."""
    from cobra.core.gene import GPR

    tree = _plain_tree(text)
    if tree is None:
        return GPR.from_string(text)
    node, names = tree
    gpr = GPR()
    gpr.body = node
    gpr._genes = names
    return gpr


def set_rule(reaction: Reaction, text: str) -> None:
    """`reaction.gene_reaction_rule = text`, without COBRApy's parser where it is not needed."""
    reaction.gpr = gpr_of(text)


def _plain_tree(text: str) -> tuple[ast.expr, set[str]] | None:
    """(the tree, its gene names) of a rule of plain names, "and", "or" and parentheses, as
    Python's parser nests them (`or` binds looser than `and`; a parenthesised group stays a node
    of its own); None when `text` is anything else or malformed (COBRApy decides then)."""
    if not text.strip() or "()" in text or _OTHER_SPACE.search(text):
        return None
    tokens = _TOKEN.findall(text)
    names: set[str] = set()
    position = 0

    def operand() -> ast.expr | None:
        nonlocal position
        if position >= len(tokens):
            return None
        token = tokens[position]
        position += 1
        if token == "(":
            inner = either()
            if inner is None or position >= len(tokens) or tokens[position] != ")":
                return None
            position += 1
            return inner
        if token in ("and", "or", ")") or not _PLAIN_NAME.fullmatch(token):
            return None
        names.add(token)
        return ast.Name(id=token, ctx=ast.Load())

    def joined(word: str, part: Callable[[], ast.expr | None], op: ast.boolop) -> ast.expr | None:
        nonlocal position
        values: list[ast.expr] = []
        while True:
            value = part()
            if value is None:
                return None
            values.append(value)
            if position >= len(tokens) or tokens[position] != word:
                return values[0] if len(values) == 1 else ast.BoolOp(op=op, values=values)
            position += 1

    def both() -> ast.expr | None:
        return joined("and", operand, ast.And())

    def either() -> ast.expr | None:
        return joined("or", both, ast.Or())

    node = either()
    if node is None or position != len(tokens):
        return None
    return node, names
