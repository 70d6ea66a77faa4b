"""Analysis speed against the COBRApy call a user would otherwise make, side by side in one run.

Gene essentiality of every gene of the gapfilled E. coli K-12 model (built and gapfilled on
glucose_minimal_aerobic by the library first, as the tests do):
- gem-flux `modeling.essentiality.single_deletions` (what predict_gene_essentiality runs in its
  worker), one process;
- `cobra.flux_analysis.single_gene_deletion(processes=2)` and `processes=1`.
Both on the same model object with the same medium; the growths are checked equal (1e-6).

Flux variability of every reaction of the same model, objective at least 0.9 x its optimum:
- gem-flux `modeling.variability.flux_variability`, one process;
- `cobra.flux_analysis.flux_variability_analysis(processes=2)` and `processes=1`.
The minima and maxima are checked equal (1e-6).

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/analysis.py [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

import cobra
from cobra.flux_analysis import flux_variability_analysis, single_gene_deletion

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling import gapfill
from gem_flux_mcp.modeling.build import BuildOptions, build_draft
from gem_flux_mcp.modeling.essentiality import single_deletions
from gem_flux_mcp.modeling.inputs import read_proteins_file
from gem_flux_mcp.modeling.variability import flux_variability


def gapfilled_ecoli(data_dir: Path) -> tuple[cobra.Model, dict[str, tuple[float, float]]]:
    """The E. coli K-12 draft built by the library and gapfilled on glucose_minimal_aerobic (as the
    tests do), and that medium."""
    with tempfile.TemporaryDirectory() as tmp:
        biochem = BiochemIndex.open(data_dir, Path(tmp))
        proteins = read_proteins_file(data_dir / "genomes" / "ecoli_k12_mg1655.faa", "proteins").proteins
        options = BuildOptions(template="GramNegative")
        draft = build_draft("ecoli", proteins, options, data_dir, Path(tmp), biochem).model
        raw = json.loads((data_dir / "media" / "glucose_minimal_aerobic.json").read_text())["compounds"]
        medium = {cpd: (float(v["bounds"][0]), float(v["bounds"][1])) for cpd, v in raw.items()}
        model = gapfill.gapfill_from_data(draft, medium, gapfill.GapfillOptions(), template_name="GramNegative",
                                          data_dir=data_dir, biochem=biochem).model
    return model, medium


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each (median reported)")
    args = parser.parse_args()
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"]).resolve()
    model, medium = gapfilled_ecoli(data_dir)
    for reaction in model.exchanges:
        cpd = next(iter(reaction.metabolites)).id.split("_")[0]
        reaction.bounds = medium.get(cpd, (0.0, 1000.0))
    model.objective = "bio1"
    print(f"E. coli K-12 gapfilled on glucose_minimal_aerobic: {len(model.reactions)} reactions, "
          f"{len(model.genes)} genes; {os.cpu_count()} cores; solver {model.solver.interface.__name__}")

    def timed(run: object) -> tuple[float, object]:
        times, result = [], None
        for _ in range(args.repeats):
            started = time.perf_counter()
            result = run()  # type: ignore[operator]
            times.append(time.perf_counter() - started)
        return statistics.median(times), result

    ours_s, ours = timed(lambda: single_deletions(model, "genes"))
    cobra2_s, cobra2 = timed(lambda: single_gene_deletion(model, processes=2))
    cobra1_s, _ = timed(lambda: single_gene_deletion(model, processes=1))
    expected = {next(iter(i)): 0.0 if math.isnan(g) else max(float(g), 0.0)
                for i, g in zip(cobra2["ids"], cobra2["growth"], strict=True)}  # type: ignore[index]
    worst = max(abs(ours.growth[g] - v) for g, v in expected.items())  # type: ignore[attr-defined]
    print(f"median of {args.repeats} runs each; largest growth difference {worst:.1e}")
    print(f"{'method':<46} {'wall s':>8} {'ratio':>7}")
    print(f"{'gem-flux single_deletions (1 process)':<46} {ours_s:8.2f} {ours_s / cobra2_s:6.2f}x "
          f"({ours.solves} of {len(expected)} deletions solved)")  # type: ignore[attr-defined]
    print(f"{'cobra single_gene_deletion(processes=2)':<46} {cobra2_s:8.2f} {1.0:6.2f}x")
    print(f"{'cobra single_gene_deletion(processes=1)':<46} {cobra1_s:8.2f} {cobra1_s / cobra2_s:6.2f}x")
    print("target: gem-flux <= 1/3 of single_gene_deletion(processes=2): "
          f"{'MET' if ours_s <= cobra2_s / 3 else 'NOT MET'}")

    fva_s, fva = timed(lambda: flux_variability(model, fraction_of_optimum=0.9))
    cfva2_s, cfva2 = timed(lambda: flux_variability_analysis(model, fraction_of_optimum=0.9, processes=2))
    cfva1_s, _ = timed(lambda: flux_variability_analysis(model, fraction_of_optimum=0.9, processes=1))
    worst = max(max(abs(fva.minimum[r] - cfva2.at[r, "minimum"]),  # type: ignore[attr-defined]
                    abs(fva.maximum[r] - cfva2.at[r, "maximum"])) for r in cfva2.index)  # type: ignore[attr-defined]
    print()
    print(f"flux variability, fraction_of_optimum 0.9, all {len(model.reactions)} reactions: median of "
          f"{args.repeats} runs each; largest min/max difference {worst:.1e}")
    print(f"{'method':<46} {'wall s':>8} {'ratio':>7}")
    print(f"{'gem-flux flux_variability (1 process)':<46} {fva_s:8.2f} {fva_s / cfva2_s:6.2f}x "
          f"({fva.solves} of {2 * len(model.reactions) + 1} problems solved)")  # type: ignore[attr-defined]
    print(f"{'cobra flux_variability_analysis(processes=2)':<46} {cfva2_s:8.2f} {1.0:6.2f}x")
    print(f"{'cobra flux_variability_analysis(processes=1)':<46} {cfva1_s:8.2f} {cfva1_s / cfva2_s:6.2f}x")
    print("target: gem-flux <= 1/2 of flux_variability_analysis(processes=2), equal within 1e-6: "
          f"{'MET' if fva_s <= cfva2_s / 2 and worst <= 1e-6 else 'NOT MET'}")


if __name__ == "__main__":
    main()
