"""Live views: the server's worker jobs (builds, gapfills, analyses) with their progress, the
Jobs page, and the refresh every page showing something that runs asks for (a
`<meta http-equiv=refresh>`, only while it runs: no script)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gem_flux_mcp.server.dashboard.batches import batch_section
from gem_flux_mcp.server.dashboard.html import e, model_href, page, plural, progress_bar, table, when
from gem_flux_mcp.server.dashboard.source import DashboardSource
from gem_flux_mcp.server.job_board import JobView

JOBS_REFRESH_S = 2  # a page showing a running job
SESSION_REFRESH_S = 5  # a page showing an active session


def jobs_of(source: DashboardSource, workspace: str) -> list[JobView]:
    return source.jobs.jobs(workspace) if source.jobs is not None else []


def running_jobs(source: DashboardSource, workspace: str, model_id: str | None = None) -> list[JobView]:
    """The workspace's queued and running jobs (those on `model_id`, or making it, when given)."""
    return [j for j in jobs_of(source, workspace) if j.running
            and (model_id is None or model_id in (j.model_id, j.makes))]


def _model_cell(model_id: str | None) -> str:
    return f"<a href='{e(model_href(model_id))}'>{e(model_id)}</a>" if model_id else ""


def jobs_table(jobs: list[JobView], table_id: str = "jobs") -> str:
    rows = [(e(j.kind), _model_cell(j.model_id) + (f" → {e(j.makes)}" if j.makes else ""),
             f"<span class='{'active' if j.running else 'closed'}'>{e(j.state)}</span>"
             + (f" <span class=err>{e(j.error_code)}</span>" if j.error_code else ""),
             progress_bar(j.fraction), f"{e(j.stage)}: {e(j.message)}", when(j.started_at),
             f"<span class=nowrap>{j.seconds:.1f} s</span>")
            for j in jobs]
    return table(("Job", "Model", "State", "Progress", "Stage", "Started", "Time"), rows, table_id, "No jobs.",
                 row_class="job")


def live_box(source: DashboardSource, workspace: str, model_id: str | None = None) -> tuple[str, int | None]:
    """A box of the jobs running (on a model, when given) and the refresh it needs; ('', None)
    when nothing runs."""
    running = running_jobs(source, workspace, model_id)
    if not running:
        return "", None
    return (f"<div class=live id=live><b>{plural(len(running), 'job')} running</b> — this page refreshes every "
            f"{JOBS_REFRESH_S} s until {'it ends' if len(running) == 1 else 'they end'}."
            f"{jobs_table(running, 'live-jobs')}</div>", JOBS_REFRESH_S)


def routes(source: DashboardSource) -> list[Route]:
    async def jobs(request: Request) -> Response:
        workspace = source.workspace(request)
        found = jobs_of(source, workspace)
        running = [j for j in found if j.running]
        batches, batch_running = batch_section(source.batches, workspace)
        if source.jobs is None:
            listing = ("<p class=muted>Jobs are shown by the dashboard of the server that runs them "
                       "(<code>gem-flux serve --transport http</code>); this dashboard reads the state folder "
                       "only.</p>")
        else:
            listing = (f"<h2>Running and queued</h2>{jobs_table(running, 'running-jobs')}"
                       f"<h2>Ended</h2>{jobs_table([j for j in found if not j.running], 'ended-jobs')}")
        refresh = JOBS_REFRESH_S if running or batch_running else None
        note = (f"<p class=muted>Refreshing every {refresh} s while something runs.</p>" if refresh
                else "<p class=muted>Nothing is running.</p>")
        return page("gem-flux jobs", f"<h1>Jobs</h1>{note}{listing}{batches}", refresh_s=refresh)

    return [Route("/jobs", jobs)]
