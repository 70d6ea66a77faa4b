"""Load time of the dashboard's pages for a gapfilled E. coli K-12 model (~2,500 reactions), made the
way a user makes it: over MCP (HTTP, official SDK client) build_model -> gapfill_model on
glucose_minimal_aerobic -> run_fba (pFBA) -> predict_growth_phenotypes (carbon panel, CarveMe's
Biolog calls as observations) -> predict_gene_essentiality -> run_fva -> diagnose_model ->
revise_model.

Each page is then timed in a freshly started `gem-flux serve --transport http` on the same state
folder: the first request is "cold" (the stored model read and parsed, the flux map's BiGG aliases
looked up), then `--repeats` more are "warm" (median and max). Times are wall times of httpx GETs on
127.0.0.1, as a browser's request would take them (HTML rendering in the browser not included).

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/dashboard_pages.py [--repeats 10]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx
from mcp import Client
from mcp.types import Implementation

GEM_FLUX = str(Path(sys.executable).with_name("gem-flux"))
MEDIUM = "glucose_minimal_aerobic"
TARGET_S = 1.0
BIOLOG = Path(importlib.util.find_spec("carveme").origin or "").parent / "data" / "benchmark" / "biolog"  # type: ignore[union-attr]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    with log.open("ab") as out:
        proc = subprocess.Popen([GEM_FLUX, "serve", "--transport", "http", "--port", str(port)], env=env,
                                stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited:\n{log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def observed_carbon() -> dict[str, bool]:
    with (BIOLOG / "ecol" / "biolog_carbon.tsv").open() as handle:
        return {r["seed"]: r["growth"] in ("+", "++") for r in csv.DictReader(handle, delimiter="\t")
                if r["seed"].startswith("cpd") and r["growth"]}


async def make_model(url: str, fasta: Path) -> dict[str, Any]:
    """The workflow over MCP; returns the ids the pages need and each step's wall time."""
    steps: dict[str, float] = {}
    async with Client(f"{url}/mcp", mode="legacy", client_info=Implementation(name="bench", version="1"),
                      read_timeout_seconds=900) as client:
        async def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            started = time.perf_counter()
            result = await client.call_tool(tool, args)
            steps[tool] = steps.get(tool, 0.0) + time.perf_counter() - started
            if result.is_error:
                raise SystemExit(f"{tool} failed: {result.content}")
            return dict(result.structured_content or {})

        draft = await call("build_model", {"fasta_file_path": str(fasta), "model_name": "ecoli"})
        gapfilled = await call("gapfill_model", {"model_id": draft["model_id"], "media_id": MEDIUM})
        gf = gapfilled["model_id"]
        await call("run_fba", {"model_id": gf, "media_id": MEDIUM, "pfba": True})
        observed = observed_carbon()
        try:
            await call("predict_growth_phenotypes", {"model_id": gf, "base_media_id": MEDIUM, "panel": "carbon",
                                                     "observed": observed})
        except SystemExit:  # an id of the table not in this database: score without observations
            await call("predict_growth_phenotypes", {"model_id": gf, "base_media_id": MEDIUM, "panel": "carbon"})
        await call("predict_gene_essentiality", {"model_id": gf, "media_id": MEDIUM})
        await call("run_fva", {"model_id": gf, "media_id": MEDIUM})
        await call("diagnose_model", {"model_id": gf, "media_id": MEDIUM})
        revised = await call("revise_model", {"model_id": gf, "reason": "benchmark revision",
                                              "remove_reactions": [gapfilled["reactions_added"][0]["id"]]})
    return {"draft": draft["model_id"], "gapfilled": gf, "revised": revised["model_id"],
            "num_reactions": gapfilled["model_properties"]["num_reactions"], "steps": steps}


def pages(url: str, made: dict[str, Any]) -> list[tuple[str, str]]:
    gf = quote(made["gapfilled"])
    detail = httpx.get(f"{url}/api/models/{gf}", timeout=60).json()
    newest: dict[str, int] = {}
    for result in reversed(detail["results"]):
        newest[result["kind"]] = result["id"]
    found = [("model page", f"/models/{gf}")]
    found += [(f"result: {kind}", f"/models/{gf}/results/{newest[kind]}") for kind in
              ("fba", "growth_phenotypes", "gene_essentiality", "fva", "diagnosis") if kind in newest]
    found += [("compare .gf vs revision", f"/compare?a={gf}&b={quote(made['revised'])}"),
              ("model JSON (/api)", f"/api/models/{gf}"),
              ("flux map JSON (/api)", f"/api/models/{gf}/results/{newest['fba']}"),
              ("sessions (/)", "/"), ("jobs", "/jobs")]
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=10, help="warm requests per page (median and max)")
    args = parser.parse_args()
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"]).resolve()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gemflux-bench-") as tmp:
        folder = Path(tmp)
        shutil.copy(data_dir / "genomes" / "ecoli_k12_mg1655.faa", folder / "ecoli.faa")
        env = {**os.environ, "GEMFLUX_STATE_DIR": str(folder / "state"), "GEMFLUX_ALLOWED_ROOTS": str(folder)}
        log = folder / "server.log"
        proc, url = start_server(env, log)
        try:
            made = anyio.run(make_model, url, folder / "ecoli.faa")
        finally:
            stop_server(proc)
        timings: list[tuple[str, float, float, float, int]] = []
        proc, url = start_server(env, log)
        try:
            listed = pages(url, made)
        finally:
            stop_server(proc)
        for label, path in listed:
            proc, url = start_server(env, log)  # a fresh process: nothing cached
            try:
                with httpx.Client(base_url=url, timeout=60) as http:
                    first = time.perf_counter()
                    response = http.get(path)
                    cold = time.perf_counter() - first
                    if response.status_code != 200:
                        raise SystemExit(f"{path}: HTTP {response.status_code}")
                    warm = []
                    for _ in range(args.repeats):
                        again = time.perf_counter()
                        http.get(path)
                        warm.append(time.perf_counter() - again)
                timings.append((label, cold, statistics.median(warm), max(warm), len(response.content)))
            finally:
                stop_server(proc)
    print("gem-flux dashboard pages: a gapfilled E. coli K-12 model made over MCP")
    print(f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} | {os.cpu_count()} CPUs | "
          f"Python {sys.version.split()[0]} | data {os.path.relpath(data_dir)}")
    print(f"model {made['gapfilled']}: {made['num_reactions']} reactions; workflow over MCP: "
          + ", ".join(f"{k} {v:.1f} s" for k, v in made["steps"].items()))
    print(f"each page in a fresh server: 1 cold request, then {args.repeats} warm (median, max)")
    print()
    print(f"{'page':<28} {'cold ms':>8} {'warm ms':>8} {'max ms':>8} {'size kB':>8}")
    print("-" * 64)
    for label, cold, median, top, size in timings:
        print(f"{label:<28} {cold * 1000:8.1f} {median * 1000:8.1f} {top * 1000:8.1f} {size / 1000:8.1f}")
    slowest = max(cold for _, cold, _, _, _ in timings)
    print()
    print(f"target: every page < {TARGET_S:.0f} s, cold: slowest {slowest * 1000:.0f} ms -> "
          f"{'MET' if slowest < TARGET_S else 'NOT MET'}")
    print(f"wall time {time.perf_counter() - started:.0f} s")
    print(json.dumps({"pages": {label: {"cold_ms": round(cold * 1000, 1), "warm_ms": round(median * 1000, 1)}
                                for label, cold, median, _, _ in timings}}))


if __name__ == "__main__":
    main()
