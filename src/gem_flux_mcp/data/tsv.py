"""Parsing of the value formats of ModelSEED's compounds.tsv and reactions.tsv: `null` for empty,
10000000 for unknown numbers, `|`/`;`-separated lists and aliases, `(n) cpd[i]` equations."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError

COMPOUND_COLUMNS = (
    "id", "abbreviation", "name", "formula", "mass", "charge", "is_core", "is_obsolete",
    "linked_compound", "aliases", "inchikey", "smiles", "deltag", "deltagerr",
)
REACTION_COLUMNS = (
    "id", "abbreviation", "name", "equation", "definition", "reversibility", "is_transport",
    "pathways", "aliases", "ec_numbers", "deltag", "deltagerr", "status", "is_obsolete",
    "linked_reaction",
)

# ModelSEED writes 10000000 for "unknown" in deltag, deltagerr and charge.
UNKNOWN_NUMBER = 10_000_000.0

_COMPARTMENT_TAG = re.compile(r"\[(\d+)\]")
_COEFFICIENT = re.compile(r"\((\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\)\s")


def clean(value: str | None) -> str:
    """Normalise the literal `null` and surrounding blanks to an empty string."""
    if value is None:
        return ""
    value = value.strip()
    return "" if value.lower() == "null" else value


def to_float(value: str) -> float | None:
    """A number, or None for missing and ModelSEED's 'unknown' marker."""
    value = clean(value)
    if not value:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    if number != number or abs(number) >= UNKNOWN_NUMBER:  # NaN or the unknown marker
        return None
    return number


def to_bool(value: str) -> bool:
    return clean(value) in {"1", "true", "True"}


def split_list(value: str) -> list[str]:
    """`a|b` or `a; b` lists; empty for missing values."""
    value = clean(value)
    if not value:
        return []
    return [item.strip() for item in re.split(r"[|;]", value) if clean(item)]


def parse_aliases(value: str) -> dict[str, list[str]]:
    """`Source: v1; v2|Source2: v3` to {source: [values]} (sources keep their spelling)."""
    result: dict[str, list[str]] = {}
    for block in clean(value).split("|"):
        source, sep, rest = block.partition(":")
        if not sep:
            continue
        values = [v.strip() for v in rest.split(";") if clean(v)]
        if values:
            result.setdefault(source.strip(), []).extend(values)
    return result


def parse_pathways(value: str) -> list[dict[str, str]]:
    """`MetaCyc: ID (name); ID (name)|KEGG: rn00010 (Glycolysis)` to [{source, id, name}].

    Names may hold parentheses themselves, so the id is the text before the first ` (` and the
    name is the rest without its outer parentheses.
    """
    pathways: list[dict[str, str]] = []
    for block in clean(value).split("|"):
        source, sep, rest = block.partition(":")
        if not sep:
            continue
        for entry in rest.split("; "):
            entry = entry.strip()
            if not entry:
                continue
            pid, paren, name = entry.partition(" (")
            if paren and name.endswith(")"):
                name = name[:-1]
            pathways.append({"source": source.strip(), "id": pid.strip(), "name": name.strip()})
    return pathways


def readable_equation(definition: str, is_transport: bool) -> str:
    """`(1) ATP[0] + (2) H+[1] => ...` to `ATP + 2 H+[e0] => ...`.

    Compartment tags only matter for transport reactions, where index 0 is the cytosol and 1 the
    extracellular space (data README); unit coefficients are dropped for readability.
    """
    text = _COEFFICIENT.sub(lambda m: "" if float(m.group(1)) == 1 else f"{m.group(1)} ", clean(definition))
    if not is_transport:
        return _COMPARTMENT_TAG.sub("", text)
    names = {"0": "[c0]", "1": "[e0]"}
    return _COMPARTMENT_TAG.sub(lambda m: names.get(m.group(1), f"[{m.group(1)}]"), text)


def read_rows(path: Path, required: tuple[str, ...]) -> Iterator[dict[str, str]]:
    """Rows of a ModelSEED TSV as dicts; a clear DataError for a missing file or column."""
    if not path.is_file():
        raise DataError(
            ErrorCode.DATABASE_FILE_NOT_FOUND,
            f"Reference data file not found: {path}",
            details={"path": str(path)},
            suggestions=["Run `gem-flux data fetch` or set GEMFLUX_DATA_DIR to the data folder."],
        )
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        try:
            header = next(reader)
        except StopIteration:
            raise DataError(ErrorCode.DATABASE_PARSE_ERROR, f"{path.name} is empty") from None
        missing = [c for c in required if c not in header]
        if missing:
            raise DataError(
                ErrorCode.DATABASE_MISSING_COLUMNS,
                f"{path.name} lacks required columns: {', '.join(missing)}",
                details={"path": str(path), "missing_columns": missing},
            )
        positions = [(name, header.index(name)) for name in required]
        width = len(header)
        for line_number, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != width:
                raise DataError(
                    ErrorCode.DATABASE_PARSE_ERROR,
                    f"{path.name} line {line_number} has {len(row)} fields, expected {width} "
                    "(the file may be truncated or corrupt)",
                    details={"path": str(path), "line": line_number},
                )
            yield {name: row[index] for name, index in positions}
