"""The analysis tools as an MCP client sees them, on the gapfilled E. coli K-12 model: wall time of
each call (worker process included) and the size of each first page, in characters and in tokens
(characters / 4; target < 20,000 tokens each). Plus a 190-compound carbon phenotype panel:
gem-flux's library loop and the predict_growth_phenotypes tool against the same loop written with
COBRApy (bounds set per compound, `slim_optimize`), the growths checked equal (1e-6).

The app runs in this process (FastMCP's in-memory client, the real server code and worker
processes) with a temporary state folder.

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/analysis_answers.py
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from cobra.io import save_json_model
from fastmcp import Client

from analysis import gapfilled_ecoli
from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.panels import load_panels
from gem_flux_mcp.modeling import media
from gem_flux_mcp.modeling.phenotypes import growth_phenotypes
from gem_flux_mcp.server import runtime
from gem_flux_mcp.server.app import create_app

MEDIUM = "glucose_minimal_aerobic"
TOKEN_LIMIT = 20_000


def panel_190() -> list[str]:
    """The carbon panel, then compounds of the other panels, up to 190 (the PM1 + PM2 well count)."""
    _, panels = load_panels()
    compounds = list(panels["carbon"].compounds)
    for name in ("nitrogen", "phosphorus", "sulfur"):
        compounds += [c for c in panels[name].compounds if c not in compounds]
    return compounds[:190]


async def calls(resources: runtime.Resources, model_file: Path, compounds: list[str]) -> list[tuple[str, float, int]]:
    measured: list[tuple[str, float, int]] = []
    async with Client(create_app(resources)) as client:
        async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            started = time.perf_counter()
            result = await client.call_tool(tool, arguments, raise_on_error=False)
            elapsed = time.perf_counter() - started
            text = result.content[0].text  # type: ignore[union-attr]
            assert not result.is_error, text[:500]
            measured.append((tool, elapsed, len(text)))
            return json.loads(text)  # type: ignore[no-any-return]

        await call("import_model", {"file_path": str(model_file), "model_name": "ecoli"})
        await call("import_model", {"file_path": str(model_file), "model_name": "ecoli_copy"})
        base = {"model_id": "ecoli.draft", "media_id": MEDIUM}
        await call("predict_gene_essentiality", base)
        await call("predict_growth_phenotypes", {"model_id": "ecoli.draft", "base_media_id": MEDIUM,
                                                 "panel": "carbon", "compounds": compounds})
        await call("run_fva", base)
        await call("compare_models", {"model_a": "ecoli.draft", "model_b": "ecoli_copy.draft", "media_ids": [MEDIUM]})
        await call("diagnose_model", base)
        await call("run_fba", base)
    return measured[2:]


def main() -> None:
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"]).resolve()
    model, medium = gapfilled_ecoli(data_dir)
    compounds = panel_190()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # the library loop and the COBRApy loop on the same model, medium minus the carbon sources
        exchanges = media.resolve_exchanges(model)
        reference = set(load_panels()[1]["carbon"].reference_sources)
        media.apply_medium(model, {c: b for c, b in medium.items() if c not in reference}, exchanges)
        model.objective = "bio1"
        started = time.perf_counter()
        ours = growth_phenotypes(model, compounds, exchanges, 5.0)
        ours_s = time.perf_counter() - started
        by_cpd = {e.compound_id: e.reaction_id for e in exchanges}
        started = time.perf_counter()
        theirs: dict[str, float | None] = {}
        for cpd in compounds:
            if cpd not in by_cpd:
                theirs[cpd] = None
                continue
            with model:
                model.reactions.get_by_id(by_cpd[cpd]).lower_bound = -5.0
                theirs[cpd] = max(model.slim_optimize(error_value=0.0), 0.0)
        cobra_s = time.perf_counter() - started
        worst = max(abs((ours.growth[c] or 0.0) - (theirs[c] or 0.0)) for c in compounds)
        assert worst <= 1e-6, worst
        save_json_model(model, str(work / "ecoli_gf.json"))
        settings = Settings.resolve(data_dir, work / "state", work / "cache")
        os.environ["GEMFLUX_ALLOWED_ROOTS"] = str(work)
        resources = runtime.load_resources(settings)
        try:
            measured = asyncio.run(calls(resources, work / "ecoli_gf.json", compounds))
        finally:
            resources.shutdown()
    print(f"E. coli K-12 gapfilled on {MEDIUM}: {len(model.reactions)} reactions, {len(model.genes)} genes; "
          f"{os.cpu_count()} cores")
    print(f"\n{len(compounds)}-compound phenotype panel (carbon panel + others), medium without glucose, "
          f"uptake 5; largest growth difference {worst:.1e}")
    print(f"{'method':<52} {'wall s':>8} {'ratio':>7}")
    tool_s = next(s for t, s, _ in measured if t == "predict_growth_phenotypes")
    print(f"{'gem-flux growth_phenotypes (library, warm re-solves)':<52} {ours_s:8.2f} {ours_s / cobra_s:6.2f}x")
    print(f"{'gem-flux predict_growth_phenotypes (tool, in process)':<52} {tool_s:8.2f} {tool_s / cobra_s:6.2f}x")
    print(f"{'COBRApy loop (bounds + slim_optimize per compound)':<52} {cobra_s:8.2f} {1.0:6.2f}x")
    print(f"target: the tool <= 1.5 s (issue 30): {'MET' if tool_s <= 1.5 else 'NOT MET'}")
    print(f"\nfirst page of each answer (target < {TOKEN_LIMIT:,} tokens = characters / 4)")
    print(f"{'tool':<28} {'wall s':>8} {'characters':>11} {'tokens':>8}")
    for tool, seconds, size in measured:
        print(f"{tool:<28} {seconds:8.2f} {size:11,} {size // 4:8,}")
    largest = max(size for _, _, size in measured) // 4
    print(f"target: every first page < {TOKEN_LIMIT:,} tokens: {'MET' if largest < TOKEN_LIMIT else 'NOT MET'} "
          f"(largest {largest:,})")


if __name__ == "__main__":
    main()
