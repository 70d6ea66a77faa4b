"""The whole E. coli workflow over MCP (stdio, official SDK client) as a client sees it:
build_media -> build_model -> gapfill_model -> run_fba, each step's wall time, from a fresh
server (cold worker: ModelSEEDpy import and template parsing included); then a second gapfill
of the same draft on another medium (ATP correction reused), and the largest answer's size.

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/workflow_over_mcp.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)


async def step(client: Client, tool: str, args: dict[str, Any], timings: list[tuple[str, float, int]]) -> Any:
    started = time.perf_counter()
    result = await client.call_tool(tool, args)
    wall = time.perf_counter() - started
    body = result.structured_content or {}
    if result.is_error:
        raise SystemExit(f"{tool} failed: {json.dumps(body)[:500]}")
    timings.append((tool, wall, len(json.dumps(body))))
    return body


async def main() -> None:
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"]).resolve()
    fasta = data_dir / "genomes" / "ecoli_k12_mg1655.faa"
    timings: list[tuple[str, float, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GEMFLUX_STATE_DIR": tmp, "GEMFLUX_ALLOWED_ROOTS": str(data_dir)}
        params = StdioServerParameters(command=str(Path(sys.executable).with_name("gem-flux")), args=["serve"],
                                       env=env)
        started = time.perf_counter()
        async with Client(params, mode="legacy", read_timeout_seconds=900) as client:
            connected = time.perf_counter() - started
            medium = await step(client, "build_media", {
                "compounds": ["cpd00027", "cpd00007", "cpd00001", "cpd00009", "cpd00013", "cpd00048", "cpd00067",
                              "cpd00205", "cpd00254", "cpd00971", "cpd00063", "cpd10515", "cpd00099", "cpd00058",
                              "cpd00034", "cpd00030", "cpd00149", "cpd00244"],
                "default_uptake": 100.0, "custom_bounds": {"cpd00027": [-5, 100], "cpd00007": [-10, 100]},
                "media_name": "glc_minimal"}, timings)
            draft = await step(client, "build_model", {"fasta_file_path": str(fasta), "model_name": "ecoli"}, timings)
            gapfilled = await step(client, "gapfill_model", {"model_id": draft["model_id"],
                                                             "media_id": medium["media_id"]}, timings)
            fba = await step(client, "run_fba", {"model_id": gapfilled["model_id"], "media_id": medium["media_id"]},
                             timings)
            total = sum(t for _, t, _ in timings)
            again = await step(client, "gapfill_model", {"model_id": draft["model_id"],
                                                         "media_id": "glucose_minimal_anaerobic"}, timings)
    print(f"server start + initialize: {connected:.1f} s")
    for tool, wall, size in timings:
        print(f"  {tool:<14} {wall:6.2f} s   answer {size / 1000:5.1f} kB (~{size // 4:,} tokens)")
    print(f"workflow build_media -> build_model -> gapfill_model -> run_fba: {total:.1f} s "
          f"({total + connected:.1f} s with server start)")
    print(f"gapfill: {gapfilled['num_reactions_added']} reactions, growth {gapfilled['growth_rate_after']:.3f} /h, "
          f"checks {'pass' if gapfilled['quality_checks']['all_passed'] else 'FAIL'}; "
          f"FBA {fba['objective_value']:.3f} /h; second gapfill (anaerobic, ATP correction reused) "
          f"{again['num_reactions_added']} reactions, growth {again['growth_rate_after']:.3f} /h")


if __name__ == "__main__":
    anyio.run(main)
