"""Results of the compound and reaction look-ups."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gem_flux_mcp.services.results.base import Result


class Pathway(Result):
    source: str = Field(description="Pathway database, e.g. KEGG or MetaCyc")
    id: str
    name: str


class CompoundRecord(Result):
    success: Literal[True] = True
    id: str = Field(description="ModelSEED compound id, e.g. cpd00027")
    name: str
    abbreviation: str
    formula: str = Field(description="Empty when unknown")
    mass: float | None = Field(description="g/mol; null when unknown")
    charge: int | None = Field(description="Default charge; null when unknown")
    inchikey: str
    smiles: str
    is_core: bool
    is_obsolete: bool
    replaced_by: list[str] = Field(description="For obsolete entries: the ids that replace it")
    deltag: float | None = Field(description="Gibbs energy of formation, kcal/mol; null unknown")
    deltagerr: float | None
    aliases: dict[str, list[str]] = Field(
        description="Synonyms under 'Name' and external ids by source (KEGG, BiGG, MetaCyc, ...)"
    )


class CompoundHit(Result):
    id: str
    name: str
    abbreviation: str
    formula: str
    mass: float | None
    charge: int | None
    match_field: str = Field(
        description="Where the query matched: id, name, synonym, abbreviation, formula, "
        "external_id or aliases"
    )
    match_type: Literal["exact", "partial"]
    matched_value: str
    is_obsolete: bool
    replaced_by: list[str]


class CompoundSearch(Result):
    success: Literal[True] = True
    query: str
    num_results: int
    results: list[CompoundHit]
    truncated: bool = Field(description="More matches exist than `limit` allowed")
    suggestions: list[str]
    next_steps: list[str]


class ReactionRecord(Result):
    success: Literal[True] = True
    id: str = Field(description="ModelSEED reaction id, e.g. rxn00148")
    name: str = Field(description="May be empty in the database")
    abbreviation: str
    equation: str = Field(description="With compound names; [e0] marks extracellular species")
    equation_with_ids: str
    reversibility: Literal["irreversible", "irreversible_reverse", "reversible", "unknown"]
    reversibility_symbol: str = Field(description="Database symbol: >, <, = or ?")
    direction: Literal["forward", "reverse", "bidirectional"]
    is_transport: bool
    ec_numbers: list[str]
    pathways: list[Pathway]
    status: str = Field(description="OK, or imbalance flags such as MI:... and CI:...")
    is_obsolete: bool
    replaced_by: list[str]
    deltag: float | None = Field(description="kcal/mol; null when unknown")
    deltagerr: float | None
    aliases: dict[str, list[str]]


class ReactionHit(Result):
    id: str
    name: str
    equation: str
    ec_numbers: list[str]
    status: str
    match_field: str = Field(
        description="Where the query matched: id, name, synonym, abbreviation, ec_numbers, "
        "external_id, aliases or pathways_or_equation"
    )
    match_type: Literal["exact", "partial"]
    matched_value: str
    is_obsolete: bool
    replaced_by: list[str]


class ReactionSearch(Result):
    success: Literal[True] = True
    query: str
    num_results: int
    results: list[ReactionHit]
    truncated: bool
    suggestions: list[str]
    next_steps: list[str]
