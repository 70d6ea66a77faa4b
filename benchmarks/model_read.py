"""Reading a COBRApy JSON model: `cobra.io.from_json` against `modeling/json_model.model_from_json`
(the same model, without a copy of each metabolite per reaction), in one run, on the models
every job and every check-out of a stored model reads.

Models: COBRApy's textbook E. coli core, iML1515 (COBRApy's test data), and with `--json FILE`
any COBRApy JSON file (e.g. an E. coli draft saved by `gem-flux build`). Each is read `--rounds`
times by each reader, alternating; the median is reported, and both readers' models are checked
to be the same (`model_to_dict`).

    .venv/bin/python benchmarks/model_read.py [--json MODEL.json ...] [--rounds 5]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cobra.io import from_json, load_model, model_to_dict, read_sbml_model, to_json

from gem_flux_mcp.modeling.json_model import model_from_json


def iml1515() -> str:
    spec = importlib.util.find_spec("cobra")
    assert spec is not None and spec.origin is not None
    return to_json(read_sbml_model(str(Path(spec.origin).parents[1] / "tests" / "data" / "iML1515.xml.gz")))


def timed(reader: Callable[[str], Any], document: str) -> float:
    gc.collect()
    started = time.perf_counter()
    reader(document)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", nargs="*", default=[], help="more COBRApy JSON model files")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    documents = {"textbook": to_json(load_model("textbook")), "iML1515": iml1515(),
                 **{Path(p).name: Path(p).read_text() for p in args.json}}
    print(f"{'model':<28} {'reactions':>9} {'COBRApy s':>10} {'ours s':>8} {'ratio':>7}  same model")
    for name, document in documents.items():
        ours_model, theirs_model = model_from_json(document), from_json(document)
        same = model_to_dict(ours_model) == model_to_dict(theirs_model)
        theirs, ours = [], []
        for _ in range(args.rounds):
            theirs.append(timed(from_json, document))
            ours.append(timed(model_from_json, document))
        t, o = statistics.median(theirs), statistics.median(ours)
        print(f"{name:<28} {len(theirs_model.reactions):>9} {t:>10.3f} {o:>8.3f} {o / t:>6.2f}x  {same}")


if __name__ == "__main__":
    main()
