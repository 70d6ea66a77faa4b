"""Look-up latency benchmark for the four gem-flux tools.

Queries are drawn deterministically (seeded random) from the ModelSEED TSVs themselves, in
these categories:

  compound ids, reaction ids                      → get_compound_name / get_reaction_name
  exact names, one random word (≥4 letters) of a name, formulas,
  KEGG and BiGG ids from the aliases column       → search_compounds / search_reactions
  EC numbers, full (2.7.1.40) and 3-component (2.7.1)  → search_reactions

Each query is then timed
  (a) in-process, against `BiochemIndex` (every query run once untimed first, so the SQLite
      pages are warm, then timed), and
  (b) through the official MCP Python SDK client over stdio against `gem-flux serve` (one
      session, sequential calls; a full untimed pass first, then the timed pass).

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/lookups.py [--per-category 100]

The index is built into GEMFLUX_CACHE_DIR (or --cache-dir) if it is not there yet; with neither
set, a temporary folder is used (and the ~13 s build is part of the run).
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import platform
import random
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.errors import GemFluxError

TARGET_P95_MS = 5.0  # in-process p95 per tool must stay below this
MAX_QUERY = 100  # the tools reject longer queries
TOOLS = ("get_compound_name", "search_compounds", "get_reaction_name", "search_reactions")
_FULL_EC = re.compile(r"^\d+\.\d+\.\d+\.\d+$")
_WORD = re.compile(r"[A-Za-z]{4,}")


@dataclass(frozen=True)
class Query:
    category: str
    tool: str
    text: str
    source: str  # the id of the entry the query was taken from

    def arguments(self) -> dict[str, Any]:
        if self.tool == "get_compound_name":
            return {"compound_id": self.text}
        if self.tool == "get_reaction_name":
            return {"reaction_id": self.text}
        return {"query": self.text, "limit": 10}


@dataclass
class Outcome:
    seconds: float
    found: int  # results returned (1 or 0 for the get_* tools)
    has_source: bool  # the entry the query came from is among the results
    error: str = ""


# ----------------------------------------------------------------------------------------------
# building the queries


def require_data_dir() -> Path:
    value = os.environ.get("GEMFLUX_DATA_DIR")
    if not value:
        sys.exit("error: set GEMFLUX_DATA_DIR to the reference data folder (the one holding "
                 "modelseed/compounds.tsv and modelseed/reactions.tsv)")
    data_dir = Path(value).expanduser().resolve()
    for name in ("compounds.tsv", "reactions.tsv"):
        if not (data_dir / "modelseed" / name).is_file():
            sys.exit(f"error: GEMFLUX_DATA_DIR={value}: {data_dir / 'modelseed' / name} not found")
    return data_dir


def read_tsv(path: Path) -> Iterator[dict[str, str]]:
    """Rows as dicts; the files are unquoted TSV, `null` marks a missing value."""
    with path.open(encoding="utf-8", newline="") as handle:
        header = handle.readline().rstrip("\r\n").split("\t")
        for line in handle:
            values = line.rstrip("\r\n").split("\t")
            yield {k: ("" if v.strip() == "null" else v.strip()) for k, v in zip(header, values, strict=False)}


def aliases(value: str) -> dict[str, list[str]]:
    """`Source: v1; v2|Source2: v3` → {source: [values]}."""
    found: dict[str, list[str]] = {}
    for block in value.split("|"):
        source, sep, rest = block.partition(":")
        if sep:
            found.setdefault(source.strip(), []).extend(v.strip() for v in rest.split(";") if v.strip())
    return found


def usable(text: str) -> bool:
    return 0 < len(" ".join(text.split())) <= MAX_QUERY


def pick(rng: random.Random, pool: dict[str, str], n: int) -> list[tuple[str, str]]:
    """n distinct (value, source id) pairs; the pool is sorted first so the draw is stable."""
    items = sorted(pool.items())
    return rng.sample(items, min(n, len(items)))


def build_queries(data_dir: Path, per_category: int, seed: int) -> list[Query]:
    rng = random.Random(seed)
    queries: list[Query] = []

    def add(category: str, tool: str, pairs: list[tuple[str, str]]) -> None:
        queries.extend(Query(category, tool, text, source) for text, source in pairs)

    for entity, tool, getter in (("compound", "search_compounds", "get_compound_name"),
                                 ("reaction", "search_reactions", "get_reaction_name")):
        rows = list(read_tsv(data_dir / "modelseed" / f"{entity}s.tsv"))
        ids = {r["id"]: r["id"] for r in rows}
        names: dict[str, str] = {}
        kegg: dict[str, str] = {}
        bigg: dict[str, str] = {}
        formulas: dict[str, str] = {}
        ec_full: dict[str, str] = {}
        ec_three: dict[str, str] = {}
        for r in rows:  # first row wins for a value that several entries share
            if usable(r["name"]):
                names.setdefault(r["name"], r["id"])
            alias = aliases(r["aliases"])
            for value in alias.get("KEGG", []):
                kegg.setdefault(value, r["id"])
            for value in alias.get("BiGG", []):
                bigg.setdefault(value, r["id"])
            if entity == "compound" and r["formula"]:
                formulas.setdefault(r["formula"], r["id"])
            if entity == "reaction":
                for ec in re.split(r"[|;]", r["ec_numbers"]):
                    ec = ec.strip()
                    if _FULL_EC.match(ec):
                        ec_full.setdefault(ec, r["id"])
                        ec_three.setdefault(ec.rsplit(".", 1)[0], r["id"])
        add(f"{entity} id", getter, pick(rng, ids, per_category))
        add(f"{entity} exact name", tool, pick(rng, names, per_category))
        # partial: a random name, then a random word of at least 4 letters from it
        partial: list[tuple[str, str]] = []
        named = sorted((n, i) for n, i in names.items() if _WORD.search(n))
        for name, source in rng.sample(named, min(per_category, len(named))):
            partial.append((rng.choice(_WORD.findall(name)), source))
        add(f"{entity} name word", tool, partial)
        if entity == "compound":
            add("formula", tool, pick(rng, formulas, per_category))
        else:
            add("EC full", tool, pick(rng, ec_full, per_category))
            add("EC 3-part", tool, pick(rng, ec_three, per_category))
        add(f"{entity} KEGG id", tool, pick(rng, kegg, per_category))
        add(f"{entity} BiGG id", tool, pick(rng, bigg, per_category))
    rng.shuffle(queries)  # mixed order: no category runs with a cache warmed by its neighbours
    return queries


# ----------------------------------------------------------------------------------------------
# measuring


def outcome_of(query: Query, payload: dict[str, Any], seconds: float) -> Outcome:
    if query.tool.startswith("get_"):
        return Outcome(seconds, 1, payload.get("id") == query.source)
    ids = [r["id"] for r in payload.get("results", [])]
    return Outcome(seconds, len(ids), query.source in ids)


def run_in_process(index: BiochemIndex, queries: list[Query]) -> list[Outcome]:
    calls: dict[str, Callable[..., dict[str, Any]]] = {
        "get_compound_name": index.get_compound, "search_compounds": index.search_compounds,
        "get_reaction_name": index.get_reaction, "search_reactions": index.search_reactions,
    }

    def call(query: Query) -> Outcome:
        fn = calls[query.tool]
        started = time.perf_counter()
        try:
            payload = fn(query.text) if query.tool.startswith("get_") else fn(query.text, 10)
        except GemFluxError as exc:
            return Outcome(time.perf_counter() - started, 0, False, exc.code)
        return outcome_of(query, payload, time.perf_counter() - started)

    for query in queries:  # warm-up: every query once, untimed
        call(query)
    return [call(query) for query in queries]


async def run_over_mcp(queries: list[Query], env: dict[str, str], errlog_path: Path) -> tuple[list[Outcome], float]:
    """Timed pass over one stdio session (after an untimed pass); also the untimed pass's p95."""
    gem_flux = str(Path(sys.executable).with_name("gem-flux"))
    params = StdioServerParameters(command=gem_flux, args=["serve"], env=env)
    with errlog_path.open("w", encoding="utf-8") as errlog:
        # stdio_client(...) is what Client(StdioServerParameters) builds; passing it directly only
        # sends the server's stderr log to a file.
        async with Client(stdio_client(params, errlog=errlog), mode="legacy", cache=None,
                          read_timeout_seconds=120) as client:

            async def one(query: Query) -> Outcome:
                started = time.perf_counter()
                result = await client.call_tool(query.tool, query.arguments())
                seconds = time.perf_counter() - started
                payload = dict(result.structured_content or {})
                if result.is_error:
                    return Outcome(seconds, 0, False, str(payload.get("error_code", "error")))
                return outcome_of(query, payload, seconds)

            first = [await one(q) for q in queries]
            timed = [await one(q) for q in queries]
    return timed, percentile([o.seconds for o in first], 95)


