"""Two build_model calls submitted together over MCP (stdio, official SDK client), against one
build alone, on fresh servers (cold workers: ModelSEEDpy import and template parsing included).

Rows, side by side in one run:
- one build alone                       (GEMFLUX_WORKERS=2; one worker is used)
- two builds together, 2 workers        (GEMFLUX_WORKERS=2)
- two builds together, 1 worker         (GEMFLUX_WORKERS=1, the default on 2 cores; the old behaviour)
The ratio is the wall time until both builds are done divided by one build alone.

And the case that made a lab wait (issue 12): a small build (first 200 proteins) submitted 2 s
after another client's gapfill of the whole E. coli draft, with 2 workers and with 1, against the
same small build alone on a warm worker. The ratio is the small build's latency over alone.

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/parallel_builds.py [--proteins N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from gem_flux_mcp.modeling.inputs import read_fasta_file

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)


def subset(source: Path, target: Path, n: int) -> Path:
    """The first n proteins of `source`, headers (product names) kept."""
    proteins = read_fasta_file(source)[:n]
    target.write_text("".join(f">{p.id} {p.description}\n{p.sequence}\n" for p in proteins))
    return target


async def builds(fasta: Path, workers: int, together: int) -> tuple[float, list[float]]:
    """Wall time until `together` builds submitted at once are done, and each one's own time."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GEMFLUX_STATE_DIR": tmp, "GEMFLUX_ALLOWED_ROOTS": str(fasta.parent),
               "GEMFLUX_WORKERS": str(workers)}
        params = StdioServerParameters(command=str(Path(sys.executable).with_name("gem-flux")), args=["serve"],
                                       env=env)
        async with Client(params, mode="legacy", read_timeout_seconds=1200) as client:
            each: list[float] = []
            started = time.perf_counter()

            async def build(name: str) -> None:
                begin = time.perf_counter()
                result = await client.call_tool("build_model", {"fasta_file_path": str(fasta), "model_name": name})
                assert not result.is_error, result.content
                each.append(time.perf_counter() - begin)

            async with anyio.create_task_group() as group:
                for i in range(together):
                    group.start_soon(build, f"b{i}")
            return time.perf_counter() - started, each


async def build_behind_gapfill(full: Path, small: Path, workers: int) -> tuple[float, float, float]:
    """(small build alone on a warm worker, the same build submitted during a gapfill, the gapfill)."""
    with tempfile.TemporaryDirectory() as tmp:
        roots = f"{full.parent}{os.pathsep}{small.parent}"
        env = {**os.environ, "GEMFLUX_STATE_DIR": tmp, "GEMFLUX_ALLOWED_ROOTS": roots, "GEMFLUX_WORKERS": str(workers)}
        params = StdioServerParameters(command=str(Path(sys.executable).with_name("gem-flux")), args=["serve"],
                                       env=env)
        async with Client(params, mode="legacy", read_timeout_seconds=1200) as client:
            async def call(tool: str, arguments: dict[str, object]) -> float:
                begin = time.perf_counter()
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, result.content
                return time.perf_counter() - begin

            await call("build_model", {"fasta_file_path": str(full), "model_name": "ecoli"})
            alone = await call("build_model", {"fasta_file_path": str(small), "model_name": "small"})
            times: dict[str, float] = {}

            async def gapfill() -> None:
                times["gapfill"] = await call("gapfill_model", {"model_id": "ecoli.draft",
                                                                "media_id": "glucose_minimal_aerobic"})

            async def small_build() -> None:
                await anyio.sleep(2.0)
                times["build"] = await call("build_model", {"fasta_file_path": str(small), "model_name": "small2"})

            async with anyio.create_task_group() as group:
                group.start_soon(gapfill)
                group.start_soon(small_build)
            return alone, times["build"], times["gapfill"]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--proteins", type=int, default=0, help="first N proteins of E. coli (0 = all)")
    args = parser.parse_args()
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"]).resolve()
    source = data_dir / "genomes" / "ecoli_k12_mg1655.faa"
    with tempfile.TemporaryDirectory() as tmp:
        fasta = subset(source, Path(tmp) / "proteins.faa", args.proteins) if args.proteins else source
        print(f"E. coli K-12, {args.proteins or 'all'} proteins; {os.cpu_count()} cores")
        alone, _ = await builds(fasta, 2, 1)
        print(f"one build alone:                 {alone:6.1f} s   1.00x")
        for workers in (2, 1):
            wall, each = await builds(fasta, workers, 2)
            print(f"two builds together, {workers} worker(s): {wall:6.1f} s   {wall / alone:.2f}x "
                  f"(each: {', '.join(f'{t:.1f} s' for t in sorted(each))})")
        small = subset(source, Path(tmp) / "small.faa", 200)
        for workers in (2, 1):
            alone_small, behind, gapfill = await build_behind_gapfill(source, small, workers)
            print(f"200-protein build during a gapfill, {workers} worker(s): {behind:6.1f} s   "
                  f"{behind / alone_small:.2f}x of alone ({alone_small:.1f} s); gapfill {gapfill:.1f} s")


if __name__ == "__main__":
    anyio.run(main)
