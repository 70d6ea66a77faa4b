"""What a biochemistry query may be: id normalisation, search arguments, ranking constants."""


from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.rules.catalog import LIMIT, MAX_FILTER_CHARS

log = logging.getLogger(__name__)


INDEX_SCHEMA_VERSION = 6

COMPOUND_ID = re.compile(r"^cpd\d{5}$")
REACTION_ID = re.compile(r"^rxn\d{5}$")
# Model-style ids (cpd00027_c0, rxn00148_c) name the same database entry.
MODEL_SUFFIX = re.compile(r"^((?:cpd|rxn)\d{5})_[a-z]\d*$")
EC_QUERY = re.compile(r"^(?:ec[:\s]*)?(\d+)\.(\d+|-)(?:\.(n?\d+|-))?(?:\.(n?\d+|-))?\.?$")
WORD = re.compile(r"[a-z0-9]+")

MAX_QUERY_LENGTH = MAX_FILTER_CHARS
# Below this many matches a query is ranked in one pass; above it, tier by tier with early stops.
RARE_CAP = 400

# Exact-match kinds in the `terms` table, and the rank tier each gives a hit (lower is better).
K_NAME, K_SYNONYM, K_ABBREV, K_XREF, K_FORMULA = 1, 2, 3, 4, 5
# An exact hit on any name-like field is one tier: how well known the entry is decides.
EXACT_TIER = {K_NAME: 1, K_SYNONYM: 1, K_ABBREV: 1, K_XREF: 1, K_FORMULA: 4}
EXACT_FIELD = {
    K_NAME: "name", K_SYNONYM: "synonym", K_ABBREV: "abbreviation", K_XREF: "external_id",
    K_FORMULA: "formula",
}
# Cross-reference sources that mark an entry as one that models actually use.
MODEL_SOURCES = {"BiGG": 2, "KEGG": 2, "MetaCyc": 1, "ChEBI": 1}
SKIP_XREF_SOURCES = {"Name", "name"}


@dataclass(frozen=True)
class Hit:
    rowid: int
    tier: int
    field: str
    matched: str


# ----------------------------------------------------------------------------------------------
# helpers


def normalize_id(raw: object, kind: str) -> str:
    """Trim, lower-case and strip a model compartment suffix; reject anything else clearly."""
    pattern, example = (COMPOUND_ID, "cpd00027") if kind == "compound" else (REACTION_ID, "rxn00148")
    param = f"{kind}_id"
    if not isinstance(raw, str) or not raw.strip():
        raise ValidationError(
            ErrorCode.EMPTY_ID if isinstance(raw, str) else ErrorCode.INVALID_ID_FORMAT,
            f"{param} must be a non-empty string like '{example}'.",
            details={"provided": raw if isinstance(raw, str | int | float) else str(raw), "kind": kind,
                     "argument": param, "example_id": example},
            suggestions=[f"Pass a ModelSEED {kind} id such as '{example}'."],
        )
    value = raw.strip().lower()
    suffixed = MODEL_SUFFIX.match(value)
    if suffixed:
        value = suffixed.group(1)
    if not pattern.match(value):
        shown = raw if len(raw) <= 60 else raw[:57] + "..."
        raise ValidationError(
            ErrorCode.INVALID_ID_FORMAT,
            f"'{shown}' is not a ModelSEED {kind} id (expected '{pattern.pattern[1:4]}' followed "
            f"by 5 digits, e.g. '{example}').",
            details={"provided": shown, "expected_pattern": pattern.pattern, "kind": kind,
                     "argument": param, "example_id": example},
            suggestions=[f"A name or an external id must be looked up first: search the {kind}s with that text."],
        )
    return value


def validate_search_args(query: object, limit: object) -> tuple[str, int]:
    if not isinstance(query, str) or not query.strip():
        raise ValidationError(
            ErrorCode.EMPTY_QUERY,
            "query must be a non-empty string.",
            details={"provided": query if isinstance(query, str) else repr(query)[:60]},
            suggestions=["Search by name ('glucose'), id, formula, EC number or external id."],
        )
    if "\x00" in query:
        raise ValidationError(ErrorCode.INVALID_QUERY, "query contains a NUL byte.", details={})
    text = " ".join(query.split())
    if len(text) > MAX_QUERY_LENGTH:
        raise ValidationError(
            ErrorCode.QUERY_TOO_LONG,
            f"query is {len(text)} characters long; the maximum is {MAX_QUERY_LENGTH}.",
            details={"length": len(text), "max_length": MAX_QUERY_LENGTH, "query": text[:30]},
            suggestions=["Shorten the query to the distinctive part of a name or id."],
        )
    return text.lower(), LIMIT.check(limit)


def name_words(text: str) -> str:
    return " " + " ".join(WORD.findall(text.lower())) + " "


def prominence(aliases: dict[str, list[str]], extra: int = 0) -> int:
    return extra + sum(weight for source, weight in MODEL_SOURCES.items() if source in aliases)


def fts_phrase(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'
