"""Store backends, SQLite vs PostgreSQL: list_models with 1,000 stored models, and build_media
writes from 10 concurrent clients across 2 `gem-flux serve --transport http` processes sharing
one store; p50/p95 of each, and counts that show nothing was lost.

For each backend:
  1. fill: 1,000 textbook models stored with `Store.add_model` (serialised once, so this times
     the store: compress, insert row and file in one transaction);
  2. `Store.list_models` in-process (N=50 after 3 warm-ups) and `list_models` over MCP (HTTP, SDK
     client in legacy mode, N=20 per round after 2 warm-ups) against one of the two servers, once both have
     settled (8 s: each imports COBRApy in the background after start);
  3. writes: `--clients` clients (legacy and 2026-07-28 mode alternating), half on each server,
     each making `--writes` `build_media` calls with its own names, all at once; per-call
     latency; then the media in the database against what the clients were told was stored,
     and the recorded build_media calls against the calls made.
Steps 2 (over MCP) and 3 run in `--rounds` rounds (default 3; fresh servers each round), the two
backends interleaved, so load from elsewhere on the machine hits both alike.
SQLite: both servers share one state folder (one file, WAL). PostgreSQL: a throwaway cluster
from Debian's postgresql package (tests/postgres.py; fsync off, as in the tests), or the empty
database `--database-url` names; each server has its own state folder.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/store_backends.py \
        [--models 1000] [--clients 10] [--writes 50] [--rounds 3] [--database-url URL] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import cobra

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.store.db import Database
from gem_flux_mcp.store.serialization import serialize_model
from gem_flux_mcp.store.store import Store
from mcp_http import client, free_port, gem_flux_command, http_servers, pct

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from postgres import PostgresCluster, find_bin_dir  # noqa: E402

WORKSPACE = "local"  # the workspace of a server without tokens
SETTLE_S = 8.0


@dataclass
class Result:
    backend: str
    fill_s: float = 0.0
    list_in_process: list[float] = field(default_factory=list)
    list_mcp: list[float] = field(default_factory=list)
    writes: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    errors: list[str] = field(default_factory=list)
    stored: list[str] = field(default_factory=list)  # media ids the answers said were stored
    in_database: int = 0
    recorded_calls: int = 0


async def time_list_models(url: str, n: int, expected: int) -> list[float]:
    times = []
    async with client(url, "legacy", "bench-list") as c:
        for i in range(n + 2):
            started = time.perf_counter()
            result = await c.call_tool("list_models", {})
            elapsed = (time.perf_counter() - started) * 1000
            assert not result.is_error and result.structured_content is not None
            assert len(result.structured_content["models"]) == expected
            if i >= 2:
                times.append(elapsed)
    return times


async def concurrent_writes(urls: list[str], clients: int, writes: int, round_no: int, result: Result) -> None:
    async def one(n: int) -> None:
        mode = "legacy" if n % 2 == 0 else "2026-07-28"
        async with client(urls[n % len(urls)], mode, f"bench-writer-{n}") as c:
            for i in range(writes):
                started = time.perf_counter()
                answer = await c.call_tool("build_media", {"compounds": ["cpd00027", "cpd00007", "cpd00009"],
                                                           "media_name": f"r{round_no}_w{n}_{i}"})
                result.writes.append((time.perf_counter() - started) * 1000)
                if answer.is_error:
                    result.errors.append(str(answer.content)[:200])
                else:
                    assert answer.structured_content is not None
                    result.stored.append(str(answer.structured_content["media_id"]))

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(clients)))
    result.wall_s += time.perf_counter() - started


@dataclass
class Backend:
    name: str
    database_url: str | None
    work: Path
    result: Result

    @property
    def state_dirs(self) -> list[Path]:
        # SQLite: both servers on one state folder (one file); PostgreSQL: nothing shared but the database
        if self.database_url is None:
            return [self.work / "state"] * 2
        return [self.work / "state_a", self.work / "state_b"]

    def database(self) -> Database:
        return Database(self.database_url or self.state_dirs[0] / "gemflux.sqlite")


def fill(backend: Backend, models: int) -> None:
    """Store `models` textbook models (serialised once), then time Store.list_models in-process."""
    result = backend.result
    serialized = serialize_model(cobra.io.load_model("textbook"), "bench")
    print(f"[{backend.name}] storing {models} models ...", flush=True)
    with Store(backend.state_dirs[0], database_url=backend.database_url) as store:
        started = time.perf_counter()
        for i in range(models):
            store.add_model(WORKSPACE, f"m{i:04d}.draft", serialized, model_name=None, source="imported",
                            template=None, derived_from=None)
        result.fill_s = time.perf_counter() - started
        for i in range(53):
            started = time.perf_counter()
            rows = store.list_models(WORKSPACE)
            if i >= 3:
                result.list_in_process.append((time.perf_counter() - started) * 1000)
        assert len(rows) == models


def serve_round(backend: Backend, base_env: dict[str, str], args: argparse.Namespace, round_no: int) -> None:
    """Two servers on the backend's store: list_models over MCP, then the concurrent writes."""
    url_env = {"GEMFLUX_DATABASE_URL": backend.database_url} if backend.database_url else {}
    envs = [{**base_env, "GEMFLUX_STATE_DIR": str(d), **url_env} for d in backend.state_dirs]
    print(f"[{backend.name}] round {round_no + 1}: 2 servers; list_models over MCP; {args.clients} clients x "
          f"{args.writes} build_media ...", flush=True)
    ports = [free_port() for _ in envs]
    with http_servers([gem_flux_command(port) for port in ports], envs, ports, backend.work) as urls:
        time.sleep(SETTLE_S)  # each server imports COBRApy in the background 3 s after start
        backend.result.list_mcp += asyncio.run(time_list_models(urls[0], 20, args.models))
        asyncio.run(concurrent_writes(urls, args.clients, args.writes, round_no, backend.result))
    # the servers have stopped: every call they answered is recorded by now


