"""Use cases: what each tool does, on one workspace, as plain functions.

Layers: data -> modeling -> store -> services -> server -> cli. A service function validates its
inputs, calls the modeling library and the store, and returns the tool's answer; the MCP tool
wrappers in `server/tools/` only pick the workspace, resolve user paths and hand over.
Long work (builds, gapfills, analyses) is prepared here as a typed job object, kept in the
module of its use case beside the service that prepares it and stores its outcome
(`gapfill.GapfillJob`); a worker process runs it (`job_base.py`: what every job shares).
"""
