"""A community of our own builds on MICOM, side by side with MICOM called directly on the same
member models: E. coli, B. subtilis and the eight development organisms of the reference data's
`fermentation/` folder, each reconstructed (`gem-flux reconstruct`, gapfilled on the medium) once
into a folder and reused. Measured: building the community and its cooperative tradeoff (MICOM
direct vs gem-flux's library), and the whole MCP calls build_community and run_community
in-process (run_community in a worker process, cold and warm), with the first page's size; then
the classic cross-feeding experiment on the E. coli build (ΔlysA and ΔargH rescue each other).

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/community.py --models /tmp/community-models \\
        [--members 10] [--medium m9_glucose_anaerobic] [--tradeoff 0.5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))


def genomes(data_dir: Path) -> list[tuple[str, Path]]:
    found = [("ecoli_k12", data_dir / "genomes" / "ecoli_k12_mg1655.faa"),
             ("bsubtilis_168", data_dir / "genomes" / "bsubtilis_168.faa")]
    rows = (data_dir / "fermentation" / "organisms.tsv").read_text().splitlines()[1:]
    for row in rows:
        fields = row.split("\t")
        name = "_".join(fields[1].split()[:2]).replace(".", "").lower()
        found.append((name, data_dir / "fermentation" / fields[2]))
    return found


def reconstruct(name: str, genome: Path, folder: Path, medium: str) -> Path:
    out = folder / f"{name}.json"
    if not out.is_file():
        gem_flux = shutil.which("gem-flux") or str(HERE.parent / ".venv" / "bin" / "gem-flux")
        subprocess.run([gem_flux, "reconstruct", str(genome), "--media", medium, "--out", str(out),
                        "--model-id", name, "--quiet"], check=True, capture_output=True, text=True)
    return out


def micom_direct(files: list[Path], medium: dict[str, tuple[float, float]], tradeoff: float) -> dict[str, Any]:
    import micom
    import pandas as pd

    started = time.perf_counter()
    taxonomy = pd.DataFrame({"id": [f.stem for f in files], "file": [str(f) for f in files]})
    community = micom.Community(taxonomy, id="direct", solver="hybrid", progress=False)
    present = {r.id for r in community.exchanges}
    community.medium = {f"EX_{c}_m": -lo for c, (lo, _) in medium.items() if lo < 0 and f"EX_{c}_m" in present}
    built = time.perf_counter()
    solution = community.cooperative_tradeoff(fraction=tradeoff, fluxes=True, pfba=True)
    solved = time.perf_counter()
    return {"build_s": built - started, "tradeoff_s": solved - built, "growth": float(solution.growth_rate),
            "members": {str(k): float(v) for k, v in solution.members["growth_rate"].drop("medium").items()}}


def ours(files: list[Path], medium: dict[str, tuple[float, float]], tradeoff: float) -> dict[str, Any]:
    from gem_flux_mcp.modeling.community import (
        Member,
        build_micom_community,
        cooperative_growth,
        put_community_on_medium,
    )

    started = time.perf_counter()
    members = [Member(f.stem, 1 / len(files), f.read_text()) for f in files]
    community, taxa = build_micom_community(members, "ours")
    put_community_on_medium(community, medium)
    built = time.perf_counter()
    grown = cooperative_growth(community, taxa, tradeoff)
    return {"build_s": built - started, "tradeoff_s": time.perf_counter() - built, "growth": grown.community_growth,
            "members": {m["member"]: m["growth_rate"] for m in grown.members},
            "cross_feedings": len(grown.cross_feeding)}


async def over_mcp(files: list[Path], media_id: str, tradeoff: float, data_dir: Path) -> dict[str, Any]:
    from mcp_client import call, in_process_client

    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            shutil.copy(f, Path(tmp) / f.name)
        env = {"GEMFLUX_DATA_DIR": str(data_dir), "GEMFLUX_STATE_DIR": str(Path(tmp) / "state"),
               "GEMFLUX_CACHE_DIR": os.environ.get("GEMFLUX_CACHE_DIR", str(Path(tmp) / "cache")),
               "GEMFLUX_ALLOWED_ROOTS": tmp}
        async with in_process_client(env) as client:
            ids = [(await call(client, "import_model", {"file_path": f.name, "model_name": f.stem}))["model_id"]
                   for f in files]
            started = time.perf_counter()
            built = await call(client, "build_community", {"model_ids": ids, "community_name": "bench"})
            build_s = time.perf_counter() - started
            runs, builds = [], []
            # cold (a worker process starts and builds the MICOM community), then warm (the worker
            # grows it again on the community it kept: modeling/community/reuse.py)
            for _ in range(2):
                started = time.perf_counter()
                answer = await call(client, "run_community", {"community_id": built["community_id"],
                                                              "media_id": media_id, "tradeoff": tradeoff})
                runs.append(time.perf_counter() - started)
                builds.append(answer["build_seconds"])
    return {"build_community_s": build_s, "run_community_cold_s": runs[0], "run_community_warm_s": runs[1],
            "growth": answer["summary"]["community_growth"], "answer_chars": len(json.dumps(answer)),
            "solve_s": answer["solve_seconds"], "worker_build_cold_s": builds[0], "worker_build_warm_s": builds[1]}


def auxotrophs(ecoli: Path, medium: dict[str, tuple[float, float]]) -> list[str]:
    """The classic cross-feeding experiment on our E. coli build: ΔlysA (diaminopimelate
    decarboxylase, rxn00313) and ΔargH (argininosuccinate lyase, rxn01434) on the medium."""
    from cobra.io import load_json_model, to_json

    from gem_flux_mcp.modeling.community import (
        Member,
        build_micom_community,
        cooperative_growth,
        put_community_on_medium,
    )

    wild = load_json_model(str(ecoli))
    mutants = []
    for name, reaction in (("dlysA", "rxn00313_c0"), ("dargH", "rxn01434_c0")):
        mutant = wild.copy()
        mutant.id = name
        mutant.reactions.get_by_id(reaction).bounds = (0.0, 0.0)
        mutants.append(mutant)

    def alone(model: Any) -> float:
        with model:
            for exchange in model.exchanges:
                exchange.bounds = medium.get(next(iter(exchange.metabolites)).id.split("_")[0], (0.0, 1000.0))
            return float(model.slim_optimize(error_value=0.0))

    lines = [f"alone: wild type {alone(wild):.4g}, ΔlysA {alone(mutants[0]):.4g}, ΔargH {alone(mutants[1]):.4g} 1/h"]
    started = time.perf_counter()
    community, taxa = build_micom_community([Member(m.id, 0.5, to_json(m)) for m in mutants], "auxotrophs")
    put_community_on_medium(community, medium)
    grown = cooperative_growth(community, taxa, 0.5)
    lines.append(f"together ({time.perf_counter() - started:.1f} s): " + ", ".join(
        f"{m['member']} {m['growth_rate']:.4g}" for m in grown.members) + " 1/h")
    lines += [f"  {c['name']}: {c['from_member']} -> {c['to_member']} {c['flux']:.4g}" for c in grown.cross_feeding]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, required=True, help="folder the member models are kept in")
    parser.add_argument("--members", type=int, default=10)
    parser.add_argument("--medium", default="m9_glucose_anaerobic")
    parser.add_argument("--tradeoff", type=float, default=0.5)
    parser.add_argument("--jobs", type=int, default=2, help="reconstructions at once")
    parser.add_argument("--copies", type=int, default=1, help="each member this many times (a larger community "
                                                               "of the same builds)")
    parser.add_argument("--library-only", action="store_true", help="only gem-flux's library (no MICOM direct, no MCP)")
    args = parser.parse_args()
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"]).resolve()
    args.models.mkdir(parents=True, exist_ok=True)
    chosen = genomes(data_dir)[:args.members]
    started = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        files = list(pool.map(lambda g: reconstruct(g[0], g[1], args.models, args.medium), chosen))
    print(f"{len(files)} member models ready in {time.perf_counter() - started:.1f} s (cached in {args.models})")
    copies = tempfile.TemporaryDirectory()
    if args.copies > 1:
        files = [shutil.copy(f, Path(copies.name) / f"{f.stem}_{n}.json") for n in range(args.copies) for f in files]
        files = [Path(f) for f in files]

    from gem_flux_mcp.data.media_library import load_media_library

    medium = dict(load_media_library(data_dir)[args.medium].compounds)
    if args.library_only:
        mine = ours(files, medium, args.tradeoff)
        growing = sum(g > 1e-6 for g in mine["members"].values())
        print(f"{len(files)} members, gem-flux library: build {mine['build_s']:.1f} s, "
              f"tradeoff {mine['tradeoff_s']:.1f} s, community growth {mine['growth']:.6g}, growing {growing}, "
              f"cross-feedings {mine['cross_feedings']}; peak RSS "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
        return
    direct = micom_direct(files, medium, args.tradeoff)
    mine = ours(files, medium, args.tradeoff)
    worst = max(abs(direct["members"][k] - mine["members"][k]) for k in direct["members"])
    mcp = anyio.run(over_mcp, files, args.medium, args.tradeoff, data_dir)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    micom_total = direct["build_s"] + direct["tradeoff_s"]
    ratio = mcp["run_community_cold_s"] / micom_total
    print(f"| {len(files)} members on {args.medium}, tradeoff {args.tradeoff} | build s | tradeoff s | community "
          "growth |")
    print("|---|---|---|---|")
    print(f"| MICOM direct | {direct['build_s']:.2f} | {direct['tradeoff_s']:.2f} | {direct['growth']:.6g} |")
    print(f"| gem-flux library | {mine['build_s']:.2f} | {mine['tradeoff_s']:.2f} | {mine['growth']:.6g} |")
    print(f"member growth, largest difference library vs MICOM: {worst:.2e} 1/h; growing members "
          f"{sum(g > 1e-6 for g in mine['members'].values())}/{len(files)}; cross-feedings {mine['cross_feedings']}")
    print(f"MCP: build_community {mcp['build_community_s']:.2f} s; run_community cold "
          f"{mcp['run_community_cold_s']:.2f} s (in the worker: build {mcp['worker_build_cold_s']:.2f} s) = "
          f"{ratio:.2f}x MICOM's build + tradeoff; warm {mcp['run_community_warm_s']:.2f} s (community kept: "
          f"{mcp['worker_build_warm_s']:.2f} s to take it up, tradeoff {mcp['solve_s']:.2f} s) = "
          f"{mcp['run_community_warm_s'] / direct['tradeoff_s']:.2f}x MICOM's tradeoff; growth {mcp['growth']:.6g}; "
          f"answer {mcp['answer_chars']} chars (~{mcp['answer_chars'] // 4} tokens)")
    print(f"peak RSS of this process {peak:.0f} MiB")
    if any(f.stem == "ecoli_k12" for f in files):
        glucose = dict(load_media_library(data_dir)["m9_glucose_aerobic"].compounds)
        print("\n".join(auxotrophs(next(f for f in files if f.stem == "ecoli_k12"), glucose)))


if __name__ == "__main__":
    main()