# ----------------------------------------------------------------------------------------------
# reporting


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def tool_table(title: str, queries: list[Query], outcomes: list[Outcome]) -> dict[str, float]:
    """Per-tool latency table; returns the p95 (s) per tool."""
    grouped: dict[str, list[float]] = defaultdict(list)
    for query, outcome in zip(queries, outcomes, strict=True):
        grouped[query.tool].append(outcome.seconds)
    print(title)
    header = f"{'tool':<19} {'n':>5} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} {'mean ms':>8}"
    print(header)
    print("-" * len(header))
    p95: dict[str, float] = {}
    everything: list[float] = []
    for tool in TOOLS:
        values = grouped[tool]
        everything.extend(values)
        p95[tool] = percentile(values, 95)
        print(f"{tool:<19} {len(values):>5} {ms(percentile(values, 50)):>8} {ms(p95[tool]):>8} "
              f"{ms(percentile(values, 99)):>8} {ms(max(values)):>8} {ms(sum(values) / len(values)):>8}")
    print(f"{'all':<19} {len(everything):>5} {ms(percentile(everything, 50)):>8} "
          f"{ms(percentile(everything, 95)):>8} {ms(percentile(everything, 99)):>8} "
          f"{ms(max(everything)):>8} {ms(sum(everything) / len(everything)):>8}")
    print()
    return p95


