"""COBRApy imported by one thread at a time.

Importing COBRApy imports sympy, whose modules import each other in a circle. When two threads
import them at once, CPython breaks the lock cycle by handing one thread a partly initialised
module, and that thread fails with, e.g., "ImportError: cannot import name 'Boolean' from
partially initialized module 'sympy.logic.boolalg'". The server met it when its background
warm-up (`server/app.py`) and a first stored model's loading (`gene_rules`) imported COBRApy in
the same moment after a restart: the model was reported as an internal error. Both import it
through `import_cobra`, under one lock.
"""

from __future__ import annotations

import threading

_LOCK = threading.Lock()


def import_cobra() -> None:
    """Import COBRApy (and the gene module whose rule parser `gene_rules` wraps) under the
    process-wide lock; after the first time it only finds them in `sys.modules`."""
    with _LOCK:
        import cobra
        import cobra.core.gene  # noqa: F401
