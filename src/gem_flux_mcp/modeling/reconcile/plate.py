"""A lab's phenotype plate file read into growth observations per ModelSEED compound.

A CSV or TSV with a header row: one column naming the tested compound (a ModelSEED id such as
cpd00027, or a name: matched to the panel's names, then to ModelSEED's names), or a well id
(`PM1-A2`, or a `plate` column beside a `well` column), and one column with the observation: a
call (yes/no, y/n, true/false, 1/0, +/-, ++/--, growth/no growth) or a number (OD, area) called
growth above `threshold`. Rows that cannot be read or mapped are reported, not fatal; a file
whose header has no compound (or well) column and no observation column is an error naming the
columns expected. Several rows for one compound with the same call are one well; with different
calls they are reported and left out.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

CPD = re.compile(r"^cpd\d{5}$")
WELL = re.compile(r"^(PM\d{1,2})[-_ :]?([A-H])0?(\d{1,2})$", re.IGNORECASE)
# header names (lower case, without spaces, '_' and '-') of each role, in order of preference
COMPOUND_COLUMNS = ("compoundid", "modelseedid", "seedid", "seed", "cpd", "compound", "compoundname", "substrate",
                    "name", "metabolite", "source")
WELL_COLUMNS = ("wellid", "well", "position")
PLATE_COLUMNS = ("plate", "plateid", "platetype")
CALL_COLUMNS = ("growth", "call", "grows", "observed", "phenotype", "result", "value", "od", "area", "auc",
                "signal", "maxod", "respiration")
YES = frozenset({"yes", "y", "true", "t", "1", "+", "++", "+++", "growth", "grows", "g", "positive", "pos"})
NO = frozenset({"no", "n", "false", "f", "0", "-", "--", "---", "nogrowth", "none", "negative", "neg", "ng"})


@dataclass(frozen=True)
class Observation:
    compound: str  # ModelSEED id
    grows: bool
    labels: tuple[str, ...]  # what the file called it (well ids or names), each once


@dataclass
class PlateReading:
    observations: dict[str, Observation] = field(default_factory=dict)  # compound -> its observation
    unmapped: list[dict[str, str]] = field(default_factory=list)  # {"row", "value", "reason"}
    columns: dict[str, str] = field(default_factory=dict)  # role -> the file's column used


NameLookup = Callable[[list[str]], dict[str, str]]  # names or ids -> ModelSEED id, for those it knows


def _key(text: str) -> str:
    return re.sub(r"[\s_\-]", "", text.strip().lower())


def _name_key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.strip().lower())


def expected_columns() -> dict[str, list[str]]:
    return {"compound (or well)": [*COMPOUND_COLUMNS, *WELL_COLUMNS], "observation": list(CALL_COLUMNS)}


def read_plate(text: str, *, threshold: float | None, lookup: NameLookup,
               wells: Mapping[str, str] | None = None) -> PlateReading:
    """Observations from a plate file's text. `lookup` maps compound names or ids to ModelSEED
    ids (those it knows); `wells` maps well ids (`PM1-A2`) to compound ids where a layout is
    known. `threshold` calls a numeric observation growth when above it."""
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise ValidationError(ErrorCode.UNKNOWN_PLATE_LAYOUT, "The plate file is empty.",
                              details={"expected_columns": expected_columns()})
    delimiter = "\t" if lines[0].count("\t") >= max(lines[0].count(","), 1) else ","
    rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter))
    header = [_key(h) for h in rows[0]]
    columns = _roles(header)
    if "observation" not in columns or not ({"compound", "well"} & set(columns)):
        raise ValidationError(
            ErrorCode.UNKNOWN_PLATE_LAYOUT,
            "The plate file's header has no " + " and no ".join(
                [r for r in ("compound (or well)", "observation") if
                 (r == "observation" and "observation" not in columns)
                 or (r != "observation" and not ({"compound", "well"} & set(columns)))])
            + f" column. Columns found: {', '.join(rows[0][:12])}.",
            details={"columns_found": rows[0][:30], "expected_columns": expected_columns()},
            suggestions=["Give a header row with a compound column (a ModelSEED id such as cpd00027 or a name) or a "
                         "well column (PM1-A2), and a growth column (yes/no, 1/0, +/-, or a number with a threshold)."])
    reading = PlateReading(columns={role: rows[0][i] for role, i in columns.items()})
    pending_names: list[tuple[int, str, bool, str]] = []
    for number, row in enumerate(rows[1:], start=2):
        cell = {role: (row[i].strip() if i < len(row) else "") for role, i in columns.items()}
        grows = _call(cell["observation"], threshold)
        if isinstance(grows, str):
            reading.unmapped.append({"row": str(number), "value": cell["observation"], "reason": grows})
            continue
        well = _well_id(cell.get("plate", ""), cell.get("well", ""))
        compound = cell.get("compound", "")
        label = well or compound
        if compound:
            pending_names.append((number, compound, grows, label))
        elif well and wells and well in wells:
            _merge(reading, number, wells[well], grows, well)
        elif well:
            reading.unmapped.append({"row": str(number), "value": well, "reason":
                                     "no plate layout known for this well: add a compound column (id or name)"})
        else:
            reading.unmapped.append({"row": str(number), "value": "", "reason": "no compound or well given"})
    known = lookup(sorted({name for _, name, _, _ in pending_names}))
    for number, name, grows, label in pending_names:
        mapped = known.get(name)
        if mapped is None:
            reading.unmapped.append({"row": str(number), "value": name, "reason":
                                     "not a known ModelSEED compound id or name"})
            continue
        _merge(reading, number, mapped, grows, label)
    conflicting = sorted(c for c, o in reading.observations.items() if o.labels and o.labels[0] == "\0conflict")
    for compound in conflicting:
        reading.unmapped.append({"row": "", "value": compound, "reason": "rows with different calls for this compound"})
        del reading.observations[compound]
    return reading


def _merge(reading: PlateReading, number: int, compound: str, grows: bool, label: str) -> None:
    seen = reading.observations.get(compound)
    if seen is None or not seen.labels:
        reading.observations[compound] = Observation(compound, grows, (label,))
    elif seen.labels[0] == "\0conflict":
        return
    elif seen.grows != grows:
        reading.observations[compound] = Observation(compound, grows, ("\0conflict",))
    elif label not in seen.labels:
        reading.observations[compound] = Observation(compound, grows, (*seen.labels, label))


def _roles(header: list[str]) -> dict[str, int]:
    roles: dict[str, int] = {}
    for role, names in (("compound", COMPOUND_COLUMNS), ("well", WELL_COLUMNS), ("plate", PLATE_COLUMNS),
                        ("observation", CALL_COLUMNS)):
        for name in names:
            if name in header and header.index(name) not in roles.values():
                roles[role] = header.index(name)
                break
    return roles


def _well_id(plate: str, well: str) -> str:
    text = f"{plate}-{well}" if plate and well and not well.upper().startswith("PM") else well
    match = WELL.match(text.strip())
    return f"{match.group(1).upper()}-{match.group(2).upper()}{int(match.group(3))}" if match else ""


def _call(value: str, threshold: float | None) -> bool | str:
    """True/False, or why the value cannot be read (a str)."""
    key = re.sub(r"[\s_]", "", value.strip().lower())
    key = "nogrowth" if key == "no-growth" else key
    if key in YES:
        return True
    if key in NO:
        return False
    try:
        number = float(value)
    except ValueError:
        return "not a growth call (yes/no, 1/0, +/-) or a number"
    if not math.isfinite(number):
        return "not a finite number"
    if threshold is None:
        return "a numeric value needs a threshold"
    return number > threshold


def name_lookup(panel_names: Mapping[str, str], existing: Callable[[Iterable[str]], set[str]],
                database_names: Callable[[list[str]], dict[str, str]]) -> NameLookup:
    """ModelSEED ids kept when they exist; names matched to the panel's names (letters and digits,
    any case), then to the database's exact names."""
    by_name = {_name_key(name): cpd for cpd, name in panel_names.items()}

    def lookup(values: list[str]) -> dict[str, str]:
        ids = [v for v in values if CPD.match(v.strip().lower())]
        real = existing([v.strip().lower() for v in ids])
        found = {v: v.strip().lower() for v in ids if v.strip().lower() in real}
        names = [v for v in values if not CPD.match(v.strip().lower())]
        for v in names:
            if _name_key(v) in by_name:
                found[v] = by_name[_name_key(v)]
        rest = [v for v in names if v not in found]
        if rest:
            found.update(database_names(rest))
        return found

    return lookup
