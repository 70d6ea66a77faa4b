"""A lab's gene table (a transposon screen, a knockout collection) read into essentiality calls
per model gene.

A CSV or TSV with a header row: one column with the gene id, and either an essentiality call
(yes/no, y/n, true/false, 1/0, essential/non-essential) or a fitness value, called essential
below `fitness_threshold` (a call column is used when both are there). Ids are mapped to the
model's genes in three steps, the first that finds exactly one gene wins:
1. exactly as written;
2. ignoring case;
3. as a locus tag without a version suffix (`b0001.1` -> `b0001`, on both sides), ignoring case.
Rows that cannot be read or mapped (unknown or ambiguous ids, unreadable calls) are reported,
not fatal; several rows for one gene with the same call are one observation, with different
calls they are reported and left out. A header with no gene column, or with neither a call nor
a fitness column, is an UNKNOWN_GENE_TABLE_LAYOUT error naming the columns expected.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

# header names (lower case, without spaces, '_' and '-') of each role, in order of preference
GENE_COLUMNS = ("geneid", "gene", "locustag", "locus", "locusid", "orf", "sysname", "systematicname", "bnumber",
                "id", "name", "genename")
CALL_COLUMNS = ("essential", "essentiality", "call", "essentialitycall", "status", "phenotype")
FITNESS_COLUMNS = ("fitness", "fitnessvalue", "fit", "score", "lfc", "log2fc", "logfc", "value")
ESSENTIAL = frozenset({"yes", "y", "true", "t", "1", "essential", "e", "ess", "lethal"})
NONESSENTIAL = frozenset({"no", "n", "false", "f", "0", "nonessential", "ne", "notessential", "viable", "dispensable"})
VERSION = re.compile(r"\.\d+$")


@dataclass(frozen=True)
class GeneCall:
    gene: str  # model gene id
    essential: bool
    labels: tuple[str, ...]  # what the table called it, each once


@dataclass
class GeneReading:
    calls: dict[str, GeneCall] = field(default_factory=dict)  # model gene id -> its call
    unmapped: list[dict[str, str]] = field(default_factory=list)  # {"row", "value", "reason"}
    columns: dict[str, str] = field(default_factory=dict)  # role -> the table's column used


def _key(text: str) -> str:
    return re.sub(r"[\s_\-]", "", text.strip().lower())


def gene_columns() -> dict[str, list[str]]:
    return {"gene": list(GENE_COLUMNS), "essential call": list(CALL_COLUMNS),
            "fitness (with fitness_threshold)": list(FITNESS_COLUMNS)}


def gene_matcher(model_genes: Iterable[str]) -> dict[str, dict[str, list[str]]]:
    """The three lookups of the module docstring: exact, lower case, lower case without version."""
    genes = list(model_genes)
    tables: dict[str, dict[str, list[str]]] = {"exact": {}, "case": {}, "locus": {}}
    for gene in genes:
        tables["exact"].setdefault(gene, []).append(gene)
        tables["case"].setdefault(gene.lower(), []).append(gene)
        tables["locus"].setdefault(VERSION.sub("", gene.lower()), []).append(gene)
    return tables


def map_gene(value: str, tables: dict[str, dict[str, list[str]]]) -> tuple[str | None, str]:
    """(model gene id, '') or (None, why not)."""
    text = value.strip()
    for step, key in (("exact", text), ("case", text.lower()), ("locus", VERSION.sub("", text.lower()))):
        found = sorted(set(tables[step].get(key, [])))
        if len(found) == 1:
            return found[0], ""
        if len(found) > 1:
            return None, f"matches several model genes ({', '.join(found[:5])})"
    return None, "not a gene of the model"


def read_gene_table(text: str, *, fitness_threshold: float | None, model_genes: Iterable[str]) -> GeneReading:
    """Essentiality calls per model gene from a gene table's text."""
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise ValidationError(ErrorCode.UNKNOWN_GENE_TABLE_LAYOUT, "The gene table is empty.",
                              details={"expected_columns": gene_columns()})
    delimiter = "\t" if lines[0].count("\t") >= max(lines[0].count(","), 1) else ","
    rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter))
    header = [_key(h) for h in rows[0]]
    columns = _roles(header)
    missing = [role for role, present in (("gene", "gene" in columns),
                                          ("essential call or fitness", {"call", "fitness"} & set(columns)))
               if not present]
    if missing:
        raise ValidationError(
            ErrorCode.UNKNOWN_GENE_TABLE_LAYOUT,
            f"The gene table's header has no {' and no '.join(missing)} column. Columns found: "
            f"{', '.join(rows[0][:12])}.",
            details={"columns_found": rows[0][:30], "expected_columns": gene_columns()},
            suggestions=["Give a header row with a gene column (gene, locus_tag) and an essential column (yes/no, "
                         "1/0, essential/non-essential) or a fitness column with fitness_threshold."])
    reading = GeneReading(columns={role: rows[0][i] for role, i in columns.items()})
    tables = gene_matcher(model_genes)
    role = "call" if "call" in columns else "fitness"
    for number, row in enumerate(rows[1:], start=2):
        cell = {r: (row[i].strip() if i < len(row) else "") for r, i in columns.items()}
        essential = _call(cell[role], fitness_threshold if role == "fitness" else None, role)
        if isinstance(essential, str):
            reading.unmapped.append({"row": str(number), "value": cell[role], "reason": essential})
            continue
        gene, why = map_gene(cell["gene"], tables) if cell["gene"] else (None, "no gene given")
        if gene is None:
            reading.unmapped.append({"row": str(number), "value": cell["gene"], "reason": why})
            continue
        _merge(reading, gene, essential, cell["gene"])
    for gene in sorted(g for g, c in reading.calls.items() if c.labels == ("\0conflict",)):
        reading.unmapped.append({"row": "", "value": gene, "reason": "rows with different calls for this gene"})
        del reading.calls[gene]
    return reading


def _merge(reading: GeneReading, gene: str, essential: bool, label: str) -> None:
    seen = reading.calls.get(gene)
    if seen is None:
        reading.calls[gene] = GeneCall(gene, essential, (label,))
    elif seen.labels == ("\0conflict",):
        return
    elif seen.essential != essential:
        reading.calls[gene] = GeneCall(gene, essential, ("\0conflict",))
    elif label not in seen.labels:
        reading.calls[gene] = GeneCall(gene, essential, (*seen.labels, label))


def _roles(header: list[str]) -> dict[str, int]:
    roles: dict[str, int] = {}
    for role, names in (("gene", GENE_COLUMNS), ("call", CALL_COLUMNS), ("fitness", FITNESS_COLUMNS)):
        for name in names:
            if name in header and header.index(name) not in roles.values():
                roles[role] = header.index(name)
                break
    return roles


def _call(value: str, threshold: float | None, role: str) -> bool | str:
    """True (essential)/False, or why the value cannot be read (a str)."""
    key = _key(value)
    if role == "call":
        if key in ESSENTIAL:
            return True
        if key in NONESSENTIAL:
            return False
        return "not an essentiality call (yes/no, 1/0, essential/non-essential)"
    try:
        number = float(value)
    except ValueError:
        return "not a fitness value (a number)"
    if not math.isfinite(number):
        return "not a finite number"
    if threshold is None:
        return "a fitness value needs fitness_threshold"
    return number < threshold
