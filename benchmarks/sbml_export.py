"""Exporting a model as SBML, and libsbml's check of the written file, against libsbml alone.

    .venv/bin/python benchmarks/sbml_export.py [--models iJO1366,textbook] [--json draft.json ...] [--runs 3]

For each model (COBRApy's bundled models by name, and any COBRApy JSON file given with --json, e.g.
a Gem-Flux draft): the whole `export_model_file` (write, check, read back, compare), and the
libsbml part of its check timed two ways on the same written file, in the same run:

* libsbml alone: `checkConsistency()` of the whole document (units and modelling-practice checks
  off, as in the export), which looks up each group member by walking the model;
* ours: `validate.libsbml_problems`, libsbml's checks with the groups' members checked from one
  index of the model's ids (modeling/sbml/group_checks.py).

Both find the same problems (tests/test_sbml_export.py); the medians of --runs runs are printed
with their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import cobra
import libsbml
from cobra.io import load_json_model, load_model

from gem_flux_mcp.modeling import model_io
from gem_flux_mcp.modeling.sbml import validate

T = TypeVar("T")


def libsbml_alone(path: Path) -> int:
    document = libsbml.readSBMLFromFile(str(path))
    document.setConsistencyChecks(libsbml.LIBSBML_CAT_UNITS_CONSISTENCY, False)
    document.setConsistencyChecks(libsbml.LIBSBML_CAT_MODELING_PRACTICE, False)
    document.checkConsistency()
    errors = [document.getError(i) for i in range(document.getNumErrors())]
    return sum(error.getSeverity() >= libsbml.LIBSBML_SEV_WARNING for error in errors)


def timed(function: Callable[..., T], *args: object) -> tuple[float, T]:
    started = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="iJO1366,textbook", help="COBRApy bundled models, comma-separated")
    parser.add_argument("--json", nargs="*", default=[], help="COBRApy JSON model files")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    models: list[tuple[str, cobra.Model]] = [(name, load_model(name)) for name in args.models.split(",") if name]
    models += [(Path(p).stem, load_json_model(p)) for p in args.json]
    print("| model | reactions | group members | export_model_file s | libsbml alone s | ours s | ours / alone |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for name, model in models:
            path = Path(folder) / f"{name}.xml"
            export, _ = timed(model_io.export_model_file, model, path, "sbml")
            alone, ours = [], []
            for _ in range(args.runs):
                seconds, found = timed(libsbml_alone, path)
                assert found == 0, f"libsbml finds {found} problem(s) in {name}"
                alone.append(seconds)
                seconds, problems = timed(validate.libsbml_problems, path)
                assert problems == [], problems[:3]
                ours.append(seconds)
            members = group_members(path)
            a, o = statistics.median(alone), statistics.median(ours)
            print(f"| {name} | {len(model.reactions)} | {members} | {export:.2f} | {a:.2f} | {o:.2f} | {o / a:.3f}x |")


def group_members(path: Path) -> int:
    document = libsbml.readSBMLFromFile(str(path))  # kept: the plugin lives inside it
    plugin = document.getModel().getPlugin("groups")
    return sum(plugin.getGroup(i).getNumMembers() for i in range(plugin.getNumGroups())) if plugin else 0


if __name__ == "__main__":
    main()
