"""The one path every long tool takes (build_model, gapfill_model, the analyses, the community
analyses): the request checked and turned into a job in a thread, the job run in a worker process
with MCP progress (or answered in a thread of this process when it is too small to send), the
result stored and shaped in a thread, server folders scrubbed from the answer. A job that fails,
times out or is cancelled gives back what its preparation reserved (`abandon`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread
from fastmcp import Context
from pydantic import BaseModel

from gem_flux_mcp.server.dependencies import Caller
from gem_flux_mcp.server.worker import mcp_progress
from gem_flux_mcp.services.job_base import Job
from gem_flux_mcp.services.workspace import Workspace

R = TypeVar("R", bound=BaseModel)
J = TypeVar("J", bound=Job)
JOB_TIMEOUT_S = 1800.0  # builds and analyses; gapfilling has its own (its solver stops at 600 s)


async def run_job(ctx: Context, caller: Caller, prepare: Callable[[Workspace], J],
                  answer: Callable[[Workspace, J, Any], R], *, timeout_s: float = JOB_TIMEOUT_S,
                  here: Callable[[Workspace, J], Any] | None = None,
                  abandon: Callable[[Workspace, J], None] | None = None,
                  done: Callable[[R], str] | None = None) -> R:
    """`prepare` makes the job, `here` may answer it without a worker (None: send it), `answer`
    stores and shapes the outcome, `abandon` undoes `prepare` when the job does not finish,
    `done` is the last progress message."""
    workspace = caller.workspace
    job = await anyio.to_thread.run_sync(lambda: prepare(workspace))
    progress = mcp_progress(ctx)
    try:
        outcome = await anyio.to_thread.run_sync(lambda: here(workspace, job)) if here is not None else None
        if outcome is None:
            outcome = await caller.jobs.run(job, progress, timeout_s=timeout_s, workspace=workspace.workspace_id)
    except BaseException:  # failed, timed out or cancelled: not awaited, a cancelled call could not
        if abandon is not None:
            abandon(workspace, job)
        raise
    await progress("store", 0.95, "storing the result")
    result = caller.files.scrub_payload(await anyio.to_thread.run_sync(lambda: answer(workspace, job, outcome)))
    if done is not None:
        await progress("done", 1.0, done(result))
    return result
