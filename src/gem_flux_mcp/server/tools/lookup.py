"""Look-up tools over the ModelSEED biochemistry (contracts: docs/tools.md)."""

from __future__ import annotations

from typing import Annotated, Any

from fastmcp import FastMCP
from fastmcp.dependencies import Depends
from pydantic import Field

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.rules.catalog import LimitArg
from gem_flux_mcp.server.dependencies import current_biochem
from gem_flux_mcp.server.tools.common import READ_ONLY, tool
from gem_flux_mcp.services import results

_COMPOUND_EMPTY_HINTS = [
    "Try a shorter or more general name (e.g. 'glucose' instead of 'D-glucose monohydrate').",
    "Search by formula (C6H12O6) or an external id (KEGG C00031, BiGG glc__D).",
    "Every word of a multi-word query must match; drop a word to widen the search.",
    "If you already know the ModelSEED id, call get_compound_name directly.",
]
_REACTION_EMPTY_HINTS = [
    "Try the enzyme name ('pyruvate kinase') or a shorter part of the reaction name.",
    "Search by EC number (2.7.1.40, or 2.7.1 for the whole class).",
    "Search by an external id: KEGG (R00200), BiGG (PYK) or MetaCyc.",
    "Every word of a multi-word query must match; drop a word to widen the search.",
    "If you already know the ModelSEED id, call get_reaction_name directly.",
]


def _search_payload(found: dict[str, Any], limit: int, hints: list[str], detail_tool: str,
                    ) -> dict[str, Any]:
    results = found["results"]
    next_steps = []
    if results:
        next_steps.append(f"Call {detail_tool} with an id for the full record.")
    if found["truncated"]:
        next_steps.append(f"More matches exist: raise limit above {limit} (max 100) "
                          "or add a word to narrow the query.")
    return {
        "success": True,
        "query": found["query"],
        "num_results": len(results),
        "results": results,
        "truncated": found["truncated"],
        "suggestions": [] if results else hints,
        "next_steps": next_steps,
    }


def register(mcp: FastMCP) -> None:
    @tool(mcp, "get_compound_name", results.CompoundRecord, {"title": "Get compound", **READ_ONLY})
    def get_compound_name(
        compound_id: Annotated[str, Field(description="ModelSEED compound id, e.g. 'cpd00027' "
                                          "(a model id such as 'cpd00027_e0' also works)")],
        biochem: BiochemIndex = Depends(current_biochem),
    ) -> dict[str, Any]:
        """Full record of one ModelSEED compound: name, formula, mass, charge, InChIKey,
        SMILES, synonyms and external ids (KEGG, BiGG, MetaCyc, ChEBI, ...).
        Obsolete compounds say which ids replace them."""
        return {"success": True, **biochem.get_compound(compound_id)}

    @tool(mcp, "search_compounds", results.CompoundSearch, {"title": "Search compounds", **READ_ONLY})
    def search_compounds(
        query: Annotated[str, Field(description="Name, synonym, id, formula or external id "
                                    "(1-100 characters); every word must match")],
        limit: Annotated[LimitArg, Field(description="Maximum results, 1-100")] = 10,
        biochem: BiochemIndex = Depends(current_biochem),
    ) -> dict[str, Any]:
        """Find ModelSEED compounds. Ranking: exact id, exact name or synonym, abbreviation,
        external id (KEGG C00031, BiGG glc__D), formula, then partial name matches (whole words
        and well-known compounds first, shorter names first). Obsolete entries come last."""
        found = biochem.search_compounds(query, limit)
        return _search_payload(found, limit, _COMPOUND_EMPTY_HINTS, "get_compound_name")

    @tool(mcp, "get_reaction_name", results.ReactionRecord, {"title": "Get reaction", **READ_ONLY})
    def get_reaction_name(
        reaction_id: Annotated[str, Field(description="ModelSEED reaction id, e.g. 'rxn00148' "
                                          "(a model id such as 'rxn00148_c0' also works)")],
        biochem: BiochemIndex = Depends(current_biochem),
    ) -> dict[str, Any]:
        """Full record of one ModelSEED reaction: name, equation with compound names and with
        ids, reversibility, EC numbers, pathways (KEGG/MetaCyc id and name), balance status,
        thermodynamics and external ids."""
        return {"success": True, **biochem.get_reaction(reaction_id)}

    @tool(mcp, "search_reactions", results.ReactionSearch, {"title": "Search reactions", **READ_ONLY})
    def search_reactions(
        query: Annotated[str, Field(description="Name, enzyme synonym, id, EC number, external "
                                    "id or pathway (1-100 characters); every word must match")],
        limit: Annotated[LimitArg, Field(description="Maximum results, 1-100")] = 10,
        biochem: BiochemIndex = Depends(current_biochem),
    ) -> dict[str, Any]:
        """Find ModelSEED reactions. An EC number matches per component (2.7.1.1 never returns
        2.7.1.10; 2.7.1 returns the whole class). Otherwise: exact id, name or enzyme synonym,
        abbreviation or external id (KEGG R00200, BiGG PYK), then partial matches in names,
        synonyms, pathways and equations. Obsolete entries come last."""
        found = biochem.search_reactions(query, limit)
        return _search_payload(found, limit, _REACTION_EMPTY_HINTS, "get_reaction_name")
