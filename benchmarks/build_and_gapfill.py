"""E. coli K-12 from proteins to a gapfilled model over MCP (stdio, official SDK client), as a
user waits for it: `build_model` then `gapfill_model` on glucose minimal medium, every protein
aligned (no kept hits). Twice in one server:

1. the first jobs of a fresh server, `--first-after` seconds after connecting (default 0: at
   once, when the worker a server starts 4 s in has not started, GEMFLUX_WORKER_AT_START, so the
   job starts one and it loads what it needs on the way: imports, template, reference; e.g. 15:
   a user who types a request first finds that worker warm);
2. after `--settle` seconds, when the spare worker a server starts beside a busy one has warmed
   up (server/worker.py): what every later build on a running server gets.

`--think S` waits S seconds between the build's answer and the gapfill call, as an assistant that
reads the answer first (not counted in the times): the worker computes the draft's ATP correction
meanwhile (services/gapfill_ahead.py). With 0 the gapfill is asked at once.

With `--carve PATH` (CarveMe's `carve`, DIAMOND on PATH), CarveMe builds and gapfills the same
proteins on M9 in the same run (`carve -g M9`), the tool a user would otherwise run.

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/build_and_gapfill.py [--settle 30]
        [--rounds 2] [--first-after 0] [--think 0] [--carve /path/to/venv/bin/carve]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)
TARGET_S = 15.0  # issue 30: E. coli build + gapfill on 2 cores


async def build_and_gapfill(client: Client, fasta: Path, name: str, think_s: float = 0.0) -> dict[str, Any]:
    started = time.perf_counter()
    built = await client.call_tool("build_model", {"fasta_file_path": str(fasta), "model_name": name})
    build_s = time.perf_counter() - started
    if built.is_error:
        raise SystemExit(f"build_model failed: {built.content}")
    draft = built.structured_content or {}
    await anyio.sleep(think_s)  # an assistant reading the build's answer before it asks for the gapfill
    started = time.perf_counter()
    filled = await client.call_tool("gapfill_model", {"model_id": draft["model_id"],
                                                      "media_id": "glucose_minimal_aerobic"})
    gapfill_s = time.perf_counter() - started
    if filled.is_error:
        raise SystemExit(f"gapfill_model failed: {filled.content}")
    result = filled.structured_content or {}
    return {"build_s": build_s, "gapfill_s": gapfill_s, "total_s": build_s + gapfill_s,
            "added": result.get("num_reactions_added"), "growth": result.get("growth_rate_after")}


def renamed(fasta: Path, prefix: str, folder: Path) -> Path:
    """The proteins with `prefix` before each id: a worker answers the same search twice in a row
    from memory (align.search), and a lab's next genome is not the same proteins again."""
    target = folder / f"{prefix}.faa"
    target.write_text("".join(f">{prefix}_{line[1:]}" if line.startswith(">") else line
                              for line in fasta.read_text().splitlines(keepends=True)))
    return target


async def over_mcp(fasta: Path, data_dir: Path, settle_s: float, rounds: int,
                   first_after_s: float = 0.0, think_s: float = 0.0) -> list[tuple[str, dict[str, Any]]]:
    runs: list[tuple[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as inputs:
        env = {**os.environ, "GEMFLUX_STATE_DIR": tmp, "GEMFLUX_ALLOWED_ROOTS": f"{data_dir}{os.pathsep}{inputs}"}
        params = StdioServerParameters(command=str(Path(sys.executable).with_name("gem-flux")), args=["serve"],
                                       env=env)
        async with Client(params, mode="legacy", read_timeout_seconds=900) as client:
            first = renamed(fasta, "fresh", Path(inputs))
            await anyio.sleep(first_after_s)
            label = f"first jobs of a fresh server, {first_after_s:g} s after connecting"
            runs.append((label, await build_and_gapfill(client, first, "fresh", think_s)))
            for n in range(rounds):
                await anyio.sleep(settle_s)
                again = renamed(fasta, f"round{n + 1}", Path(inputs))
                runs.append((f"running server, round {n + 1}",
                             await build_and_gapfill(client, again, f"warm{n}", think_s)))
    return runs


def carveme(carve: Path, fasta: Path) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        subprocess.run([str(carve), str(fasta), "-g", "M9", "-o", str(Path(tmp) / "ecoli.xml")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--settle", type=float, default=30.0, help="seconds between rounds (the spare warms up)")
    parser.add_argument("--rounds", type=int, default=2, help="builds on the running server")
    parser.add_argument("--first-after", type=float, default=0.0, help="seconds before the first build")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds between the build's answer and the gapfill call (not counted)")
    parser.add_argument("--carve", type=Path, help="CarveMe's carve, to run it on the same proteins")
    args = parser.parse_args()
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"]).resolve()
    fasta = data_dir / "genomes" / "ecoli_k12_mg1655.faa"
    runs = anyio.run(over_mcp, fasta, data_dir, args.settle, args.rounds, args.first_after, args.think)
    print("| run | build_model s | gapfill_model s | total s | vs 15 s | reactions added | growth /h |")
    print("|---|---|---|---|---|---|---|")
    for label, r in runs:
        print(f"| {label} | {r['build_s']:.1f} | {r['gapfill_s']:.1f} | {r['total_s']:.1f} | "
              f"{r['total_s'] / TARGET_S:.2f}x | {r['added']} | {r['growth']:.4f} |")
    warm = [r["total_s"] for label, r in runs[1:]]
    print(f"running server, median of {len(warm)}: {statistics.median(warm):.1f} s build + gapfill")
    if args.carve:
        if shutil.which("diamond") is None:
            raise SystemExit("CarveMe needs DIAMOND on PATH")
        carve_s = carveme(args.carve, fasta)
        print(f"CarveMe `carve -g M9` on the same proteins: {carve_s:.1f} s; gem-flux running server "
              f"{statistics.median(warm) / carve_s:.2f}x CarveMe's time, fresh server "
              f"{runs[0][1]['total_s'] / carve_s:.2f}x")


if __name__ == "__main__":
    main()
