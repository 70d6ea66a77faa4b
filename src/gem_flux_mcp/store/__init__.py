"""Persistent state: workspaces, models, media, MCP sessions and tool calls."""
