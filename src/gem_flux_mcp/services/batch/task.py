"""One genome of a batch, as one Dask task: read → build → gapfill → (phenotype panels) → export
→ report. Runs in a worker process; what every genome needs (ModelSEEDpy, templates, the
biochemistry index) is loaded on a worker's first genome and kept for the next ones.

A task never raises for a genome's own failure: it writes the genome's report with the error
envelope and returns the failed row, so one bad genome never stops the others. Only a dying
worker fails the task; Dask then runs it again on another worker (the runner allows that once).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import socket
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gem_flux_mcp.services.batch.outputs as outputs
from gem_flux_mcp import gc_policy
from gem_flux_mcp.errors import GemFluxError
from gem_flux_mcp.rules.catalog import GeneCalling, TranslationTable
from gem_flux_mcp.services.batch.storing import StoreTarget, store_built

REPORT_VERSION = 1
GROWTH_THRESHOLD = 0.1  # 1/h: a panel compound "grows" above it (the CarveMe/Biolog benchmark's call)

Medium = dict[str, tuple[float, float]]

_loaded: dict[tuple[str, str], Any] = {}
_loaded_lock = threading.Lock()


@dataclass(frozen=True)
class GenomeTask:
    name: str
    path: str
    out_dir: str
    data_dir: str
    cache_dir: str
    media: dict[str, Medium]
    template: str = "auto"
    gene_calling: GeneCalling = "auto"
    phenotype_panels: tuple[str, ...] = ()
    settings_key: str = field(default="", compare=False)
    align_threads: int | None = None  # None: one per core of the worker's machine
    store_to: StoreTarget | None = None  # also keep the model in this store
    translation_table: TranslationTable = "auto"


def settings_key(path: Path, media: dict[str, Medium], template: str, gene_calling: str,
                 panels: tuple[str, ...], translation_table: str | int = "auto") -> str:
    """What a finished genome's output depends on: its input file's content and the settings. A
    rerun with the same key skips the genome; anything else builds it again."""
    content = outputs.file_sha256(path)
    settings = {"input_sha256": content, "template": template, "gene_calling": gene_calling,
                "translation_table": translation_table, "panels": list(panels),
                "media": {name: sorted(medium.items()) for name, medium in media.items()},
                "report_version": REPORT_VERSION}
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()


def biochem_for(data_dir: Path, cache_dir: Path) -> Any:
    """The biochemistry index of this worker process, opened once."""
    from gem_flux_mcp.data.biochem import BiochemIndex

    key = (str(data_dir), str(cache_dir))
    with _loaded_lock:
        if key not in _loaded:
            _loaded[key] = BiochemIndex.open(data_dir, cache_dir)
        return _loaded[key]


def _peak_rss_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    return round(own / scale, 1)


def reconstruct_genome(task: GenomeTask) -> dict[str, Any]:
    """The genome's summary row (status "ok" or "failed"); its model and report are on disk."""
    gc_policy.collect_less_often()  # this Dask worker process builds and gapfills models
    started = time.perf_counter()
    out_dir = Path(task.out_dir)
    row: dict[str, Any] = {"genome": task.name, "input": task.path, "worker": f"{socket.gethostname()}:{os.getpid()}",
                           "attempts": outputs.start_attempt(out_dir, task.name)}
    details: dict[str, Any] = {}
    try:
        row, details = _run(task, row)
    except GemFluxError as exc:
        row.update(status="failed", error_code=str(exc.code), error_message=exc.message)
        details["error"] = exc.envelope()
    except Exception as exc:  # a bug must not stop the batch; its trace goes in the report
        row.update(status="failed", error_code="INTERNAL_ERROR", error_message=f"{type(exc).__name__}: {exc}")
        details["error"] = {"error_code": "INTERNAL_ERROR", "message": str(exc), "traceback": traceback.format_exc()}
    row["total_s"] = round(time.perf_counter() - started, 2)
    row["worker_peak_rss_mb"] = _peak_rss_mb()
    report: dict[str, Any] = {"report_version": REPORT_VERSION, "settings_key": task.settings_key,
                              **{k: details.pop(k) for k in ("model_size", "model_sha256") if k in details},
                              "row": {k: v for k, v in row.items() if k not in ("stored_model_id", "store_error")},
                              **details}
    outputs.write_report(out_dir, task.name, report)
    return row


