"""Gene rules parsed by one thread at a time.

COBRApy turns a gene rule into a tree with `ast.parse`. On CPython 3.11 before the fix of
gh-106905 (3.11.7 here), `ast.parse` keeps its recursion count in state shared by every thread;
when a collection runs a finaliser mid-parse and another thread parses meanwhile, the first one
fails with "SystemError: AST constructor recursion depth mismatch". The server loads models in
worker threads, so two clients loading models at once could be told a valid model cannot be
read. A lock around COBRApy's parse keeps those parses apart (a rule parses in microseconds).
"""

from __future__ import annotations

import threading
from typing import Any

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
