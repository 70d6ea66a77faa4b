"""The jobs a worker process runs (see worker.py). Each takes the settings, a JSON-like payload and
a progress callback, and returns picklable data: the server stores it without re-parsing models."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex

Progress = Callable[[str, float, str], None]


@functools.cache
def _biochem(settings: Settings) -> BiochemIndex:
    return BiochemIndex.open(settings.data_dir, settings.cache_dir)


def run_build(settings: Settings, payload: dict[str, Any], progress: Progress) -> dict[str, Any]:
    from gem_flux_mcp.modeling.annotate import Protein
    from gem_flux_mcp.modeling.build import BuildOptions, build_draft, describe_draft
    from gem_flux_mcp.modeling.model_io import release_model
    from gem_flux_mcp.store.store import serialize_model

    proteins = [Protein(pid, seq, desc) for pid, seq, desc in payload["proteins"]]
    options = BuildOptions(
        template=payload["template"], use_header_functions=payload["use_header_functions"],
        use_homology=payload["use_homology"], use_rast=payload["annotate_with_rast"],
        exclude_reference_models=tuple(payload["exclude_reference_models"]),
    )
    result = build_draft(payload["model_id"], proteins, options, settings.data_dir, settings.cache_dir,
                         _biochem(settings), progress=progress)
    progress("store", 0.92, "serializing the model")
    serialized = serialize_model(result.model, payload["model_id"])
    summary = describe_draft(result.model, options.template, result.annotation)
    release_model(result.model)
    return {"data": serialized.data, "stats": serialized.stats, "summary": summary, "timings": result.timings}


def run_gapfill(settings: Settings, payload: dict[str, Any], progress: Progress) -> dict[str, Any]:
    from cobra.io import from_json

    from gem_flux_mcp.modeling import gapfill, gapfill_report
    from gem_flux_mcp.modeling.model_io import release_model
    from gem_flux_mcp.store.store import serialize_model

    progress("load", 0.01, "reading the model")
    model = from_json(payload["model_json"])
    options = gapfill.GapfillOptions(target_growth=payload["target_growth"], mode=payload["mode"])
    previous = gapfill.AtpCorrection.from_json(payload["atp_correction"]) if payload.get("atp_correction") else None
    medium = {cpd: (float(b[0]), float(b[1])) for cpd, b in payload["medium"].items()}
    biochem = _biochem(settings)
    run = gapfill.gapfill_from_data(model, medium, options, template_name=payload["template"],
                                    data_dir=settings.data_dir, biochem=biochem, previous_atp=previous,
                                    progress=progress)
    report = gapfill_report.describe(run, biochem.reaction_details, options.target_growth)
    progress("store", 0.95, "serializing the gapfilled model")
    serialized = serialize_model(run.model, payload["new_model_id"])
    release_model(run.model)
    release_model(model)
    return {"data": serialized.data, "stats": serialized.stats, "report": report,
            "atp_correction": run.atp.to_json() if run.atp is not None else None}


JOBS: dict[str, Callable[[Settings, dict[str, Any], Progress], Any]] = {"build": run_build, "gapfill": run_gapfill}
