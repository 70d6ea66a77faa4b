"""build_model over MCP (stdio, official SDK client): wall time of an E. coli K-12 build as a client
sees it, first with a cold worker process (ModelSEEDpy import and template parsing included),
then warm; and the latency of a look-up sent while the build runs.

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/build_over_mcp.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)


async def timed_build(client: Client, fasta: Path, name: str) -> tuple[dict[str, object], list[float]]:
    """Build once; meanwhile probe a look-up every 100 ms. Returns the result (+ wall) and probe times (ms)."""
    lookups: list[float] = []
    done = anyio.Event()
    result: dict[str, object] = {}

    async def build() -> None:
        started = time.perf_counter()
        res = await client.call_tool("build_model", {"fasta_file_path": str(fasta), "model_name": name})
        result.update(res.structured_content or {})
        result["wall"] = time.perf_counter() - started
        done.set()

    async def probe() -> None:
        while not done.is_set():
            started = time.perf_counter()
            await client.call_tool("get_compound_name", {"compound_id": "cpd00027"})
            lookups.append((time.perf_counter() - started) * 1000)
            await anyio.sleep(0.1)

    async with anyio.create_task_group() as group:
        group.start_soon(build)
        group.start_soon(probe)
    return result, lookups


async def main() -> None:
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"]).resolve()
    fasta = data_dir / "genomes" / "ecoli_k12_mg1655.faa"
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GEMFLUX_STATE_DIR": tmp, "GEMFLUX_ALLOWED_ROOTS": str(data_dir)}
        params = StdioServerParameters(command=str(Path(sys.executable).with_name("gem-flux")), args=["serve"],
                                       env=env)
        async with Client(params, mode="legacy", read_timeout_seconds=600) as client:
            for label in ("cold worker", "warm worker"):
                result, lookups = await timed_build(client, fasta, label.split()[0])
                print(f"{label}: build_model E. coli {result['wall']:.1f} s wall over MCP, "
                      f"{result['num_reactions']} reactions, {result['num_genes']} genes; "
                      f"{len(lookups)} look-ups meanwhile: median {statistics.median(lookups):.1f} ms, "
                      f"max {max(lookups):.1f} ms")


if __name__ == "__main__":
    anyio.run(main)
