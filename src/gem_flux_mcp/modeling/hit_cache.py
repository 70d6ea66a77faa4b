"""Homology hits kept on disk per protein sequence, so a genome built again aligns only what is new.

A protein's hits against a reference do not depend on the other proteins searched with it
(MMseqs2 and DIAMOND prefilter, align and compute E-values per query against the same target
database), so they can be kept per sequence: rebuilding a genome with another template or
options, `--template auto` rebuilding in a new worker process, a batch run again, or the tests
building the same proteome in several processes, align nothing twice. A test checks that hits
assembled from two searches equal one search of all the proteins.

One SQLite file per reference file and aligner (`hits-<key>.sqlite` in the index folder, beside
MMseqs2's target index), keyed by the SHA-256 of the sequence; a protein without hits is kept
too. Writes are one transaction per search, so concurrent builds (batch workers) only wait for
each other. The file is bounded: past `MAX_SEQUENCES` the oldest half is dropped. It is only a
cache: a file that cannot be read or written (damaged, a full disk) is logged and searched
around, never a build's failure.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import zlib
from collections.abc import Iterable, Mapping
from contextlib import closing
from pathlib import Path

log = logging.getLogger(__name__)

MAX_SEQUENCES = 400_000  # ~100 bacterial proteomes, ~100-200 MB
BUSY_TIMEOUT_S = 60.0
Row = tuple[str, float, float, float]  # target, identity (%), E-value, bit score


def sequence_key(sequence: str) -> bytes:
    return hashlib.sha256(sequence.encode()).digest()


class HitCache:
    """The kept hits of one reference file searched with one aligner and its settings."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def beside(cls, index_dir: Path, key: str) -> HitCache:
        """The cache of the reference and search settings that `key` names, in `index_dir`."""
        return cls(index_dir / f"hits-{key}.sqlite")

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE IF NOT EXISTS hits (sequence BLOB PRIMARY KEY, rows BLOB NOT NULL)")
        return db

    def lookup(self, sequences: Iterable[str]) -> dict[str, list[Row]]:
        """The kept hits of those of `sequences` searched before (absent ones are not in the answer)."""
        wanted = {sequence_key(s): s for s in sequences}
        if not wanted or not self.path.is_file():
            return {}
        found: dict[str, list[Row]] = {}
        keys = list(wanted)
        try:
            with closing(self._connect()) as db:
                for start in range(0, len(keys), 500):
                    chunk = keys[start:start + 500]
                    marks = ",".join("?" * len(chunk))
                    for key, rows in db.execute(f"SELECT sequence, rows FROM hits WHERE sequence IN ({marks})",
                                                chunk):
                        found[wanted[key]] = _decode(rows)
        except (sqlite3.Error, zlib.error, ValueError) as error:
            log.warning("kept homology hits in %s not read (%s): searching all proteins", self.path, error)
            return {}
        return found

    def store(self, hits: Mapping[str, list[Row]]) -> None:
        """Keep each sequence's hits (an empty list for a protein without any)."""
        if not hits:
            return
        try:
            with closing(self._connect()) as db:
                db.execute("BEGIN IMMEDIATE")
                db.executemany("INSERT OR REPLACE INTO hits (sequence, rows) VALUES (?, ?)",
                               [(sequence_key(s), _encode(rows)) for s, rows in hits.items()])
                (count,) = db.execute("SELECT count(*) FROM hits").fetchone()
                if count > MAX_SEQUENCES:  # the oldest half goes (rowids grow with insertion)
                    db.execute("DELETE FROM hits WHERE rowid IN (SELECT rowid FROM hits ORDER BY rowid LIMIT ?)",
                               (count - MAX_SEQUENCES // 2,))
                db.execute("COMMIT")
        except (sqlite3.Error, OSError) as error:  # rolled back when the connection closes
            log.warning("homology hits not kept in %s (%s)", self.path, error)


def _encode(rows: list[Row]) -> bytes:
    return zlib.compress("\n".join(f"{t}\t{i!r}\t{e!r}\t{b!r}" for t, i, e, b in rows).encode())


def _decode(blob: bytes) -> list[Row]:
    text = zlib.decompress(blob).decode()
    rows = []
    for line in text.split("\n") if text else []:
        target, identity, evalue, bits = line.split("\t")
        rows.append((target, float(identity), float(evalue), float(bits)))
    return rows
