"""Gem-Flux: an MCP server for genome-scale metabolic modeling in the ModelSEED namespace."""

__version__ = "0.1.0"
