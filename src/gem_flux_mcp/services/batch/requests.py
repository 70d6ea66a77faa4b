"""What the batch tools do between the MCP wrapper and the runner: check a request, start the
job, and shape its status (a page of genome rows) as the tools answer."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gem_flux_mcp.config import Settings
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.rules.catalog import GENE_CALLING, GENOME_TEMPLATE, PANEL, TRANSLATION_TABLE, WORKERS
from gem_flux_mcp.services import results
from gem_flux_mcp.services.workspace import Workspace

from .background import BatchJob, BatchJobs
from .inputs import find_inputs
from .runner import BatchSpec
from .storing import StoreTarget

DEFAULT_MEDIA = ("glucose_minimal_aerobic",)
MAX_MEDIA = 10
MAX_ROWS_PER_PAGE = 200
Show = Callable[[Path | str], str]


def local_workers_allowed() -> int:
    """A server gives a batch at most one worker process per core."""
    return max(1, os.cpu_count() or 1)


def start_batch(jobs: BatchJobs, ws: Workspace, inputs: Sequence[Path], media_ids: Sequence[object] | None,
                template: object, gene_calling: object, panels: Sequence[object] | None, out_dir: Path, workers: object,
                save_to_store: bool, settings: Settings, show: Show,
                translation_table: object = "auto") -> results.BuildModelsBatchResult:
    chosen_template: str = GENOME_TEMPLATE.check(template)
    count: int = WORKERS.check(workers)
    if not jobs.scheduler and count > local_workers_allowed():
        raise WORKERS.refusal(count, f"workers must be at most {local_workers_allowed()} here: one worker process "
                                     "per core of this server.")
    chosen = list(media_ids) if media_ids else list(DEFAULT_MEDIA)
    if len(chosen) > MAX_MEDIA:
        raise ValidationError(ErrorCode.INVALID_MEDIA, f"At most {MAX_MEDIA} media per batch.",
                              details={"num_media": len(chosen)})
    media = dict(ws.medium(media_id) for media_id in chosen)
    chosen_panels = tuple(dict.fromkeys(str(PANEL.check(panel)) for panel in panels or []))
    genomes = find_inputs(inputs)
    store_to = StoreTarget(str(settings.state_dir), settings.database_url, ws.workspace_id) if save_to_store else None
    spec = BatchSpec(tuple(genomes), media, out_dir, settings.data_dir, settings.cache_dir, chosen_template,
                     GENE_CALLING.check(gene_calling), chosen_panels, store_to,
                     TRANSLATION_TABLE.check(translation_table))
    job = jobs.start(ws.workspace_id, spec, count, save_to_store)
    return results.BuildModelsBatchResult(
        success=True, job_id=job.job_id, status=job.status, num_genomes=len(genomes),
        genomes=[g.name for g in genomes][:MAX_ROWS_PER_PAGE], out_dir=show(out_dir),
        workers=None if jobs.scheduler else count, scheduler="configured by the server" if jobs.scheduler else None,
        next_steps=[f"get_batch_status(job_id='{job.job_id}', wait_seconds=60) reports progress and the genomes "
                    "finished so far; the models and summary.tsv are written to out_dir"])


def batch_status(job: BatchJob, offset: int, limit: int, show: Show) -> results.BatchStatusResult:
    with job.lock:
        rows = list(job.rows)
        progress = job.progress
        status = job.status
    page = rows[offset: offset + limit]
    end = offset + len(page)
    genomes = job.spec is not None
    steps = ([f"get_batch_status(job_id='{job.job_id}', offset={end}) for the next {job.what}"]
             if end < len(rows) else [])
    if status == "running":
        steps.append(f"get_batch_status(job_id='{job.job_id}', wait_seconds=60) waits for more")
    elif job.save_to_store:
        steps.append("list_models() shows the stored models; run_fba or run_phenotypes analyse one")
    return results.BatchStatusResult(
        success=True, job_id=job.job_id, status=status,
        progress=results.BatchCounts(total=progress.total, finished=progress.finished, done_before=progress.skipped,
                                     ok=progress.done + progress.skipped, failed=progress.failed,
                                     unfinished=list(progress.running)),
        started_at=job.started_at, seconds=job.elapsed(), out_dir=show(job.out_dir), cluster=job.cluster,
        files={name: show(path) for name, path in job.files.items()},
        genomes=[results.BatchGenome.model_validate(_shown(row, set(results.BatchGenome.model_fields)))
                 for row in page] if genomes else [],
        samples=None if genomes else [results.BatchSample.model_validate(
            _shown(row, set(results.BatchSample.model_fields))) for row in page],
        offset=offset, next_offset=end if end < len(rows) else None, error=job.error, next_steps=steps)


def _shown(row: dict[str, Any], fields: set[str]) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key in fields}
