"""Jobs the worker tests send to a real worker process (a module of its own, so that the worker
imports only this to unpickle them)."""

from __future__ import annotations

import gc
import os
from typing import Any, ClassVar

from gem_flux_mcp.config import Settings


class ReportWorkerState:
    """Answers what the worker process holds: its GC settings and what its warm-up loaded."""

    kind: ClassVar[str] = "analysis"

    def run(self, settings: Settings, progress: Any) -> dict[str, Any]:
        from gem_flux_mcp.data import reference, templates
        from gem_flux_mcp.modeling.gapfill import network

        return {"pid": os.getpid(), "gc_threshold": gc.get_threshold()[0], "frozen_objects": gc.get_freeze_count(),
                "templates_loaded": len(templates._cache),
                "reference_rules_loaded": reference._load_rules.cache_info().currsize,
                "directions_known": network._required_signs.cache_info().currsize}