def count(backend: Backend) -> None:
    result = backend.result
    database = backend.database()
    try:
        stored = set(result.stored)
        result.in_database = len([m for m in database.list_media(WORKSPACE) if m.media_id in stored])
        sessions = [s for s in database.recent_sessions(None, 1000)
                    if (s.client_name or "").startswith("bench-writer-")]
        result.recorded_calls = sum(s.tool_call_count for s in sessions)
    finally:
        database.close()


def report(results: list[Result], args: argparse.Namespace) -> None:
    print()
    print(f"list_models with {args.models} stored models (ms)")
    print(f"{'backend':<11} {'fill s':>7} {'in-process p50':>15} {'p95':>7} {'over MCP p50':>13} {'p95':>7}")
    for r in results:
        print(f"{r.backend:<11} {r.fill_s:>7.1f} {statistics.median(r.list_in_process):>15.2f} "
              f"{pct(r.list_in_process, 0.95):>7.2f} {statistics.median(r.list_mcp):>13.1f} "
              f"{pct(r.list_mcp, 0.95):>7.1f}")
    print()
    total = args.rounds * args.clients * args.writes
    print(f"build_media from {args.clients} concurrent clients across 2 server processes, {args.writes} each, "
          f"{args.rounds} rounds (ms)")
    print(f"{'backend':<11} {'calls':>6} {'p50':>7} {'p95':>7} {'max':>7} {'calls/s':>8} {'errors':>7} "
          f"{'stored':>7} {'distinct':>9} {'in db':>6} {'recorded':>9}")
    for r in results:
        print(f"{r.backend:<11} {len(r.writes):>6} {statistics.median(r.writes):>7.1f} {pct(r.writes, 0.95):>7.1f} "
              f"{max(r.writes):>7.1f} {len(r.writes) / r.wall_s:>8.1f} {len(r.errors):>7} {len(r.stored):>7} "
              f"{len(set(r.stored)):>9} {r.in_database:>6} {r.recorded_calls:>9}")
    print()
    for r in results:
        lost = total - r.in_database
        verdict = "nothing lost" if lost == 0 and not r.errors and r.recorded_calls == total else "LOST OR FAILED"
        print(f"{r.backend}: {r.in_database}/{total} media in the database, {r.recorded_calls}/{total} calls "
              f"recorded, {len(r.errors)} errors -> {verdict}")
        for error in r.errors[:3]:
            print(f"    {error}")
    print("stored = answers that said stored; distinct = distinct media ids among them; in db = those ids found by "
          "list_media in the database afterwards; recorded = build_media calls in the session record (both servers)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--writes", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3, help="server rounds per backend, interleaved (default 3)")
    parser.add_argument("--database-url", help="an empty PostgreSQL database (default: a throwaway cluster)")
    parser.add_argument("--cache-dir", help="biochemistry index folder (default: $GEMFLUX_CACHE_DIR, else temp)")
    args = parser.parse_args()
    data_dir = os.environ.get("GEMFLUX_DATA_DIR")
    if not data_dir or not Path(data_dir, "modelseed", "compounds.tsv").is_file():
        sys.exit("set GEMFLUX_DATA_DIR to the reference data folder")
    print("gem-flux store backends benchmark: SQLite vs PostgreSQL")
    print(f"date {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC | {platform.node()} | {os.cpu_count()} CPUs | "
          f"Python {platform.python_version()} | models {args.models} | {args.rounds} rounds of {args.clients} "
          f"clients x {args.writes} build_media")
    with tempfile.TemporaryDirectory(prefix="gemflux-bench-") as tmp:
        work = Path(tmp)
        cache = Path(args.cache_dir or os.environ.get("GEMFLUX_CACHE_DIR") or work / "cache")
        BiochemIndex.open(Path(data_dir), cache)  # built once, before any server starts
        base_env = {**os.environ, "GEMFLUX_DATA_DIR": data_dir, "GEMFLUX_CACHE_DIR": str(cache),
                    "GEMFLUX_ALLOWED_ROOTS": str(work)}
        base_env.pop("GEMFLUX_DATABASE_URL", None)
        cluster: PostgresCluster | None = None
        url = args.database_url
        if url is None:
            bin_dir = find_bin_dir()
            if bin_dir is None:
                sys.exit("no PostgreSQL server binaries (apt-get install postgresql), and no --database-url")
            cluster = PostgresCluster(bin_dir).start()
            url = cluster.new_database("bench")
            print(f"PostgreSQL: throwaway cluster from {bin_dir} on 127.0.0.1:{cluster.port} (fsync off)")
        try:
            backends = [Backend(name, database_url, work / name, Result(name))
                        for name, database_url in (("sqlite", None), ("postgresql", url))]
            for backend in backends:
                backend.work.mkdir()
                fill(backend, args.models)
            for round_no in range(args.rounds):  # interleaved, so load from elsewhere hits both alike
                for backend in backends if round_no % 2 == 0 else reversed(backends):
                    serve_round(backend, base_env, args, round_no)
            for backend in backends:
                count(backend)
            results = [b.result for b in backends]
        finally:
            if cluster is not None:
                cluster.stop()
    report(results, args)


if __name__ == "__main__":
    main()
