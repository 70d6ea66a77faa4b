"""Write `src/gem_flux_mcp/data/panels.json`: the Biolog phenotype panels in ModelSEED ids.

Source: the Biolog tables shipped in the `carveme` package (data/benchmark/biolog/<organism>/
biolog_<plate>.tsv, from Machado et al. 2018, Nucleic Acids Res. 46:7542, which took them from
Biolog PM1-PM4 experiments). Only the compound lists are used, not the growth calls, and only the
tables of the two organisms we develop on (E. coli K-12 `ecol`, B. subtilis 168 `bsub`); their
union is one panel per plate (carbon PM1/PM2, nitrogen PM3, phosphorus and sulfur PM4).

Each compound's ModelSEED id is ModelSEED's own alias of its BiGG id (canonical, as the
templates use it); the table's `seed` column is kept only when the BiGG id has no alias, as it
holds some non-canonical ids (L-arabinose cpd19109 for cpd00224).

Usage: GEMFLUX_DATA_DIR=... python scripts/make_panels.py [--check]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import sys
from pathlib import Path

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex

OUT = Path(__file__).resolve().parents[1] / "src" / "gem_flux_mcp" / "data" / "panels.json"
ORGANISMS = ("ecol", "bsub")
# The source a panel's compounds replace in the base medium (CarveMe's benchmark convention:
# carbon: D-glucose, D- and L-lactate; nitrogen: ammonia; phosphorus: phosphate; sulfur: sulfate).
REFERENCE = {"carbon": ["cpd00027", "cpd00221", "cpd00159"], "nitrogen": ["cpd00013"],
             "phosphorus": ["cpd00009"], "sulfur": ["cpd00048"]}


def build() -> dict[str, object]:
    spec = importlib.util.find_spec("carveme")
    assert spec is not None and spec.origin, "the carveme package is needed to read its Biolog tables"
    bench = Path(spec.origin).parent / "data" / "benchmark" / "biolog"
    settings = Settings.resolve()
    biochem = BiochemIndex.open(settings.data_dir, settings.cache_dir)
    panels: dict[str, object] = {}
    for plate, reference in REFERENCE.items():
        rows: dict[str, dict[str, str]] = {}
        for organism in ORGANISMS:
            with (bench / organism / f"biolog_{plate}.tsv").open(newline="", encoding="utf-8") as handle:
                for row in csv.DictReader(handle, delimiter="\t"):
                    bigg = (row.get("bigg_id") or "").strip()
                    if bigg:
                        rows.setdefault(bigg, {k: (v or "").strip() for k, v in row.items()})
        aliases = biochem.compound_ids_for_external("BiGG", rows)
        names = biochem.compound_names([*aliases.values(), *(r.get("seed", "") for r in rows.values())])
        compounds: dict[str, dict[str, str]] = {}
        for bigg, row in sorted(rows.items()):
            cpd = aliases.get(bigg) or row.get("seed", "")
            if not cpd.startswith("cpd") or cpd in reference or cpd in compounds:
                continue
            compounds[cpd] = {"name": names[cpd][0] if cpd in names else row["compound"], "bigg": bigg}
        panels[plate] = {"reference_sources": reference, "compounds": compounds}
    return {"source": "Biolog PM1-PM4 compound lists of E. coli K-12 and B. subtilis 168 in the carveme "
                      "package's benchmark data (Machado et al. 2018, Nucleic Acids Res. 46:7542); "
                      "ModelSEED ids from ModelSEED's BiGG aliases",
            "panels": panels}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="fail when the shipped file differs")
    text = json.dumps(build(), indent=1, ensure_ascii=False) + "\n"
    if parser.parse_args().check:
        sys.exit(0 if OUT.read_text(encoding="utf-8") == text else "panels.json is out of date")
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
