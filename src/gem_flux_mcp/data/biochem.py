"""ModelSEED biochemistry index: O(1) look-ups and ranked search over compounds and reactions.

The TSVs (67 MB) are parsed once into a SQLite file in the cache folder, named after the sha256
of their contents; later starts open that file read-only in milliseconds. Search uses an FTS5
trigram index (substring matching, like the reference implementation) and ranks in SQL, so a
query touches only the rows that match.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gem_flux_mcp.data import tsv
from gem_flux_mcp.data.fingerprint import fingerprint_paths
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError, NotFoundError, ValidationError
from gem_flux_mcp.fsutil import fsync_dir

log = logging.getLogger(__name__)

INDEX_SCHEMA_VERSION = 6

COMPOUND_ID = re.compile(r"^cpd\d{5}$")
REACTION_ID = re.compile(r"^rxn\d{5}$")
# Model-style ids (cpd00027_c0, rxn00148_c) name the same database entry.
_MODEL_SUFFIX = re.compile(r"^((?:cpd|rxn)\d{5})_[a-z]\d*$")
_EC_QUERY = re.compile(r"^(?:ec[:\s]*)?(\d+)\.(\d+|-)(?:\.(n?\d+|-))?(?:\.(n?\d+|-))?\.?$")
_WORD = re.compile(r"[a-z0-9]+")

MAX_QUERY_LENGTH = 100
# Below this many matches a query is ranked in one pass; above it, tier by tier with early stops.
_RARE_CAP = 400
MAX_LIMIT = 100

# Exact-match kinds in the `terms` table, and the rank tier each gives a hit (lower is better).
K_NAME, K_SYNONYM, K_ABBREV, K_XREF, K_FORMULA = 1, 2, 3, 4, 5
# An exact hit on any name-like field is one tier: how well known the entry is decides.
_EXACT_TIER = {K_NAME: 1, K_SYNONYM: 1, K_ABBREV: 1, K_XREF: 1, K_FORMULA: 4}
_EXACT_FIELD = {
    K_NAME: "name", K_SYNONYM: "synonym", K_ABBREV: "abbreviation", K_XREF: "external_id",
    K_FORMULA: "formula",
}
# Cross-reference sources that mark an entry as one that models actually use.
_MODEL_SOURCES = {"BiGG": 2, "KEGG": 2, "MetaCyc": 1, "ChEBI": 1}
_SKIP_XREF_SOURCES = {"Name", "name"}


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
    pattern, example, tool = (
        (COMPOUND_ID, "cpd00027", "search_compounds")
        if kind == "compound"
        else (REACTION_ID, "rxn00148", "search_reactions")
    )
    param = f"{kind}_id"
    if not isinstance(raw, str) or not raw.strip():
        raise ValidationError(
            ErrorCode.EMPTY_ID if isinstance(raw, str) else ErrorCode.INVALID_ID_FORMAT,
            f"{param} must be a non-empty string like '{example}'.",
            details={"provided": raw if isinstance(raw, str | int | float) else str(raw)},
            suggestions=[f"Pass a ModelSEED {kind} id such as '{example}'."],
            example_call={"tool": f"get_{kind}_name", "arguments": {param: example}},
        )
    value = raw.strip().lower()
    suffixed = _MODEL_SUFFIX.match(value)
    if suffixed:
        value = suffixed.group(1)
    if not pattern.match(value):
        shown = raw if len(raw) <= 60 else raw[:57] + "..."
        raise ValidationError(
            ErrorCode.INVALID_ID_FORMAT,
            f"'{shown}' is not a ModelSEED {kind} id (expected '{pattern.pattern[1:4]}' followed "
            f"by 5 digits, e.g. '{example}').",
            details={"provided": shown, "expected_pattern": pattern.pattern},
            suggestions=[
                f"To find a {kind} by name or external id, call {tool} with that text.",
            ],
            valid_next_steps=[tool, f"get_{kind}_name"],
            example_call={"tool": tool, "arguments": {"query": raw.strip()[:60], "limit": 5}},
        )
    return value


def validate_search_args(query: object, limit: object, tool: str) -> tuple[str, int]:
    if not isinstance(query, str) or not query.strip():
        raise ValidationError(
            ErrorCode.EMPTY_QUERY,
            "query must be a non-empty string.",
            details={"provided": query if isinstance(query, str) else repr(query)[:60]},
            suggestions=["Search by name ('glucose'), id, formula, EC number or external id."],
            example_call={"tool": tool, "arguments": {"query": "glucose", "limit": 10}},
        )
    if "\x00" in query:
        raise ValidationError(ErrorCode.INVALID_QUERY, "query contains a NUL byte.", details={},
                              example_call={"tool": tool, "arguments": {"query": "glucose", "limit": 10}})
    text = " ".join(query.split())
    if len(text) > MAX_QUERY_LENGTH:
        raise ValidationError(
            ErrorCode.QUERY_TOO_LONG,
            f"query is {len(text)} characters long; the maximum is {MAX_QUERY_LENGTH}.",
            details={"length": len(text), "max_length": MAX_QUERY_LENGTH},
            suggestions=["Shorten the query to the distinctive part of a name or id."],
            example_call={"tool": tool, "arguments": {"query": text[:30], "limit": 10}},
        )
    return text.lower(), check_search_limit(limit, tool, text)


def check_search_limit(limit: object, tool: str, query: str = "glucose") -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(
            ErrorCode.INVALID_LIMIT,
            f"limit must be an integer from 1 to {MAX_LIMIT}; got {limit!r}.",
            details={"provided": limit if isinstance(limit, int) else repr(limit)[:30],
                     "min": 1, "max": MAX_LIMIT},
            suggestions=[f"Use a limit between 1 and {MAX_LIMIT} (default 10)."],
            example_call={"tool": tool, "arguments": {"query": query, "limit": 10}},
        )
    return limit


def _name_words(text: str) -> str:
    return " " + " ".join(_WORD.findall(text.lower())) + " "


def _prominence(aliases: dict[str, list[str]], extra: int = 0) -> int:
    return extra + sum(weight for source, weight in _MODEL_SOURCES.items() if source in aliases)


def _fts_phrase(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


# ----------------------------------------------------------------------------------------------
# building the index


_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE compounds (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
    abbreviation TEXT NOT NULL, formula TEXT NOT NULL, mass REAL, charge INTEGER,
    inchikey TEXT NOT NULL, smiles TEXT NOT NULL, is_core INTEGER NOT NULL,
    is_obsolete INTEGER NOT NULL, linked TEXT NOT NULL, deltag REAL, deltagerr REAL,
    aliases_json TEXT NOT NULL, prominence INTEGER NOT NULL, name_len INTEGER NOT NULL,
    name_lc TEXT NOT NULL, name_words TEXT NOT NULL, syn_lc TEXT NOT NULL, xref_lc TEXT NOT NULL
);
CREATE TABLE reactions (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
    abbreviation TEXT NOT NULL, equation TEXT NOT NULL, equation_ids TEXT NOT NULL,
    reversibility TEXT NOT NULL, is_transport INTEGER NOT NULL, ec_json TEXT NOT NULL,
    pathways_json TEXT NOT NULL, aliases_json TEXT NOT NULL, deltag REAL, deltagerr REAL,
    status TEXT NOT NULL, is_obsolete INTEGER NOT NULL, linked TEXT NOT NULL,
    prominence INTEGER NOT NULL, name_len INTEGER NOT NULL, name_lc TEXT NOT NULL,
    name_words TEXT NOT NULL, syn_lc TEXT NOT NULL, xref_lc TEXT NOT NULL, extra_lc TEXT NOT NULL
);
CREATE TABLE terms (entity INTEGER NOT NULL, term TEXT NOT NULL, kind INTEGER NOT NULL,
                    ref INTEGER NOT NULL, shown TEXT NOT NULL);
CREATE TABLE ec (ec TEXT NOT NULL, ref INTEGER NOT NULL);
"""

