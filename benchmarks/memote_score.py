"""MEMOTE snapshot score of the exported, gapfilled E. coli K-12 model.

The model is built and gapfilled on glucose_minimal_aerobic by the library (as analysis.py and the
tests do), exported as SBML in up to three ways, and each file is scored by MEMOTE in its own
process (MEMOTE runs its test suite through pytest, which keeps state between runs):
- `gemflux`: `model_io.export_model_file` with the annotations `export_model` adds
  (identifiers.org cross-references from the biochemistry index and SBO terms);
- `no-annotations`: the same export without the added annotations (ids, formulas and notes
  still made valid);
- `cobra`: COBRApy's `write_sbml_model` on the model as stored, which is what `export_model` did
  before the export was checked and annotated.

Only the tests of MEMOTE's scored sections are run (`--all-tests` runs the whole suite, ~10 min on
2 cores); the total score depends on nothing else: MEMOTE's `compute_score` sums the scored
sections only. MEMOTE (0.17) is not a project dependency; run this with an interpreter that has it
and sees the project, e.g. a virtualenv beside the project's (benchmarks/README.md):

    python3.11 -m venv /tmp/memote-venv
    echo "import site; site.addsitedir('$PWD/.venv/lib/python3.11/site-packages')" \\
        > /tmp/memote-venv/lib/python3.11/site-packages/gemflux_project.pth
    /tmp/memote-venv/bin/pip install 'memote==0.17.*'
    GEMFLUX_DATA_DIR=../shared/data /tmp/memote-venv/bin/python benchmarks/memote_score.py \\
        [--exports gemflux,no-annotations,cobra] [--model-json gapfilled.json] [--all-tests]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

EXPORTS = ("gemflux", "no-annotations", "cobra")
SCORED_SECTIONS = ("consistency", "annotation_met", "annotation_rxn", "annotation_gene", "annotation_sbo")


def gapfilled_model(data_dir: Path, model_json: Path | None) -> Any:
    """The gapfilled E. coli model: read from `model_json` if it exists, else built (and saved
    there when a path is given)."""
    from cobra.io import load_json_model, save_json_model

    if model_json is not None and model_json.is_file():
        return load_json_model(str(model_json))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from analysis import gapfilled_ecoli  # type: ignore[import-not-found]

    started = time.perf_counter()
    model, _ = gapfilled_ecoli(data_dir)
    print(f"built and gapfilled E. coli K-12 in {time.perf_counter() - started:.0f} s")
    model.id = "ecoli_k12_mg1655.draft.gf"  # the id pattern export_model sees for a stored model
    if model_json is not None:
        save_json_model(model, str(model_json))
    return model


def export(model: Any, how: str, path: Path, biochem: Any) -> list[str]:
    """Export `model` to `path` the way `how` names; returns the export's warnings (for `cobra`:
    how many errors COBRApy logged, which it does instead of failing)."""
    from gem_flux_mcp.modeling import model_io
    from gem_flux_mcp.modeling.sbml.annotations import model_annotations
    from gem_flux_mcp.modeling.sbml.document import cobra_sbml_log

    if how == "cobra":
        import logging

        from cobra.io import write_sbml_model

        logger = logging.getLogger("cobra.io.sbml")
        propagate, logger.propagate = logger.propagate, False  # counted below instead of printed
        try:
            with cobra_sbml_log() as messages:
                write_sbml_model(model, str(path))
        finally:
            logger.propagate = propagate
        refused = sum("Setting notes" in m for m in messages)
        return [f"COBRApy logged {len(messages)} errors while writing (and wrote the file anyway): the notes of "
                f"{refused} reactions were refused by libsbml and left out"] if messages else []
    if how != "gemflux":
        return model_io.export_model_file(model, path, "sbml").warnings
    annotations = model_annotations(model, biochem)
    counts = annotations.counts()
    print(f"database cross-references for {counts['metabolites']} of {len(model.metabolites)} metabolites, "
          f"{counts['reactions']} of {len(model.reactions)} reactions, {counts['genes']} of {len(model.genes)} genes")
    return model_io.export_model_file(model, path, "sbml", annotations).warnings


def score(path: Path, all_tests: bool) -> dict[str, Any]:
    """MEMOTE's snapshot score of one SBML file (run in a child process: see the module docstring)."""
    import logging

    logging.disable(logging.WARNING)
    from memote.suite.api import test_model, validate_model
    from memote.suite.reporting import ReportConfiguration, SnapshotReport

    config = ReportConfiguration.load()
    model, sbml_version, notifications = validate_model(str(path))
    if model is None:
        return {"error": notifications}
    exclusive = None
    if not all_tests:
        sections = config["cards"]["scored"]["sections"]
        exclusive = sorted({case for section in sections.values() for case in section["cases"]})
    _, result = test_model(model, sbml_version=sbml_version, results=True, exclusive=exclusive,
                           pytest_args=["-q", "-p", "no:cacheprovider", "--tb", "no", "-W", "ignore"])
    SnapshotReport(result=result, configuration=config)  # computes result["score"]
    cases = {}
    for name, case in result.cases.items():
        metric = case.get("metric")
        if isinstance(metric, dict):
            cases[name] = {k: round(1.0 - v, 3) for k, v in metric.items() if isinstance(v, (int, float))}
        elif isinstance(metric, (int, float)):
            cases[name] = round(1.0 - metric, 3)
    return {"total": result["score"]["total_score"],
            "sections": {s["section"]: s["score"] for s in result["score"]["sections"]},
            "cases": cases, "warnings": notifications["warnings"][:5], "errors": notifications["errors"][:5]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exports", default=",".join(EXPORTS), help=f"comma-separated, of {', '.join(EXPORTS)}")
    parser.add_argument("--model-json", type=Path, help="gapfilled model to reuse (built and saved there if missing)")
    parser.add_argument("--all-tests", action="store_true", help="run MEMOTE's whole suite, not only scored tests")
    parser.add_argument("--cases", action="store_true", help="print every scored test's score too")
    parser.add_argument("--score", type=Path, help=argparse.SUPPRESS)  # child process: score one file
    args = parser.parse_args()
    if args.score:
        print(json.dumps(score(args.score, args.all_tests)))
        return
    try:
        import memote  # noqa: F401
    except ImportError:
        sys.exit("MEMOTE is not installed for this interpreter: see the usage in the module docstring.")
    if not os.environ.get("GEMFLUX_DATA_DIR"):
        sys.exit("Set GEMFLUX_DATA_DIR to the reference data folder.")
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"]).resolve()
    wanted = [e.strip() for e in args.exports.split(",") if e.strip()]
    unknown = sorted(set(wanted) - set(EXPORTS))
    if unknown:
        sys.exit(f"unknown export(s) {unknown}; use {', '.join(EXPORTS)}")
    import cobra
    import memote as memote_module

    print(f"MEMOTE {memote_module.__version__}, COBRApy {cobra.__version__}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores; {'all tests' if args.all_tests else 'scored tests only'}")
    with tempfile.TemporaryDirectory() as tmp:
        model = gapfilled_model(data_dir, args.model_json)
        print(f"model {model.id}: {len(model.reactions)} reactions, {len(model.metabolites)} metabolites, "
              f"{len(model.genes)} genes")
        from gem_flux_mcp.data.biochem import BiochemIndex

        biochem = BiochemIndex.open(data_dir, Path(os.environ.get("GEMFLUX_CACHE_DIR") or Path(tmp) / "cache"))
        results: dict[str, dict[str, Any]] = {}
        for how in wanted:
            path = Path(tmp) / f"ecoli_{how}.xml"
            started = time.perf_counter()
            warnings = export(model, how, path, biochem)
            exported = time.perf_counter() - started
            started = time.perf_counter()
            child = subprocess.run([sys.executable, __file__, "--score", str(path)]
                                   + (["--all-tests"] if args.all_tests else []),
                                   capture_output=True, text=True, check=False)
            lines = [line for line in child.stdout.splitlines() if line.startswith("{")]
            if child.returncode != 0 or not lines:
                print(f"\n{how}: MEMOTE failed (exit {child.returncode}):\n{child.stderr[-2000:]}")
                continue
            results[how] = json.loads(lines[-1])
            print(f"\n{how}: exported in {exported:.1f} s ({path.stat().st_size / 1e6:.1f} MB), "
                  f"scored in {time.perf_counter() - started:.0f} s"
                  + "".join(f"\n  export warning: {w}" for w in warnings))
            result = results[how]
            if "error" in result:
                print(f"  MEMOTE could not read the file: {result['error']}")
                continue
            print(f"  total score {result['total']:.3f}")
            for section in SCORED_SECTIONS:
                print(f"  {section:<16} {result['sections'].get(section, float('nan')):.3f}")
            for line in result["warnings"] + result["errors"]:
                print(f"  MEMOTE reading: {line[:200]}")
            if args.cases:
                for name, value in sorted(result["cases"].items()):
                    print(f"    {name}: {value}")
        if len(results) > 1:
            print("\nsection            " + "".join(f"{how:>16}" for how in results))
            for section in ("total", *SCORED_SECTIONS):
                row = [r["total"] if section == "total" else r.get("sections", {}).get(section, float("nan"))
                       for r in results.values()]
                print(f"{section:<19}" + "".join(f"{v:>16.3f}" for v in row))


if __name__ == "__main__":
    main()
