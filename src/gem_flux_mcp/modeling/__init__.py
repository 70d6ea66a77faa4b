"""Modeling library (build, gapfill, FBA): plain functions on COBRApy models, no MCP."""
