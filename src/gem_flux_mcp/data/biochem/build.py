"""Building the biochemistry index: the ModelSEED TSVs parsed once into a SQLite file with an FTS5
trigram index of names, synonyms and external ids."""


from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gem_flux_mcp.data import tsv
from gem_flux_mcp.data.biochem.queries import (
    COMPOUND_ID,
    INDEX_SCHEMA_VERSION,
    K_ABBREV,
    K_FORMULA,
    K_NAME,
    K_SYNONYM,
    K_XREF,
    REACTION_ID,
    SKIP_XREF_SOURCES,
    name_words,
    prominence,
)
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError
from gem_flux_mcp.fsutil import fsync_dir

log = logging.getLogger(__name__)

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
        xrefs = [(src, v) for src, vals in aliases.items() if src not in SKIP_XREF_SOURCES
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
            prominence(aliases, 1 if tsv.to_bool(row["is_core"]) else 0),
            len(name) if name else 999, name.lower(), name_words(name),
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
        xrefs = [(src, v) for src, vals in aliases.items() if src not in SKIP_XREF_SOURCES
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
            tsv.clean(row["linked_reaction"]), prominence(aliases, bonus),
            len(name) if name else 999, name.lower(), name_words(name),
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
