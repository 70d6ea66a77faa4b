"""Use cases: what each tool does, on one workspace, as plain functions.

Layers: data -> modeling -> store -> services -> server -> cli. A service function validates its
inputs, calls the modeling library and the store, and returns the tool's answer; the MCP tool
wrappers in `server/tools/` only pick the workspace, resolve user paths and hand over.
Long jobs (builds, gapfills) are prepared here as typed job objects (`jobs.py`) that a worker
process runs, and their results stored here.
"""