def category_table(queries: list[Query], local: list[Outcome], remote: list[Outcome]) -> None:
    rows: dict[str, list[int]] = defaultdict(list)
    for i, query in enumerate(queries):
        rows[query.category].append(i)
    rows = dict(sorted(rows.items(), key=lambda item: (TOOLS.index(queries[item[1][0]].tool), item[0])))
    print("Per category (sanity: results ≥ 1, source entry among the results; latency in ms)")
    header = (f"{'category':<21} {'tool':<18} {'n':>4} {'≥1 res':>6} {'source':>6} {'errors':>6} "
              f"{'in p50':>7} {'in p95':>7} {'in max':>7} {'mcp p50':>8} {'mcp p95':>8} {'mcp≥1':>6}")
    print(header)
    print("-" * len(header))
    for category, idx in rows.items():
        lo = [local[i] for i in idx]
        re_ = [remote[i] for i in idx]
        secs = [o.seconds for o in lo]
        rsecs = [o.seconds for o in re_]
        print(f"{category:<21} {queries[idx[0]].tool:<18} {len(idx):>4} "
              f"{sum(o.found > 0 for o in lo):>6} {sum(o.has_source for o in lo):>6} "
              f"{sum(bool(o.error) for o in lo):>6} {ms(percentile(secs, 50)):>7} "
              f"{ms(percentile(secs, 95)):>7} {ms(max(secs)):>7} {ms(percentile(rsecs, 50)):>8} "
              f"{ms(percentile(rsecs, 95)):>8} {sum(o.found > 0 for o in re_):>6}")
    print()