def _run(task: GenomeTask, row: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    from gem_flux_mcp.modeling import model_io, solver_memory
    from gem_flux_mcp.modeling.build import BuildOptions
    from gem_flux_mcp.modeling.inputs import read_proteins_file
    from gem_flux_mcp.modeling.reconstruct import reconstruct
    from gem_flux_mcp.modeling.sbml.annotations import model_annotations

    data_dir, cache_dir, out_dir = Path(task.data_dir), Path(task.cache_dir), Path(task.out_dir)
    biochem = biochem_for(data_dir, cache_dir)
    found = read_proteins_file(Path(task.path), "auto", task.gene_calling, "input", task.translation_table)
    tables = found.report.get("translation_tables") or []
    row.update(num_proteins=found.report.get("num_proteins"), genes_called=found.report.get("genes_called"),
               translation_table=tables[0] if found.report.get("gene_calling_mode") == "single" else None)
    result = reconstruct(task.name, found.proteins, task.media, template=task.template, data_dir=data_dir,
                         cache_dir=cache_dir, biochem=biochem,
                         options=BuildOptions(align_threads=task.align_threads))
    model_file = outputs.model_path(out_dir, task.name)
    try:
        phenotypes = _panels(result.model, task, biochem)
        exported = time.perf_counter()
        written = model_io.export_model_file(result.model, model_file, "sbml", model_annotations(result.model, biochem))
        export_s = round(time.perf_counter() - exported, 2)
        summary = result.summary()
        sha256 = outputs.file_sha256(model_file)
        if task.store_to is not None:
            row.update(template=result.template, growth=result.growth)
            store_built(task.store_to, row, result.model, model_file, sha256)
    finally:
        solver_memory.release_model(result.model)
    row.update(
        status="ok", template=result.template, num_reactions=summary["num_reactions"],
        num_metabolites=summary["num_metabolites"], num_genes=summary["num_genes"],
        draft_reactions=summary["draft"].get("num_reactions"),
        **_completeness_columns(result.draft.get("genome_completeness")),
        gapfill_added=sum(step.reactions_added for step in result.gapfills),
        growth=result.growth,
        quality_checks_passed=all(step.quality_checks_passed for step in result.gapfills),
        phenotypes={panel: counts["growth"] for panel, counts in phenotypes.items()} or None,
        build_s=result.timings["build"], gapfill_s=result.timings["gapfill"], export_s=export_s,
        model_file=str(Path(outputs.MODELS) / f"{task.name}.xml"))
    details = {"model_size": model_file.stat().st_size, "model_sha256": sha256, "input_report": found.report,
               "warnings": found.warnings + written.warnings,
               "template_reason": result.template_reason, "draft": result.draft,
               "gapfill_reports": {step.medium: step.report for step in result.gapfills},
               "phenotype_panels": phenotypes}
    return row, details


def _completeness_columns(found: dict[str, Any] | None) -> dict[str, Any]:
    """The summary's columns a user sorts 1,000 MAGs by."""
    return {"completeness": found["completeness"], "contamination": found["contamination"]} if found else {}


def _panels(model: Any, task: GenomeTask, biochem: Any) -> dict[str, dict[str, Any]]:
    """Each panel on the first medium (its reference sources taken out): counts and every call."""
    if not task.phenotype_panels:
        return {}
    from gem_flux_mcp.data.panels import load_panels
    from gem_flux_mcp.modeling import media
    from gem_flux_mcp.modeling.gapfill.run import pick_objective
    from gem_flux_mcp.modeling.phenotypes import growth_phenotypes, phenotype_rows, plan_array

    panels = load_panels()[1]
    base = next(iter(task.media.values()))
    objective = pick_objective(model)
    found: dict[str, dict[str, Any]] = {}
    for name in task.phenotype_panels:
        plan = plan_array(panels[name], [], base)
        with model:
            exchanges, _ = media.put_on_medium(model, plan.medium, biochem)
            model.objective = objective
            array = growth_phenotypes(model, plan.compounds, exchanges, plan.uptake)
        rows = phenotype_rows(plan.compounds, array.growth, array.exchanges, GROWTH_THRESHOLD, {})
        counts = {status: sum(r["status"] == status for r in rows) for status in ("growth", "no_growth", "no_uptake")}
        found[name] = {**counts, "base_growth": round(array.base_growth, 6),
                       "calls": {r["compound_id"]: r["status"] for r in rows}}
    return found
