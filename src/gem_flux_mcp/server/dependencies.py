"""What tools are given, by FastMCP's dependency injection: a tool declares
`workspace: Workspace = Depends(current_workspace)` (and likewise the file area, the job runner,
the biochemistry index, the settings), and FastMCP resolves it per call, keeping it out of the
published input schema. Everything comes from the runtime that `create_app` put in the app's
lifespan context, and the caller's workspace from its HTTP token (or the local one)."""

from __future__ import annotations

from dataclasses import dataclass

from fastmcp.dependencies import Depends
from fastmcp.server.dependencies import get_context

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ServerError
from gem_flux_mcp.server import access
from gem_flux_mcp.server.file_area import FileArea
from gem_flux_mcp.server.runtime import Resources
from gem_flux_mcp.server.worker import JobRunner
from gem_flux_mcp.services.batch.background import BatchJobs
from gem_flux_mcp.services.workspace import Workspace

RESOURCES = "gemflux_resources"  # key of the runtime in the lifespan context


def current_resources() -> Resources:
    resources = get_context().lifespan_context.get(RESOURCES)
    if not isinstance(resources, Resources):
        raise ServerError(ErrorCode.SERVER_NOT_INITIALIZED, "Server resources are not loaded; this is a start-up bug.")
    return resources


def current_workspace(resources: Resources = Depends(current_resources)) -> Workspace:
    """The caller's workspace (the local one, or the one its HTTP token names)."""
    return resources.workspace(access.request_workspace())


def current_file_area(resources: Resources = Depends(current_resources)) -> FileArea:
    """The caller's files: its workspace's own folder under tokens, the allowed roots otherwise."""
    return resources.file_area(access.request_workspace() if access.table().enabled else None)


def current_jobs(resources: Resources = Depends(current_resources)) -> JobRunner:
    return resources.jobs


def current_batches(resources: Resources = Depends(current_resources)) -> BatchJobs:
    return resources.batches


def current_biochem(resources: Resources = Depends(current_resources)) -> BiochemIndex:
    return resources.biochem


def current_settings(resources: Resources = Depends(current_resources)) -> Settings:
    return resources.settings


def current_templates(resources: Resources = Depends(current_resources)) -> tuple[str, ...]:
    return resources.templates


@dataclass(frozen=True)
class Caller:
    """What a tool that runs a job needs about its caller."""

    workspace: Workspace
    files: FileArea
    jobs: JobRunner


def current_caller(resources: Resources = Depends(current_resources)) -> Caller:
    return Caller(current_workspace(resources), current_file_area(resources), resources.jobs)


def file_area_of_this_call() -> FileArea | None:
    """For code that is not a tool (the error envelope): the caller's file area, or None outside
    a tool call."""
    try:
        return current_file_area(current_resources())
    except (RuntimeError, ServerError):
        return None