def slowest(index: BiochemIndex, queries: list[Query], outcomes: list[Outcome], n: int = 5) -> None:
    """The n slowest queries, with how many entries match them (asked again with limit=100)."""
    order = sorted(range(len(queries)), key=lambda i: outcomes[i].seconds, reverse=True)[:n]
    print(f"{n} slowest in-process queries (matches: results at limit=100, '+' = more exist)")
    for i in order:
        q, o = queries[i], outcomes[i]
        matches = "-"
        if q.tool.startswith("search_"):
            search = index.search_compounds if q.tool == "search_compounds" else index.search_reactions
            wide = search(q.text, 100)
            matches = f"{len(wide['results'])}{'+' if wide['truncated'] else ''}"
        print(f"  {ms(o.seconds):>7} ms  {q.tool:<17} {q.category:<20} {q.text!r:<14} matches {matches}")
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description="gem-flux look-up latency benchmark")
    parser.add_argument("--per-category", type=int, default=100,
                        help="queries per category (13 categories; default 100)")
    parser.add_argument("--seed", type=int, default=20240601, help="random seed for the queries")
    parser.add_argument("--cache-dir", help="index cache folder (default: $GEMFLUX_CACHE_DIR, else a temp folder)")
    args = parser.parse_args()
    data_dir = require_data_dir()

    print("gem-flux look-up benchmark")
    print(f"date {dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z} | {platform.node()} | "
          f"{os.cpu_count()} CPUs | Python {platform.python_version()}")
    queries = build_queries(data_dir, args.per_category, args.seed)
    print(f"data {data_dir} | {len(queries)} queries (seed {args.seed}, {args.per_category} per category)")

    with tempfile.TemporaryDirectory(prefix="gemflux-lookups-") as tmp_name:
        tmp = Path(tmp_name)
        cache = args.cache_dir or os.environ.get("GEMFLUX_CACHE_DIR") or str(tmp / "cache")
        cache_dir = Path(cache).expanduser().resolve()
        started = time.perf_counter()
        index = BiochemIndex.open(data_dir, cache_dir)
        print(f"index opened in {time.perf_counter() - started:.2f} s ({index.path.name})")
        print()

        local = run_in_process(index, queries)
        env = dict(os.environ)  # the SDK passes only a small whitelist unless given all of it
        env.update(GEMFLUX_DATA_DIR=str(data_dir), GEMFLUX_CACHE_DIR=str(cache_dir),
                   GEMFLUX_STATE_DIR=str(tmp / "state"), FASTMCP_CHECK_FOR_UPDATES="off",
                   FASTMCP_SHOW_SERVER_BANNER="false", FASTMCP_ENABLE_RICH_LOGGING="false")
        started = time.perf_counter()
        remote, first_p95 = anyio.run(run_over_mcp, queries, env, tmp / "server-stderr.log")
        mcp_wall = time.perf_counter() - started

    p95 = tool_table("(a) in-process, BiochemIndex (warm: each query run once before the timed pass)",
                     queries, local)
    tool_table("(b) MCP over stdio, gem-flux serve (one session, sequential; second pass timed)",
               queries, remote)
    print(f"MCP: spawn + 2 passes took {mcp_wall:.1f} s; the untimed first pass had p95 {ms(first_p95)} ms")
    print()
    category_table(queries, local, remote)
    slowest(index, queries, local)
    worst = max(p95.values())
    verdict = "MET" if worst < TARGET_P95_MS / 1000 else "NOT MET"
    print(f"Target: in-process p95 < {TARGET_P95_MS:.0f} ms for every tool: worst is "
          f"{max(p95, key=lambda k: p95[k])} at {ms(worst)} ms → {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
