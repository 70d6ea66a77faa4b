"""The cyclic garbage collector in processes that build, gapfill and analyse models.

A build or a gapfill makes millions of container objects, most of which live until it ends, and
a worker keeps millions more between jobs (templates, the homology reference, ModelSEEDpy and
COBRApy themselves). With Python's default thresholds the collector traverses them all in each
full collection their allocation triggers: 12 full collections, 2.2 s of an E. coli build +
gapfill in a fresh process, 1.1-1.5 s in a warm one (benchmarks/HISTORY.md, session 14). Such
processes collect less often, and a worker sets aside (gc.freeze) what lives on between jobs.
"""

from __future__ import annotations

import gc

MODELING_THRESHOLD = 10_000  # allocations between young collections (Python's default: 700)


def collect_less_often() -> None:
    """Young collections every MODELING_THRESHOLD allocations instead of 700 (and so full ones
    ~14x less often): for a process whose work is modeling (a worker, a CLI build, a batch task)."""
    gc.set_threshold(MODELING_THRESHOLD, 10, 10)


def set_aside_what_lives_on() -> None:
    """Collect the garbage (COBRApy models are full of reference cycles), then leave all that is
    still alive out of later collections (gc.freeze): what a worker holds between jobs lives on,
    and the collections a job triggers need not traverse it again and again. Unfrozen first, so
    what was let go since (an evicted model) is collected too. ~0.3 s: for idle moments."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
