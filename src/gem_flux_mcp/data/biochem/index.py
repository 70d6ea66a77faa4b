"""Read-only access to the biochemistry index: records by id, batch look-ups; the ranked search is ranking.py's."""


from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gem_flux_mcp.data.biochem.build import build_index
from gem_flux_mcp.data.biochem.queries import (
    INDEX_SCHEMA_VERSION,
    K_XREF,
    SKIP_XREF_SOURCES,
    normalize_id,
    validate_search_args,
)
from gem_flux_mcp.data.biochem.ranking import ranked_hits
from gem_flux_mcp.data.fingerprint import fingerprint_paths
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError, NotFoundError

log = logging.getLogger(__name__)

# ----------------------------------------------------------------------------------------------
# querying


class BiochemIndex:
    """Read-only access to the index. One SQLite connection per thread (tools run in threads)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._reaction_details: dict[str, dict[str, Any]] = {}  # reaction_details' records, read once
        con = self._connect()
        try:
            meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            raise DataError(ErrorCode.INDEX_CORRUPT, f"biochemistry index {path} is unreadable: {exc}") from exc
        if meta.get("schema_version") != str(INDEX_SCHEMA_VERSION):
            raise DataError(ErrorCode.INDEX_OUTDATED, f"biochemistry index {path} has an old schema")
        self.meta = meta
        self.compound_count = int(meta["compound_count"])
        self.reaction_count = int(meta["reaction_count"])

    @classmethod
    def open(cls, data_dir: Path, cache_dir: Path) -> BiochemIndex:
        """Open the index for the TSVs in `data_dir`, building it first if it does not exist."""
        compounds = data_dir / "modelseed" / "compounds.tsv"
        reactions = data_dir / "modelseed" / "reactions.tsv"
        for path in (compounds, reactions):
            if not path.is_file():
                raise DataError(
                    ErrorCode.DATABASE_FILE_NOT_FOUND,
                    f"Reference data file not found: {path}",
                    details={"path": str(path)},
                    suggestions=["Run `gem-flux data fetch` or set GEMFLUX_DATA_DIR."],
                )
        sha_c, sha_r = fingerprint_paths([compounds, reactions], cache_dir)
        target = cache_dir / f"biochem-v{INDEX_SCHEMA_VERSION}-{sha_c[:16]}-{sha_r[:16]}.sqlite"
        if target.is_file():
            try:
                return cls(target)
            except DataError as exc:
                log.warning("rebuilding the biochemistry index: %s", exc.message)
                target.unlink(missing_ok=True)
        log.info("building the biochemistry index once (about 10-15 s); later starts reuse it")
        build_index(compounds, reactions, target,
                    {"compounds_sha256": sha_c, "reactions_sha256": sha_r,
                     "data_dir": str(data_dir)})
        for stale in cache_dir.glob("biochem-v*.sqlite"):
            # indexes of older schema versions are never opened again
            if not stale.name.startswith(f"biochem-v{INDEX_SCHEMA_VERSION}-"):
                stale.unlink(missing_ok=True)
        return cls(target)

    def _connect(self) -> sqlite3.Connection:
        con: sqlite3.Connection | None = getattr(self._local, "con", None)
        if con is None:
            # immutable=1: the file never changes once renamed into place, so SQLite can skip
            # locking entirely.
            con = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True,
                                  check_same_thread=False)
            con.row_factory = sqlite3.Row
            self._local.con = con
        return con

    # -- compounds ------------------------------------------------------------------------------

    def get_compound(self, compound_id: object) -> dict[str, Any]:
        cid = normalize_id(compound_id, "compound")
        row = self._connect().execute("SELECT * FROM compounds WHERE id = ?", (cid,)).fetchone()
        if row is None:
            raise NotFoundError(
                ErrorCode.COMPOUND_NOT_FOUND,
                f"Compound '{cid}' is not in the ModelSEED database.",
                details={"compound_id": cid,
                         "searched_in": f"compounds.tsv ({self.compound_count} compounds)"},
            )
        return self._compound_record(row)

    def compounds_by_ids(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Records for many ids at once (missing ids are simply absent)."""
        rows = _rows_in(self._connect(), "SELECT * FROM compounds WHERE id IN ({marks})", ids)
        return {row["id"]: self._compound_record(row) for row in rows}

    def existing_compound_ids(self, ids: Iterable[str]) -> set[str]:
        return {r[0] for r in _rows_in(self._connect(), "SELECT id FROM compounds WHERE id IN ({marks})", ids)}

    def compound_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, str]:
        """Map external ids of one source (e.g. BiGG 'glc__D') to ModelSEED compound ids.

        Several compounds often carry the same external id (BiGG 'h2o' is on water and on
        hydroxide); the canonical one carries the id in the same case (BiGG has both 'ACP' and
        'acp'; the index is case-folded), is current, has that id as its abbreviation, is a core
        compound, and has the oldest id. Every value given gets its own answer.
        """
        wanted: dict[str, list[str]] = {}
        for value in values:
            wanted.setdefault(value.lower(), []).append(value)
        prefix = f"{source}: "
        best: dict[str, tuple[tuple[int, int, int, int, str], str]] = {}
        rows = _rows_in(
            self._connect(),
            "SELECT t.term, t.shown, c.id, c.is_obsolete, lower(c.abbreviation), c.is_core FROM terms t "
            f"JOIN compounds c ON c.rowid = t.ref WHERE t.entity = 0 AND t.kind = {K_XREF} AND t.term IN ({{marks}})",
            wanted,
        )
        for term, shown, cid, obsolete, abbreviation, is_core in rows:
            if not shown.startswith(prefix):
                continue
            for value in wanted[term]:
                rank = (int(shown[len(prefix):] != value), obsolete, int(abbreviation != term), -is_core, cid)
                if value not in best or rank < best[value][0]:
                    best[value] = (rank, cid)
        return {value: cid for value, (_, cid) in best.items()}

    def reaction_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, set[str]]:
        """Map external reaction ids of one source (e.g. BiGG 'PGI') to every ModelSEED reaction
        carrying it: the mapping is many-to-many, and callers decide which ones they can use."""
        wanted: dict[str, list[str]] = {}
        for value in values:
            wanted.setdefault(value.lower(), []).append(value)
        prefix = f"{source}: "
        found: dict[str, set[str]] = {}
        rows = _rows_in(
            self._connect(),
            "SELECT t.term, t.shown, r.id FROM terms t JOIN reactions r ON r.rowid = t.ref "
            f"WHERE t.entity = 1 AND t.kind = {K_XREF} AND t.term IN ({{marks}})",
            wanted,
        )
        for term, shown, rid in rows:
            if not shown.startswith(prefix):
                continue
            for value in wanted[term]:
                # the index is case-folded; BiGG ids are not
                if shown[len(prefix):] == value:
                    found.setdefault(value, set()).add(rid)
        return found

    def compound_cross_references(self, ids: Iterable[str]) -> dict[str, dict[str, list[str]]]:
        """{compound id: {source: [external ids]}} from the aliases column (synonyms left out),
        with the InChIKey as source 'InChIKey'; ids not in the database are absent."""
        found: dict[str, dict[str, list[str]]] = {}
        for row in _rows_in(self._connect(), "SELECT id, aliases_json, inchikey FROM compounds WHERE id IN ({marks})",
                            ids):
            references = {k: list(v) for k, v in json.loads(row[1] or "{}").items() if k not in SKIP_XREF_SOURCES}
            if row[2]:
                references["InChIKey"] = [str(row[2])]
            found[str(row[0])] = references
        return found

    def reaction_cross_references(self, ids: Iterable[str]) -> dict[str, dict[str, list[str]]]:
        """{reaction id: {source: [external ids]}} from the aliases column (synonyms left out),
        with the EC numbers as source 'EC'; ids not in the database are absent."""
        found: dict[str, dict[str, list[str]]] = {}
        for row in _rows_in(self._connect(), "SELECT id, aliases_json, ec_json FROM reactions WHERE id IN ({marks})",
                            ids):
            references = {k: list(v) for k, v in json.loads(row[1] or "{}").items() if k not in SKIP_XREF_SOURCES}
            ec_numbers = json.loads(row[2] or "[]")
            if ec_numbers:
                references["EC"] = [str(ec) for ec in ec_numbers]
            found[str(row[0])] = references
        return found

    def compound_names(self, ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        """{id: (name, formula)} for the ids that exist."""
        return {cid: (rec["name"], rec["formula"]) for cid, rec in self.compounds_by_ids(ids).items()}

    def reaction_names(self, ids: Iterable[str]) -> dict[str, str]:
        rows = _rows_in(self._connect(), "SELECT id, name FROM reactions WHERE id IN ({marks})", ids)
        return {str(r[0]): str(r[1]) for r in rows}

    def reaction_details(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """{id: {name, status, reversibility, pathways, equation, linked, deltag, ec_numbers}}, each
        record read once per process (the file never changes): a build and its gapfill ask for
        every template reaction, ~8,000 records decoded in ~0.3 s each time. Callers get copies."""
        wanted = set(ids)
        known = self._reaction_details
        missing = wanted - known.keys()
        if missing:
            rows = _rows_in(self._connect(), "SELECT id, name, status, reversibility, pathways_json, equation, "
                            "linked, deltag, ec_json FROM reactions WHERE id IN ({marks})", sorted(missing))
            known.update({str(r[0]): {"name": str(r[1]), "status": str(r[2] or ""), "reversibility": str(r[3] or ""),
                                      "pathways": tuple(json.loads(r[4] or "[]")), "equation": str(r[5] or ""),
                                      "linked": tuple(_split_links(str(r[6] or ""))),
                                      "deltag": float(r[7]) if r[7] not in (None, "") else None,
                                      "ec_numbers": tuple(str(ec) for ec in json.loads(r[8] or "[]"))}
                          for r in rows})
        return {rid: {**record, "pathways": list(record["pathways"]), "linked": list(record["linked"]),
                      "ec_numbers": list(record["ec_numbers"])}
                for rid in wanted if (record := known.get(rid)) is not None}

    def transport_reactions(self) -> list[tuple[str, str, str, str]]:
        """(id, name, equation with ids, reversibility symbol) of every transport reaction that is
        not obsolete."""
        rows = self._connect().execute("SELECT id, name, equation_ids, reversibility FROM reactions "
                                       "WHERE is_transport = 1 AND is_obsolete = 0 ORDER BY id").fetchall()
        return [(str(r[0]), str(r[1] or ""), str(r[2] or ""), str(r[3] or "")) for r in rows]

    @staticmethod
    def _compound_record(row: sqlite3.Row) -> dict[str, Any]:
        return {
            "id": row["id"],
            "name": row["name"],
            "abbreviation": row["abbreviation"],
            "formula": row["formula"],
            "mass": row["mass"],
            "charge": row["charge"],
            "inchikey": row["inchikey"],
            "smiles": row["smiles"],
            "is_core": bool(row["is_core"]),
            "is_obsolete": bool(row["is_obsolete"]),
            "replaced_by": _split_links(row["linked"]) if row["is_obsolete"] else [],
            "deltag": row["deltag"],
            "deltagerr": row["deltagerr"],
            "aliases": json.loads(row["aliases_json"]),
        }

    def search_compounds(self, query: object, limit: object = 10) -> dict[str, Any]:
        text, n = validate_search_args(query, limit)
        con = self._connect()
        hits = ranked_hits(con, 0, text, n)
        rows = {r["rowid"]: r for r in _fetch_rows(con, "compounds", [h.rowid for h in hits])}
        results = []
        for hit in hits[:n]:
            row = rows[hit.rowid]
            results.append({
                "id": row["id"], "name": row["name"], "abbreviation": row["abbreviation"],
                "formula": row["formula"], "mass": row["mass"], "charge": row["charge"],
                "match_field": hit.field, "match_type": "exact" if hit.tier <= 4 else "partial",
                "matched_value": hit.matched, "is_obsolete": bool(row["is_obsolete"]),
                "replaced_by": _split_links(row["linked"]) if row["is_obsolete"] else [],
            })
        return {"query": text, "results": results, "truncated": len(hits) > n}

    # -- reactions ------------------------------------------------------------------------------

    def get_reaction(self, reaction_id: object) -> dict[str, Any]:
        rid = normalize_id(reaction_id, "reaction")
        row = self._connect().execute("SELECT * FROM reactions WHERE id = ?", (rid,)).fetchone()
        if row is None:
            raise NotFoundError(
                ErrorCode.REACTION_NOT_FOUND,
                f"Reaction '{rid}' is not in the ModelSEED database.",
                details={"reaction_id": rid,
                         "searched_in": f"reactions.tsv ({self.reaction_count} reactions)"},
            )
        return self._reaction_record(row)

    @staticmethod
    def _reaction_record(row: sqlite3.Row) -> dict[str, Any]:
        symbol = row["reversibility"]
        reversibility, direction = {
            ">": ("irreversible", "forward"),
            "<": ("irreversible_reverse", "reverse"),
            "=": ("reversible", "bidirectional"),
        }.get(symbol, ("unknown", "bidirectional"))
        return {
            "id": row["id"],
            "name": row["name"],
            "abbreviation": row["abbreviation"],
            "equation": row["equation"],
            "equation_with_ids": row["equation_ids"],
            "reversibility": reversibility,
            "reversibility_symbol": symbol,
            "direction": direction,
            "is_transport": bool(row["is_transport"]),
            "ec_numbers": json.loads(row["ec_json"]),
            "pathways": json.loads(row["pathways_json"]),
            "status": row["status"],
            "is_obsolete": bool(row["is_obsolete"]),
            "replaced_by": _split_links(row["linked"]) if row["is_obsolete"] else [],
            "deltag": row["deltag"],
            "deltagerr": row["deltagerr"],
            "aliases": json.loads(row["aliases_json"]),
        }

    def search_reactions(self, query: object, limit: object = 10) -> dict[str, Any]:
        text, n = validate_search_args(query, limit)
        con = self._connect()
        hits = ranked_hits(con, 1, text, n)
        rows = {r["rowid"]: r for r in _fetch_rows(con, "reactions", [h.rowid for h in hits])}
        results = []
        for hit in hits[:n]:
            row = rows[hit.rowid]
            results.append({
                "id": row["id"], "name": row["name"], "equation": row["equation"],
                "ec_numbers": json.loads(row["ec_json"]), "status": row["status"],
                "match_field": hit.field,
                "match_type": "exact" if hit.tier <= 4 else "partial",
                "matched_value": hit.matched, "is_obsolete": bool(row["is_obsolete"]),
                "replaced_by": _split_links(row["linked"]) if row["is_obsolete"] else [],
            })
        return {"query": text, "results": results, "truncated": len(hits) > n}

def _rows_in(con: sqlite3.Connection, sql: str, values: Iterable[str], chunk_size: int = 500) -> list[sqlite3.Row]:
    """Rows of `sql` whose `IN ({marks})` list is `values`, queried in chunks (SQLite caps the
    number of parameters of one statement)."""
    wanted = list(dict.fromkeys(values))
    rows: list[sqlite3.Row] = []
    for start in range(0, len(wanted), chunk_size):
        chunk = wanted[start:start + chunk_size]
        rows.extend(con.execute(sql.format(marks=",".join("?" * len(chunk))), chunk).fetchall())
    return rows


def _fetch_rows(
    con: sqlite3.Connection, table: str, rowids: list[int], columns: str = "*"
) -> list[sqlite3.Row]:
    if not rowids:
        return []
    marks = ",".join("?" * len(rowids))
    return con.execute(f"SELECT {columns} FROM {table} WHERE rowid IN ({marks})", rowids).fetchall()


_LINK_SEPARATORS = re.compile(r"[;|,\s]+")


def _split_links(value: str) -> list[str]:
    return [v for v in _LINK_SEPARATORS.split(value) if v] if value else []
