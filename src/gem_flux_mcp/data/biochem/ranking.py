"""Ranked search of the biochemistry index: which compounds or reactions a query names, best
first (exact id, exact name-like terms, formula, then partial matches by tier), each tier read in
the index's static rank order so a query stops after `limit + 1` rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from gem_flux_mcp.data.biochem.queries import (
    COMPOUND_ID,
    EC_QUERY,
    EXACT_FIELD,
    EXACT_TIER,
    MODEL_SUFFIX,
    RARE_CAP,
    REACTION_ID,
    WORD,
    Hit,
    fts_phrase,
)


def ranked_hits(con: sqlite3.Connection, entity: int, text: str, limit: int) -> list[Hit]:
    """Ranked hits, at most limit + 1 (the extra one tells that the list was truncated).

    Rank: exact id; exact name-like terms; formula; then partial matches by tier. Within a
    tier the rowid is the static rank (see build_index), so every query below can stop
    after `limit + 1` rows instead of sorting all matches of a common word.
    """
    table = "compounds" if entity == 0 else "reactions"
    wanted = limit + 1
    best: dict[int, Hit] = {}

    def offer(hit: Hit) -> None:
        if hit.rowid not in best or hit.tier < best[hit.rowid].tier:
            best[hit.rowid] = hit

    idpat = COMPOUND_ID if entity == 0 else REACTION_ID
    suffixed = MODEL_SUFFIX.match(text)
    ident = suffixed.group(1) if suffixed else text
    if idpat.match(ident):
        row = con.execute(f"SELECT rowid FROM {table} WHERE id = ?", (ident,)).fetchone()
        if row:
            offer(Hit(row[0], 0, "id", ident))
    for ref, kind, shown in con.execute(
        "SELECT ref, kind, shown FROM terms WHERE entity = ? AND term = ? ORDER BY ref LIMIT 500",
        (entity, text),
    ):
        offer(Hit(ref, EXACT_TIER[kind], EXACT_FIELD[kind], shown))
    if entity == 1 and EC_QUERY.match(text):
        # An EC query is answered by EC components alone: a substring match would bring
        # back 2.7.1.10 for 2.7.1.1.
        for hit in _ec_hits(con, text, wanted):
            offer(hit)
    elif len(best) < wanted:
        for hit in _text_hits(con, entity, text, wanted, set(best)):
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


def _ec_hits(con: sqlite3.Connection, text: str, wanted: int) -> list[Hit]:
    """EC numbers match per component: 2.7.1.1 never matches 2.7.1.10; 2.7.1 or 2.7.1.-
    matches every 2.7.1.x."""
    match = EC_QUERY.match(text)
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


def _text_hits(con: sqlite3.Connection, entity: int, text: str, wanted: int, have: set[int]) -> list[Hit]:
    """Every query word must appear (substring, case-insensitive). Tiers, best first: all
    words in the name as whole words (5) or substrings (6), in the synonyms (7), in the
    cross-references (8), in pathway names or the equation (9, reactions), spread over
    several fields (10). Each tier is one query that streams in rank order."""
    words = text.split()
    tokens = WORD.findall(text)
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
    match_all = " AND ".join(fts_phrase(w) for w in long_words)
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
        [*words, *whole_params, *words, *words, *words, match_all, RARE_CAP, *short],
    ).fetchall()
    if len(candidates) < RARE_CAP:
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
