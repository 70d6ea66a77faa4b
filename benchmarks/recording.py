"""Cost of recording every MCP session and tool call (issue 6: < 1 ms median added per call).

Spawns `gem-flux serve` over stdio twice per round, once with the record on (default) and once
with GEMFLUX_RECORD_CALLS=0, and times the same sequence of fast tool calls through the official
MCP client. Rounds alternate the two variants so machine noise hits both alike.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/recording.py [--calls 300] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

GEM_FLUX = str(Path(sys.executable).with_name("gem-flux"))
CALLS = [("get_compound_name", {"compound_id": "cpd00027"}), ("list_models", {}),
         ("get_reaction_name", {"reaction_id": "rxn00148"}), ("search_compounds", {"query": "glucose"})]


async def timed_calls(env: dict[str, str], n: int) -> list[float]:
    params = StdioServerParameters(command=GEM_FLUX, args=["serve"], env=env)
    with open(os.devnull, "w") as devnull:
        async with Client(stdio_client(params, errlog=devnull), mode="legacy") as client:
            for tool, args in CALLS:  # warm-up
                await client.call_tool(tool, args)
            times = []
            for i in range(n):
                tool, args = CALLS[i % len(CALLS)]
                started = time.perf_counter()
                result = await client.call_tool(tool, args)
                times.append((time.perf_counter() - started) * 1000)
                assert not result.is_error
            return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    data_dir = os.environ.get("GEMFLUX_DATA_DIR")
    if not data_dir or not Path(data_dir, "modelseed", "compounds.tsv").is_file():
        sys.exit("set GEMFLUX_DATA_DIR to the reference data folder")
    results: dict[str, list[float]] = {"record on": [], "record off": []}
    with tempfile.TemporaryDirectory() as tmp:
        base = {**os.environ, "GEMFLUX_DATA_DIR": data_dir,
                "GEMFLUX_CACHE_DIR": os.environ.get("GEMFLUX_CACHE_DIR", str(Path(tmp, "cache")))}
        for round_no in range(args.rounds):
            for label, flag in (("record on", "1"), ("record off", "0")):
                env = {**base, "GEMFLUX_RECORD_CALLS": flag, "GEMFLUX_STATE_DIR": str(Path(tmp, f"s{round_no}{flag}"))}
                results[label] += asyncio.run(timed_calls(env, args.calls))
    print(f"tool-call latency through the MCP client over stdio, {args.rounds} x {args.calls} calls per variant")
    print(f"{'variant':<12} {'median ms':>10} {'p95 ms':>8} {'mean ms':>8}")
    for label, times in results.items():
        ordered = sorted(times)
        print(f"{label:<12} {statistics.median(ordered):>10.3f} {ordered[int(0.95 * len(ordered))]:>8.3f} "
              f"{statistics.fmean(ordered):>8.3f}")
    added = statistics.median(results["record on"]) - statistics.median(results["record off"])
    print(f"median added by recording: {added:+.3f} ms (target < 1 ms) -> {'MET' if added < 1 else 'NOT MET'}")


if __name__ == "__main__":
    main()
