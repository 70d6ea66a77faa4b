"""Per-call cost over Streamable HTTP: one client making look-up calls in a row against
`gem-flux serve --transport http` and against a bare FastMCP server whose tools of the same names
return a fixed answer, in one run, both MCP protocol eras (legacy handshake and 2026-07-28).
The ratio is what Gem-Flux adds per call over FastMCP's own request path.

Then what a session costs the server: `--sessions` clients one after another, each connecting,
listing the tools (every MCP client does, once per session) and making one look-up; the server
process's CPU time per session and the wall time per session, both servers, both eras.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/call_overhead.py \\
        [--calls 200] [--rounds 3] [--sessions 40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp_http import bare_script, client, cpu_seconds, free_port, gem_flux_command, http_servers

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_compound_name", {"compound_id": "cpd00027"}), ("get_reaction_name", {"reaction_id": "rxn00148"}),
    ("search_compounds", {"query": "glucose", "limit": 5})]
BARE = bare_script([name for name, _ in CALLS])


async def run_calls(url: str, mode: str, calls: int) -> tuple[list[float], float]:
    times: list[float] = []
    async with client(url, mode, "bench-overhead") as c:
        for name, arguments in CALLS:  # warm-up, untimed
            await c.call_tool(name, arguments)
        started = time.perf_counter()
        for i in range(calls):
            name, arguments = CALLS[i % len(CALLS)]
            t0 = time.perf_counter()
            result = await c.call_tool(name, arguments)
            times.append((time.perf_counter() - t0) * 1000)
            assert not result.is_error, result.content
        return times, time.perf_counter() - started


async def run_sessions(url: str, mode: str, sessions: int) -> None:
    for n in range(sessions):
        async with client(url, mode, f"bench-session-{n}") as c:
            await c.list_tools()
            result = await c.call_tool(*CALLS[0])
            assert not result.is_error, result.content


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=40, help="sessions per round, server and era (0: none)")
    args = parser.parse_args()
    if not os.environ.get("GEMFLUX_DATA_DIR"):
        sys.exit("set GEMFLUX_DATA_DIR to the reference data folder")
    results: dict[tuple[str, str], list[float]] = {}
    walls: dict[tuple[str, str], list[float]] = {}
    session_cpu: dict[tuple[str, str], list[float]] = {}  # server CPU ms per session, one figure per round
    session_wall: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="gemflux-overhead-") as tmp:
        work = Path(tmp)
        (work / "bare.py").write_text(BARE)
        env = {**os.environ, "FASTMCP_CHECK_FOR_UPDATES": "off", "FASTMCP_SHOW_SERVER_BANNER": "false",
               "GEMFLUX_STATE_DIR": str(work / "state"),
               "GEMFLUX_CACHE_DIR": os.environ.get("GEMFLUX_CACHE_DIR", str(work / "cache"))}
        commands: dict[str, Callable[[int], list[str]]] = {
            "gem-flux": gem_flux_command,
            "bare FastMCP": lambda port: [sys.executable, str(work / "bare.py"), str(port)]}
        for round_no in range(args.rounds):
            for name, command in commands.items():
                port = free_port()
                # settle: gem-flux imports COBRApy in the background ~3 s after start
                procs: list[Any] = []
                with http_servers([command(port)], [env], [port], work, settle_s=4, procs=procs) as (url,):
                    for mode in ("legacy", "2026-07-28"):
                        times, wall = asyncio.run(run_calls(url, mode, args.calls))
                        results.setdefault((name, mode), []).extend(times)
                        walls.setdefault((name, mode), []).append(wall)
                        if args.sessions:
                            cpu, started = cpu_seconds([procs[0].pid]), time.perf_counter()
                            asyncio.run(run_sessions(url, mode, args.sessions))
                            session_wall.setdefault((name, mode), []).append(
                                (time.perf_counter() - started) / args.sessions * 1000)
                            session_cpu.setdefault((name, mode), []).append(
                                (cpu_seconds([procs[0].pid]) - cpu) / args.sessions * 1000)
            print(f"round {round_no + 1} of {args.rounds} done", flush=True)
    print(f"\n{args.calls} calls in a row per round ({', '.join(n for n, _ in CALLS)} in turn), "
          f"{args.rounds} rounds, one client, Streamable HTTP, 2 cores")
    print(f"{'server':14s} {'mode':11s} {'p50 ms':>7s} {'p95 ms':>7s} {'wall s':>7s} {'p50 x bare':>10s}")
    for (name, mode), times in results.items():
        ordered = sorted(times)
        p50, p95 = statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]
        bare = statistics.median(results[("bare FastMCP", mode)])
        print(f"{name:14s} {mode:11s} {p50:7.2f} {p95:7.2f} {statistics.median(walls[(name, mode)]):7.2f} "
              f"{p50 / bare:9.2f}x")
    if session_cpu:
        print(f"\n{args.sessions} sessions per round one after another (connect, tools/list, {CALLS[0][0]}), "
              "medians over rounds")
        print(f"{'server':14s} {'mode':11s} {'server CPU ms/session':>22s} {'wall ms/session':>16s} "
              f"{'CPU x bare':>10s}")
        for (name, mode), cpus in session_cpu.items():
            bare_cpu = statistics.median(session_cpu[("bare FastMCP", mode)])
            print(f"{name:14s} {mode:11s} {statistics.median(cpus):22.1f} "
                  f"{statistics.median(session_wall[(name, mode)]):16.1f} {statistics.median(cpus) / bare_cpu:9.2f}x")


if __name__ == "__main__":
    main()
