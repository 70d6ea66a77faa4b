"""Per-call cost over Streamable HTTP: one client making look-up calls in a row against
`gem-flux serve --transport http` and against a bare FastMCP server whose tools of the same names
return a fixed answer, in one run, both MCP protocol eras (legacy handshake and 2026-07-28).
The ratio is what Gem-Flux adds per call over FastMCP's own request path.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/call_overhead.py [--calls 200] [--rounds 3]
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

from mcp_http import bare_script, client, free_port, gem_flux_command, http_servers

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not os.environ.get("GEMFLUX_DATA_DIR"):
        sys.exit("set GEMFLUX_DATA_DIR to the reference data folder")
    results: dict[tuple[str, str], list[float]] = {}
    walls: dict[tuple[str, str], list[float]] = {}
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
                with http_servers([command(port)], [env], [port], work, settle_s=4) as (url,):
                    for mode in ("legacy", "2026-07-28"):
                        times, wall = asyncio.run(run_calls(url, mode, args.calls))
                        results.setdefault((name, mode), []).extend(times)
                        walls.setdefault((name, mode), []).append(wall)
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


if __name__ == "__main__":
    main()
