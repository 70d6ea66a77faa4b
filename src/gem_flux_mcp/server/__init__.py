"""MCP server: FastMCP app, thin tool wrappers, error mapping, HTTP guard."""
