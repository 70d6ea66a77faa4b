"""Gem-Flux: an MCP server for genome-scale metabolic modeling in the ModelSEED namespace."""

__version__ = "0.1.0"
# The version of the tool contract (every tool's schemas and annotations), separate from the
# package version; checked against contracts/tools.json by gem_flux_mcp.contracts (CHANGELOG.md).
CONTRACT_VERSION = "2.20.0"