_POST_SCHEMA = """
CREATE INDEX terms_lookup ON terms (entity, term);
CREATE INDEX ec_lookup ON ec (ec, ref);
CREATE INDEX compounds_name ON compounds (name_lc);
CREATE INDEX reactions_name ON reactions (name_lc);
CREATE VIRTUAL TABLE compounds_fts USING fts5(
    name_lc, syn_lc, xref_lc, content='compounds', content_rowid='rowid', tokenize='trigram');
INSERT INTO compounds_fts(compounds_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE reactions_fts USING fts5(
    name_lc, syn_lc, xref_lc, content='reactions', content_rowid='rowid', tokenize='trigram');
INSERT INTO reactions_fts(reactions_fts) VALUES ('rebuild');
-- pathway names and equations repeat across thousands of reactions: a separate index keeps
-- their long posting lists out of name searches
CREATE VIRTUAL TABLE reactions_extra_fts USING fts5(
    extra_lc, content='reactions', content_rowid='rowid', tokenize='trigram');
INSERT INTO reactions_extra_fts(reactions_extra_fts) VALUES ('rebuild');
"""


def _compound_rows(path: Path, terms: list[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    seen: set[str] = set()
    for rowid, row in enumerate(tsv.read_rows(path, tsv.COMPOUND_COLUMNS), start=1):
        cid = tsv.clean(row["id"])
        if not COMPOUND_ID.match(cid):
            raise DataError(ErrorCode.DATABASE_INVALID_IDS, f"compounds.tsv has an invalid id: {cid!r}")
        if cid in seen:
            raise DataError(ErrorCode.DATABASE_DUPLICATE_IDS, f"compounds.tsv repeats the id {cid}")
        seen.add(cid)
        name, abbrev, formula = (tsv.clean(row[k]) for k in ("name", "abbreviation", "formula"))
        aliases = tsv.parse_aliases(row["aliases"])
        synonyms = aliases.get("Name", [])
        xrefs = [(src, v) for src, vals in aliases.items() if src not in _SKIP_XREF_SOURCES
                 for v in vals]
        _add_terms(terms, 0, rowid, name, abbrev, synonyms, xrefs)
        if formula:
            terms.append((0, formula.lower(), K_FORMULA, rowid, formula))
        charge = tsv.to_float(row["charge"])
        yield (
            rowid, cid, name, abbrev, formula, tsv.to_float(row["mass"]),
            None if charge is None else int(charge), tsv.clean(row["inchikey"]),
            tsv.clean(row["smiles"]), int(tsv.to_bool(row["is_core"])),
            int(tsv.to_bool(row["is_obsolete"])), tsv.clean(row["linked_compound"]),
            tsv.to_float(row["deltag"]), tsv.to_float(row["deltagerr"]), json.dumps(aliases),
            _prominence(aliases, 1 if tsv.to_bool(row["is_core"]) else 0),
            len(name) if name else 999, name.lower(), _name_words(name),
            " | ".join(synonyms).lower(), " | ".join(v for _, v in xrefs).lower(),
        )


def _reaction_rows(
    path: Path, terms: list[tuple[Any, ...]], ecs: list[tuple[str, int]]
) -> Iterator[tuple[Any, ...]]:
    seen: set[str] = set()
    for rowid, row in enumerate(tsv.read_rows(path, tsv.REACTION_COLUMNS), start=1):
        rid = tsv.clean(row["id"])
        if not REACTION_ID.match(rid):
            raise DataError(ErrorCode.DATABASE_INVALID_IDS, f"reactions.tsv has an invalid id: {rid!r}")
        if rid in seen:
            raise DataError(ErrorCode.DATABASE_DUPLICATE_IDS, f"reactions.tsv repeats the id {rid}")
        seen.add(rid)
        name, abbrev = tsv.clean(row["name"]), tsv.clean(row["abbreviation"])
        aliases = tsv.parse_aliases(row["aliases"])
        synonyms = aliases.get("Name", [])
        xrefs = [(src, v) for src, vals in aliases.items() if src not in _SKIP_XREF_SOURCES
                 for v in vals]
        _add_terms(terms, 1, rowid, name, abbrev, synonyms, xrefs)
        ec_numbers = list(dict.fromkeys(tsv.split_list(row["ec_numbers"])))
        ecs.extend((ec, rowid) for ec in ec_numbers)
        pathways = tsv.parse_pathways(row["pathways"])
        is_transport = tsv.to_bool(row["is_transport"])
        equation = tsv.readable_equation(row["definition"], is_transport)
        status = tsv.clean(row["status"])
        bonus = (1 if status == "OK" else 0) + (1 if ec_numbers else 0)
        yield (
            rowid, rid, name, abbrev, equation, tsv.clean(row["equation"]),
            tsv.clean(row["reversibility"]) or "?", int(is_transport), json.dumps(ec_numbers),
            json.dumps(pathways), json.dumps(aliases), tsv.to_float(row["deltag"]),
            tsv.to_float(row["deltagerr"]), status, int(tsv.to_bool(row["is_obsolete"])),
            tsv.clean(row["linked_reaction"]), _prominence(aliases, bonus),
            len(name) if name else 999, name.lower(), _name_words(name),
            " | ".join(synonyms).lower(), " | ".join(v for _, v in xrefs).lower(),
            (" | ".join(p["name"] for p in pathways) + " || " + equation).lower(),
        )


def _add_terms(
    terms: list[tuple[Any, ...]], entity: int, rowid: int, name: str, abbrev: str,
    synonyms: list[str], xrefs: list[tuple[str, str]],
) -> None:
    if name:
        terms.append((entity, name.lower(), K_NAME, rowid, name))
    if abbrev:
        terms.append((entity, abbrev.lower(), K_ABBREV, rowid, abbrev))
    for synonym in synonyms:
        terms.append((entity, synonym.lower(), K_SYNONYM, rowid, synonym))
    for source, value in xrefs:
        terms.append((entity, value.lower(), K_XREF, rowid, f"{source}: {value}"))


def _ranked(
    rows: list[tuple[Any, ...]], key: Any
) -> tuple[list[tuple[Any, ...]], dict[int, int]]:
    """Rows renumbered in rank order, and the map from provisional to final rowid."""
    ordered = sorted(rows, key=key)
    remap = {row[0]: new for new, row in enumerate(ordered, start=1)}
    return [(remap[row[0]], *row[1:]) for row in ordered], remap


def build_index(compounds_tsv: Path, reactions_tsv: Path, target: Path, meta: dict[str, str]) -> None:
    """Parse both TSVs into a new SQLite file at `target` (written aside, then renamed)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    started = time.perf_counter()
    con = sqlite3.connect(tmp)
    try:
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.executescript(_SCHEMA)
        terms: list[tuple[Any, ...]] = []
        ecs: list[tuple[str, int]] = []
        # rowid order = static rank (current before obsolete, well known first, short names
        # first), so searches can stream matches in rowid order and stop after `limit`.
        compounds, cpd_map = _ranked(list(_compound_rows(compounds_tsv, terms)),
                                     lambda r: (r[10], -r[15], r[16], r[17], r[1]))
        reactions, rxn_map = _ranked(list(_reaction_rows(reactions_tsv, terms, ecs)),
                                     lambda r: (r[14], -r[16], r[17], r[18], r[1]))
        con.executemany(f"INSERT INTO compounds VALUES ({','.join('?' * 21)})", compounds)
        con.executemany(f"INSERT INTO reactions VALUES ({','.join('?' * 23)})", reactions)
        maps = (cpd_map, rxn_map)
        con.executemany("INSERT INTO terms VALUES (?,?,?,?,?)",
                        ((e, t, k, maps[e][ref], shown) for e, t, k, ref, shown in terms))
        con.executemany("INSERT INTO ec VALUES (?,?)", ((ec, rxn_map[ref]) for ec, ref in ecs))
        con.executescript(_POST_SCHEMA)
        counts = {
            "compound_count": str(con.execute("SELECT count(*) FROM compounds").fetchone()[0]),
            "reaction_count": str(con.execute("SELECT count(*) FROM reactions").fetchone()[0]),
            "schema_version": str(INDEX_SCHEMA_VERSION),
        }
        con.executemany("INSERT INTO meta VALUES (?,?)", {**meta, **counts}.items())
        con.commit()
        con.close()
        with tmp.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, target)
        fsync_dir(target.parent)
    except BaseException:
        con.close()
        tmp.unlink(missing_ok=True)
        raise
    log.info("built biochemistry index %s in %.1f s", target.name, time.perf_counter() - started)


# ----------------------------------------------------------------------------------------------
# querying


class BiochemIndex:
    """Read-only access to the index. One SQLite connection per thread (tools run in threads)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
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
                suggestions=["Check the id, or search by name with search_compounds."],
                valid_next_steps=["search_compounds"],
                example_call={"tool": "search_compounds", "arguments": {"query": "glucose"}},
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
        hydroxide); the canonical one is current, has that id as its abbreviation, is a core
        compound, and has the oldest id.
        """
        wanted = {v.lower(): v for v in values}
        prefix = f"{source}: "
        best: dict[str, tuple[tuple[int, int, int, str], str]] = {}
        rows = _rows_in(
            self._connect(),
            "SELECT t.term, t.shown, c.id, c.is_obsolete, lower(c.abbreviation), c.is_core FROM terms t "
            f"JOIN compounds c ON c.rowid = t.ref WHERE t.entity = 0 AND t.kind = {K_XREF} AND t.term IN ({{marks}})",
            wanted,
        )
        for term, shown, cid, obsolete, abbreviation, is_core in rows:
            if not shown.startswith(prefix):
                continue
            rank = (obsolete, int(abbreviation != term), -is_core, cid)
            if term not in best or rank < best[term][0]:
                best[term] = (rank, cid)
        return {wanted[term]: cid for term, (_, cid) in best.items()}

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

    def compound_names(self, ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        """{id: (name, formula)} for the ids that exist."""
        return {cid: (rec["name"], rec["formula"]) for cid, rec in self.compounds_by_ids(ids).items()}

    def reaction_names(self, ids: Iterable[str]) -> dict[str, str]:
        rows = _rows_in(self._connect(), "SELECT id, name FROM reactions WHERE id IN ({marks})", ids)
        return {str(r[0]): str(r[1]) for r in rows}

    def reaction_details(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """{id: {name, status, reversibility, pathways, equation, linked, deltag}} in one query."""
        rows = _rows_in(self._connect(), "SELECT id, name, status, reversibility, pathways_json, equation, "
                        "linked, deltag FROM reactions WHERE id IN ({marks})", ids)
        return {str(r[0]): {"name": str(r[1]), "status": str(r[2] or ""), "reversibility": str(r[3] or ""),
                            "pathways": json.loads(r[4] or "[]"), "equation": str(r[5] or ""),
                            "linked": _split_links(str(r[6] or "")),
                            "deltag": float(r[7]) if r[7] not in (None, "") else None} for r in rows}

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
        text, n = validate_search_args(query, limit, "search_compounds")
        hits = self._search(0, text, n)
        con = self._connect()
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
                suggestions=["Check the id, or search by name or EC number with search_reactions."],
                valid_next_steps=["search_reactions"],
                example_call={"tool": "search_reactions", "arguments": {"query": "pyruvate kinase"}},
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
        text, n = validate_search_args(query, limit, "search_reactions")
        hits = self._search(1, text, n)
        con = self._connect()
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

    # -- ranking --------------------------------------------------------------------------------

    def _search(self, entity: int, text: str, limit: int) -> list[Hit]:
        """Ranked hits, at most limit + 1 (the extra one tells that the list was truncated).

        Rank: exact id; exact name-like terms; formula; then partial matches by tier. Within a
        tier the rowid is the static rank (see build_index), so every query below can stop
        after `limit + 1` rows instead of sorting all matches of a common word.
        """
        con = self._connect()
        table = "compounds" if entity == 0 else "reactions"
        wanted = limit + 1
        best: dict[int, Hit] = {}

        def offer(hit: Hit) -> None:
            if hit.rowid not in best or hit.tier < best[hit.rowid].tier:
                best[hit.rowid] = hit

        idpat = COMPOUND_ID if entity == 0 else REACTION_ID
        suffixed = _MODEL_SUFFIX.match(text)
        ident = suffixed.group(1) if suffixed else text
        if idpat.match(ident):
            row = con.execute(f"SELECT rowid FROM {table} WHERE id = ?", (ident,)).fetchone()
            if row:
                offer(Hit(row[0], 0, "id", ident))
        for ref, kind, shown in con.execute(
            "SELECT ref, kind, shown FROM terms WHERE entity = ? AND term = ? ORDER BY ref LIMIT 500",
            (entity, text),
        ):
            offer(Hit(ref, _EXACT_TIER[kind], _EXACT_FIELD[kind], shown))
        if entity == 1 and _EC_QUERY.match(text):
            # An EC query is answered by EC components alone: a substring match would bring
            # back 2.7.1.10 for 2.7.1.1.
            for hit in self._ec_hits(con, text, wanted):
                offer(hit)
        elif len(best) < wanted:
            for hit in self._text_hits(con, entity, text, wanted, set(best)):
                offer(hit)
        if not best:
            return []
        obsolete = dict(con.execute(
            f"SELECT rowid, is_obsolete FROM {table} WHERE rowid IN ({','.join('?' * len(best))})", list(best)
        ).fetchall())

        def key(hit: Hit) -> tuple[Any, ...]:
            # An exact id always wins; otherwise current entries before obsolete ones.
            return (hit.tier != 0, obsolete[hit.rowid], hit.tier, hit.rowid)

        return sorted(best.values(), key=key)[:wanted]

    @staticmethod
    def _ec_hits(con: sqlite3.Connection, text: str, wanted: int) -> list[Hit]:
        """EC numbers match per component: 2.7.1.1 never matches 2.7.1.10; 2.7.1 or 2.7.1.-
        matches every 2.7.1.x."""
        match = _EC_QUERY.match(text)
        if not match:
            return []
        parts = [p for p in match.groups() if p is not None]
        while parts and parts[-1] == "-":
            parts.pop()
        if "-" in parts or len(parts) < 2:
            return []
        if len(parts) == 4:
            rows = con.execute("SELECT ref, ec FROM ec WHERE ec = ? ORDER BY ref LIMIT ?", (".".join(parts), wanted))
            return [Hit(ref, 1, "ec_numbers", ec) for ref, ec in rows]
        prefix = ".".join(parts) + "."
        rows = con.execute(
            "SELECT ref, min(ec) FROM ec WHERE ec >= ? AND ec < ? GROUP BY ref ORDER BY ref LIMIT ?",
            (prefix, prefix[:-1] + "/", wanted),
        )
        return [Hit(ref, 2, "ec_numbers", ec) for ref, ec in rows]

    @staticmethod
    def _text_hits(con: sqlite3.Connection, entity: int, text: str, wanted: int, have: set[int]) -> list[Hit]:
        """Every query word must appear (substring, case-insensitive). Tiers, best first: all
        words in the name as whole words (5) or substrings (6), in the synonyms (7), in the
        cross-references (8), in pathway names or the equation (9, reactions), spread over
        several fields (10). Each tier is one query that streams in rank order."""
        words = text.split()
        tokens = _WORD.findall(text)
        table = "compounds" if entity == 0 else "reactions"
        long_words = [w for w in words if len(w) >= 3]
        hits: list[Hit] = []
        seen = set(have)

        def collect(rows: Iterable[tuple[int, int]], field: str) -> bool:
            for rowid, tier in rows:
                if rowid not in seen:
                    seen.add(rowid)
                    hits.append(Hit(rowid, tier, field, text))
            return len(seen) >= wanted

        if not long_words:
            # Too short for trigrams ('o2', 'h+'): a two-letter substring is noise, so only
            # names that start with the query count, through the name index.
            rows = con.execute(
                f"SELECT rowid, 6 FROM {table} WHERE name_lc >= ? AND name_lc < ? ORDER BY rowid LIMIT ?",
                (text, text + chr(0x10FFFF), wanted),
            )
            collect(rows, "name")
            return hits
        match_all = " AND ".join(_fts_phrase(w) for w in long_words)
        short = [w for w in words if len(w) < 3]
        short_sql = "".join(" AND instr(t.name_lc, ?) > 0" for _ in short)
        whole = " AND ".join("instr(t.name_words, ?) > 0" for _ in tokens) or "1"
        whole_params = [f" {tok} " for tok in tokens]
        columns = ["name_lc", "syn_lc", "xref_lc"] + (["extra_lc"] if entity == 1 else [])
        fields = {"name_lc": "name", "syn_lc": "synonym", "xref_lc": "aliases", "extra_lc": "pathways_or_equation"}
        base_tier = {"name_lc": 6, "syn_lc": 7, "xref_lc": 8, "extra_lc": 9}
        # One pass over everything that matches; rare queries (most long ones) end here.
        in_name = " AND ".join("instr(t.name_lc, ?) > 0" for _ in words)
        in_syn = " AND ".join("instr(t.syn_lc, ?) > 0" for _ in words)
        in_xref = " AND ".join("instr(t.xref_lc, ?) > 0" for _ in words)
        tier_sql = (f"CASE WHEN ({in_name}) AND ({whole}) THEN 5 WHEN ({in_name}) THEN 6 "
                    f"WHEN ({in_syn}) THEN 7 WHEN ({in_xref}) THEN 8 ELSE 10 END")
        candidates = con.execute(
            f"SELECT t.rowid, {tier_sql} FROM (SELECT rowid FROM {table}_fts WHERE {table}_fts MATCH ? "
            f"ORDER BY rowid LIMIT ?) f JOIN {table} t ON t.rowid = f.rowid WHERE 1{short_sql}",
            [*words, *whole_params, *words, *words, *words, match_all, _RARE_CAP, *short],
        ).fetchall()
        if len(candidates) < _RARE_CAP:
            fields_by_tier = {5: "name", 6: "name", 7: "synonym", 8: "aliases", 10: "text"}
            ranked = sorted(candidates, key=lambda r: (r[1], r[0]))
            for rowid, tier in ranked:
                if rowid not in seen:
                    seen.add(rowid)
                    hits.append(Hit(rowid, tier, fields_by_tier[tier], text))
            if len(seen) < wanted and entity == 1:
                sql = (f"SELECT t.rowid, 9 FROM {table}_extra_fts f JOIN {table} t ON t.rowid = f.rowid "
                       f"WHERE {table}_extra_fts MATCH ?{short_sql} ORDER BY f.rowid LIMIT ?")
                collect(con.execute(sql, [match_all, *short, wanted]).fetchall(), "pathways_or_equation")
            return hits
        # A common query: each tier streams in rank order and stops after `wanted` rows.
        for column in columns:
            fts = f"{table}_extra_fts" if column == "extra_lc" else f"{table}_fts"
            scoped = match_all if column == "extra_lc" else f"{column} : ({match_all})"
            if column == "name_lc":
                sql = (f"SELECT t.rowid, CASE WHEN {whole} THEN 5 ELSE 6 END FROM {fts} f "
                       f"JOIN {table} t ON t.rowid = f.rowid WHERE {fts} MATCH ?{short_sql} "
                       "ORDER BY f.rowid LIMIT ?")
                params: list[Any] = [*whole_params, scoped, *short, wanted]
            else:
                sql = (f"SELECT t.rowid, {base_tier[column]} FROM {fts} f JOIN {table} t "
                       f"ON t.rowid = f.rowid WHERE {fts} MATCH ?{short_sql} ORDER BY f.rowid LIMIT ?")
                params = [scoped, *short, wanted]
            if collect(con.execute(sql, params).fetchall(), fields[column]):
                return hits
        sql = (f"SELECT t.rowid, 10 FROM {table}_fts f JOIN {table} t ON t.rowid = f.rowid "
               f"WHERE {table}_fts MATCH ?{short_sql} ORDER BY f.rowid LIMIT ?")
        collect(con.execute(sql, [match_all, *short, wanted]).fetchall(), "text")
        return hits


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


def _split_links(value: str) -> list[str]:
    return [v for v in re.split(r"[;|,\s]+", value) if v]
