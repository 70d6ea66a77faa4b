"""MCP tool wrappers: validate, call the library, shape the result."""
