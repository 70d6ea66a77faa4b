"""Persistent state: workspaces, models, media, MCP sessions and tool calls."""

from gem_flux_mcp.store.rows import MediaRow, ModelRow, ResultRow, model_state, utc_now
from gem_flux_mcp.store.store import Store

__all__ = ["MediaRow", "ModelRow", "ResultRow", "Store", "model_state", "utc_now"]
