"""Many samples of one community as one Dask batch (issue 31, item 5): the same samples (seeded
random abundances of the members, each member present in every sample) grown on 1 and then on 2
local Dask worker processes, each into a fresh output folder; throughput, how many samples grew on
a community their worker had kept (modeling/community/reuse.py), and the largest difference in
community growth between the two runs. Members are our builds, made once into `--models` as `community.py`
makes them (E. coli, B. subtilis, then the fermentation organisms).

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/community_samples.py --models /tmp/community-models \\
        [--members 10] [--samples 20] [--medium m9_glucose_anaerobic] [--tradeoff 0.5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--models", required=True, help="folder of member models (reconstructed when missing)")
    parser.add_argument("--members", type=int, default=10)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--medium", default="m9_glucose_anaerobic")
    parser.add_argument("--tradeoff", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()

    from community import genomes, reconstruct
    from gem_flux_mcp.config import Settings
    from gem_flux_mcp.data.media_library import load_media_library
    from gem_flux_mcp.services.community.samples import run_samples

    settings = Settings.resolve(data_dir=os.environ.get("GEMFLUX_DATA_DIR"))
    folder = Path(args.models)
    folder.mkdir(parents=True, exist_ok=True)
    files = [reconstruct(name, genome, folder, args.medium)
             for name, genome in genomes(settings.data_dir)[:args.members]]
    members = {f.stem: f.read_text() for f in files}
    medium = dict(load_media_library(settings.data_dir)[args.medium].compounds)
    rng = random.Random(args.seed)
    samples: dict[str, dict[str, float]] = {}
    for i in range(args.samples):
        weights = [rng.uniform(0.05, 1.0) for _ in members]
        samples[f"sample_{i:03d}"] = {m: w / sum(weights) for m, w in zip(members, weights, strict=True)}
    runs: dict[int, dict[str, Any]] = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory(prefix="gemflux-samples-") as out:
            started = time.perf_counter()
            outcome = run_samples(members, samples, medium, args.tradeoff, Path(out), workers=workers)
            seconds = time.perf_counter() - started
        runs[workers] = {"seconds": round(seconds, 1), "samples_per_min": round(60 * len(samples) / seconds, 2),
                         "counts": outcome.counts,
                         "community_reused": sum(bool(r.get("community_reused")) for r in outcome.rows),
                         "growth": {r["sample"]: r.get("community_growth") for r in outcome.rows}}
        print(f"{workers} worker(s): {len(samples)} samples in {seconds:.1f} s ({runs[workers]['samples_per_min']} "
              f"samples/min), {outcome.counts}", file=sys.stderr)
    # the same answers within the QP's tolerance: a sample grown on a kept community starts OSQP
    # from the last sample's solution, so two runs may differ in the last digits
    largest = max(abs((runs[1]["growth"][s] or 0) - (runs[2]["growth"][s] or 0)) for s in samples)
    print(json.dumps({"members": len(members), "samples": len(samples), "medium": args.medium,
                      "tradeoff": args.tradeoff, "cores": os.cpu_count(),
                      "load_average": [round(x, 2) for x in os.getloadavg()],
                      "one_worker": {k: v for k, v in runs[1].items() if k != "growth"},
                      "two_workers": {k: v for k, v in runs[2].items() if k != "growth"},
                      "speedup": round(runs[1]["seconds"] / runs[2]["seconds"], 2),
                      "largest_growth_difference": largest}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
