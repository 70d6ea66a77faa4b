"""Write `src/gem_flux_mcp/data/media/*.json`: the media library shipped with the package.

Every medium is built from a published definition and says which in its `source`:

- M9: CarveMe's in-silico M9 (`carveme` package, data/benchmark/media_db.tsv, medium "M9";
  Machado et al. 2018, Nucleic Acids Res. 46:7542): the M9 salts of the standard recipe
  (Sambrook & Russell, Molecular Cloning, 3rd ed., 2001: Na2HPO4, KH2PO4, NaCl, NH4Cl, MgSO4,
  CaCl2 and a carbon source) plus the trace metals a model needs for its cofactors. The carbon
  source (D-glucose there) is swapped for each of CARBON_SOURCES; CarveMe's own variants
  M9[glyc], M9[succ] and M9[DL-lac] come out identical to ours. Anaerobic media are the same
  without O2 (CarveMe's M9[-O2]); a few add an anaerobic electron acceptor.
- LB: CarveMe's "LB" (Lysogeny broth, tryptone and yeast extract written out as 18 amino acids,
  nucleosides and bases, vitamins, ions and trace metals) and "LB[-O2]".
- Biolog base media: what CarveMe's Biolog benchmark (carveme/cli/benchmark.py) tests each
  plate on: its M9 with the plate's reference source taken out (carbon: D-glucose, D- and
  L-lactate; nitrogen: ammonia; phosphorus: phosphate; sulfur: sulfate; the reference sources
  of `panels.json`), and for Shewanella its ShewMM (Price et al. 2016) the same way.
- Shewanella minimal medium: CarveMe's "ShewMM" (lactate, Wolfe's vitamins).

Uptake bounds (mmol/gDW/h; the upper bound, secretion, is 100 throughout):
sole carbon source 10; electron acceptors (O2, nitrate, fumarate) 20; amino acids and nucleosides
of LB 5; major ions, water, H+ and the N, P, S sources 100; trace metals 0.1 and vitamins or
cofactors 0.01, so that no model can live on them as a carbon or nitrogen source. Each compound
carries its `role` and a `comment` that says so. ModelSEED ids are ModelSEED's own aliases of the
BiGG ids (as in scripts/make_panels.py), names are ModelSEED's.

Usage: GEMFLUX_DATA_DIR=... python scripts/make_media_library.py [--check]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.panels import load_panels

OUT = Path(__file__).resolve().parents[1] / "src" / "gem_flux_mcp" / "data" / "media"
SECRETION = 100.0

# role -> (uptake limit, comment); the comment names the limit so a reader of a file sees why
ROLES: dict[str, tuple[float, str]] = {
    "carbon_source": (10.0, "sole carbon source, uptake up to 10 mmol/gDW/h"),
    "electron_acceptor": (20.0, "electron acceptor, uptake up to 20 mmol/gDW/h"),
    "nitrogen_source": (100.0, "nitrogen source"),
    "phosphorus_source": (100.0, "phosphorus source"),
    "sulfur_source": (100.0, "sulfur source"),
    "mineral": (100.0, "major ion of the salts"),
    "water": (100.0, "water"),
    "proton": (100.0, "proton"),
    "amino_acid": (5.0, "amino acid of tryptone / yeast extract, uptake up to 5 mmol/gDW/h"),
    "nucleobase": (5.0, "nucleoside, nucleotide or base of yeast extract, uptake up to 5 mmol/gDW/h"),
    "trace": (0.1, "trace element: uptake limited to 0.1 mmol/gDW/h (a cofactor, not a nutrient)"),
    "vitamin": (0.01, "vitamin or cofactor: uptake limited to 0.01 mmol/gDW/h (not a carbon or nitrogen source)"),
}

# BiGG id -> role, for every compound of the CarveMe media used here
BIGG_ROLES: dict[str, str] = {
    "h2o": "water", "h": "proton", "o2": "electron_acceptor",
    "nh4": "nitrogen_source", "pi": "phosphorus_source", "so4": "sulfur_source", "h2s": "sulfur_source",
    "na1": "mineral", "k": "mineral", "cl": "mineral", "mg2": "mineral", "ca2": "mineral",
    "fe2": "trace", "fe3": "trace", "mn2": "trace", "zn2": "trace", "cu2": "trace", "cobalt2": "trace",
    "mobd": "trace", "ni2": "trace", "aso3": "trace", "cd2": "trace", "cro4": "trace", "hg2": "trace",
    "glc__D": "carbon_source", "glyc": "carbon_source", "succ": "carbon_source",
    "lac__D": "carbon_source", "lac__L": "carbon_source",
    "ala__L": "amino_acid", "arg__L": "amino_acid", "asp__L": "amino_acid", "cys__L": "amino_acid",
    "glu__L": "amino_acid", "gly": "amino_acid", "his__L": "amino_acid", "ile__L": "amino_acid",
    "leu__L": "amino_acid", "lys__L": "amino_acid", "met__L": "amino_acid", "phe__L": "amino_acid",
    "pro__L": "amino_acid", "ser__L": "amino_acid", "thr__L": "amino_acid", "trp__L": "amino_acid",
    "tyr__L": "amino_acid", "val__L": "amino_acid",
    "adn": "nucleobase", "amp": "nucleobase", "cmp": "nucleobase", "dad_2": "nucleobase",
    "dcyt": "nucleobase", "gmp": "nucleobase", "gsn": "nucleobase", "hxan": "nucleobase",
    "ins": "nucleobase", "thymd": "nucleobase", "ump": "nucleobase", "ura": "nucleobase", "uri": "nucleobase",
    "cbl1": "vitamin", "fol": "vitamin", "lipoate": "vitamin", "nac": "vitamin", "pheme": "vitamin",
    "pnto__R": "vitamin", "pydx": "vitamin", "pydxn": "vitamin", "ribflv": "vitamin", "thm": "vitamin",
    "btn": "vitamin", "4abz": "vitamin",
}
# Special cases of a role's default limit, with the reason in the comment
OVERRIDES: dict[tuple[str, str], tuple[float, str]] = {
    ("LB", "glc__D"): (1.0, "traces of sugar from yeast extract, uptake up to 1 mmol/gDW/h"),
    ("LB", "h2s"): (1.0, "sulfide listed in CarveMe's LB, uptake up to 1 mmol/gDW/h"),
    ("LB", "aso3"): (0.1, "trace contaminant listed in CarveMe's LB, uptake limited to 0.1 mmol/gDW/h"),
    ("LB", "cd2"): (0.1, "trace contaminant listed in CarveMe's LB, uptake limited to 0.1 mmol/gDW/h"),
    ("LB", "cro4"): (0.1, "trace contaminant listed in CarveMe's LB, uptake limited to 0.1 mmol/gDW/h"),
    ("LB", "hg2"): (0.1, "trace contaminant listed in CarveMe's LB, uptake limited to 0.1 mmol/gDW/h"),
}

# (BiGG id, id part, label): M9's sole carbon sources, aerobic and anaerobic
CARBON_SOURCES: list[tuple[str, str, str]] = [
    ("glc__D", "glucose", "D-glucose"), ("fru", "fructose", "D-fructose"), ("gal", "galactose", "D-galactose"),
    ("man", "mannose", "D-mannose"), ("xyl__D", "xylose", "D-xylose"), ("arab__L", "arabinose", "L-arabinose"),
    ("rib__D", "ribose", "D-ribose"), ("rmn", "rhamnose", "L-rhamnose"), ("malt", "maltose", "maltose"),
    ("lcts", "lactose", "lactose"), ("sucr", "sucrose", "sucrose"), ("tre", "trehalose", "trehalose"),
    ("melib", "melibiose", "melibiose"), ("glyc", "glycerol", "glycerol"), ("mnl", "mannitol", "D-mannitol"),
    ("sbt__D", "sorbitol", "D-sorbitol"), ("acgam", "n_acetylglucosamine", "N-acetyl-D-glucosamine"),
    ("glcn", "gluconate", "D-gluconate"), ("pyr", "pyruvate", "pyruvate"),
    ("lac__D+lac__L", "lactate", "DL-lactate (D- and L-lactate, 5 mmol/gDW/h each)"),
    ("ac", "acetate", "acetate"), ("succ", "succinate", "succinate"), ("fum", "fumarate", "fumarate"),
    ("mal__L", "malate", "L-malate"), ("cit", "citrate", "citrate"), ("akg", "2_oxoglutarate", "2-oxoglutarate"),
    ("ppa", "propionate", "propionate"), ("etoh", "ethanol", "ethanol"),
]
# CarveMe's own names for some of them
CARVEME_NAMES = {"glucose": "M9", "glycerol": "M9[glyc]", "succinate": "M9[succ]", "lactate": "M9[DL-lac]"}
# (carbon source id part, acceptor BiGG id, acceptor label): anaerobic respiration on M9
ANAEROBIC_RESPIRATION: list[tuple[str, str, str]] = [
    ("glucose", "no3", "nitrate"), ("glycerol", "no3", "nitrate"), ("glycerol", "fum", "fumarate"),
]
VITAMINS = ["pydxn", "4abz", "lipoate", "nac", "ribflv", "thm", "pnto__R", "btn", "fol", "cbl1"]  # ShewMM's

CARVEME = "carveme 1.6.6 data/benchmark/media_db.tsv (Machado et al. 2018, Nucleic Acids Res. 46:7542)"
M9_SOURCE = ("M9 salts (Sambrook & Russell, Molecular Cloning, 3rd ed., 2001) with trace metals, as CarveMe's "
             f"medium 'M9' in {CARVEME}")
IDS = "ModelSEED ids via ModelSEED's BiGG aliases; bounds by role (scripts/make_media_library.py)."


@dataclass
class Medium:
    name: str
    description: str
    source: str
    category: str
    compounds: dict[str, tuple[str, float, str]]  # BiGG id -> (role, uptake limit, comment)

    def without(self, *bigg: str) -> dict[str, tuple[str, float, str]]:
        return {k: v for k, v in self.compounds.items() if k not in bigg}


def entry(medium: str, bigg: str, role: str | None = None) -> tuple[str, float, str]:
    """(role, uptake limit, comment) of one compound in one CarveMe medium."""
    role = role or BIGG_ROLES[bigg]
    limit, comment = OVERRIDES.get((medium, bigg), ROLES[role])
    return role, limit, comment


def carbon_sources(bigg: list[str]) -> dict[str, tuple[str, float, str]]:
    """The sole carbon source; the forms of a racemic mixture (DL-lactate) share its limit."""
    if len(bigg) == 1:
        return {bigg[0]: entry("M9", bigg[0], "carbon_source")}
    share = ROLES["carbon_source"][0] / len(bigg)
    return {b: ("carbon_source", share, f"carbon source (one of {len(bigg)} forms of a racemic mixture), uptake up "
                f"to {share:g} mmol/gDW/h") for b in bigg}


def carveme_media() -> dict[str, list[str]]:
    spec = importlib.util.find_spec("carveme")
    assert spec is not None and spec.origin, "the carveme package is needed to read its media_db.tsv"
    path = Path(spec.origin).parent / "data" / "benchmark" / "media_db.tsv"
    media: dict[str, list[str]] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            media.setdefault(row["medium"].strip(), []).append(row["compound"].strip())
    return media


def library(carveme: dict[str, list[str]], reference: dict[str, list[str]], to_seed: dict[str, str]) -> list[Medium]:
    """Every medium with BiGG ids; `reference`: each Biolog panel's reference sources (ModelSEED ids)."""
    m9 = {b: entry("M9", b) for b in carveme["M9"]}
    salts = {b: v for b, v in m9.items() if b not in ("glc__D", "o2")}  # M9 without carbon source and O2
    media: list[Medium] = []
    for bigg, part, label in CARBON_SOURCES:
        carbon = carbon_sources(bigg.split("+"))
        named = "" if part == "glucose" else f"; D-glucose replaced by {label}" + (
            f" (CarveMe's '{CARVEME_NAMES[part]}')" if part in CARVEME_NAMES else "")
        for aerobic in (True, False):
            oxygen = {"o2": m9["o2"]} if aerobic else {}
            media.append(Medium(
                f"m9_{part}_{'aerobic' if aerobic else 'anaerobic'}",
                f"M9 minimal medium with {label} as the sole carbon source, "
                + ("aerobic (O2 up to 20 mmol/gDW/h)." if aerobic else "anaerobic (no O2, no other electron "
                   "acceptor)."),
                f"{M9_SOURCE}{named}" + ("" if aerobic else "; without O2 (as CarveMe's 'M9[-O2]')") + f". {IDS}",
                "M9 minimal", {**carbon, **salts, **oxygen}))
    for part, acceptor, label in ANAEROBIC_RESPIRATION:
        carbon_bigg = next(b for b, p, _ in CARBON_SOURCES if p == part)
        carbon_label = next(lab for _, p, lab in CARBON_SOURCES if p == part)
        media.append(Medium(
            f"m9_{part}_{label}_anaerobic",
            f"M9 minimal medium with {carbon_label} as the sole carbon source and {label} as the electron "
            "acceptor, anaerobic (anaerobic respiration).",
            f"{M9_SOURCE}; D-glucose replaced by {carbon_label}, O2 by {label}. {IDS}",
            "M9 anaerobic respiration",
            {carbon_bigg: entry("M9", carbon_bigg, "carbon_source"), **salts,
             acceptor: entry("M9", acceptor, "electron_acceptor")}))
    for aerobic in (True, False):
        glucose = {"glc__D": m9["glc__D"], **salts, **({"o2": m9["o2"]} if aerobic else {})}
        media.append(Medium(
            f"m9_glucose_vitamins_{'aerobic' if aerobic else 'anaerobic'}",
            "M9 minimal medium with D-glucose and Wolfe's vitamins (biotin, folate, pyridoxine, thiamin, riboflavin, "
            "nicotinate, pantothenate, B12, 4-aminobenzoate, lipoate) for auxotrophs, "
            + ("aerobic." if aerobic else "anaerobic."),
            f"{M9_SOURCE}; plus the vitamins of CarveMe's 'ShewMM' (Wolfe's vitamin solution). {IDS}",
            "M9 minimal", {**glucose, **{b: entry("ShewMM", b) for b in VITAMINS}}))
    for aerobic in (True, False):
        name = "LB" if aerobic else "LB[-O2]"
        media.append(Medium(
            f"lb_{'aerobic' if aerobic else 'anaerobic'}",
            "LB (lysogeny broth: tryptone, yeast extract, NaCl) written out as a defined medium: 18 amino acids "
            "(no asparagine or glutamine), nucleosides, nucleotides and bases, vitamins and cofactors, ions and "
            f"trace metals; {'aerobic' if aerobic else 'anaerobic'}.",
            f"Lysogeny broth (Bertani 1951) as CarveMe's medium '{name}' in {CARVEME}. {IDS}",
            "LB rich", {b: entry("LB", b) for b in carveme[name]}))
    shew = {b: entry("ShewMM", b) for b in carveme["ShewMM"]}
    shew.update(carbon_sources([b for b in shew if shew[b][0] == "carbon_source"]))
    shew_anaerobic = {**{b: v for b, v in shew.items() if b != "o2"},
                      "fum": entry("ShewMM", "fum", "electron_acceptor")}
    media.append(Medium(
        "shewanella_minimal_lactate_aerobic",
        "Shewanella minimal medium: DL-lactate, M9-type salts, trace metals and Wolfe's vitamins; aerobic.",
        f"Shewanella minimal medium (Price et al. 2016) as CarveMe's 'ShewMM' in {CARVEME}. {IDS}",
        "Shewanella minimal", shew))
    media.append(Medium(
        "shewanella_minimal_lactate_fumarate_anaerobic",
        "Shewanella minimal medium with fumarate as the electron acceptor instead of O2 (anaerobic respiration).",
        f"Shewanella minimal medium (Price et al. 2016) as CarveMe's 'ShewMM' in {CARVEME}; O2 replaced by "
        f"fumarate. {IDS}",
        "Shewanella minimal", shew_anaerobic))
    for part, name in CARVEME_NAMES.items():  # CarveMe's own M9 variants: the same compounds
        ours = next(m for m in media if m.name == f"m9_{part}_aerobic")
        assert set(ours.compounds) == set(carveme[name]), (name, set(ours.compounds) ^ set(carveme[name]))
    assert set(next(m for m in media if m.name == "m9_glucose_anaerobic").compounds) == set(carveme["M9[-O2]"])
    seed_of = {b: to_seed[b] for b in {*m9, *shew}}
    elements = {"carbon": ("D-glucose, D- and L-lactate", "PM1, PM2", "M9 salts with no carbon source"),
                "nitrogen": ("ammonia", "PM3", "M9 with D-glucose but no nitrogen source"),
                "phosphorus": ("phosphate", "PM4", "M9 with D-glucose but no phosphorus source"),
                "sulfur": ("sulfate", "PM4", "M9 with D-glucose but no sulfur source")}
    for element, (taken, plates, what) in elements.items():
        removed = [b for b in m9 if seed_of[b] in reference[element]]
        media.append(Medium(
            f"biolog_base_{element}_free",
            f"Biolog phenotype base medium: {what}, aerobic. The negative control of the {element} plates "
            f"({plates}): each plate compound is added as the sole {element} source.",
            f"CarveMe's Biolog benchmark base (carveme/cli/benchmark.py): 'M9' of {CARVEME}, minus the "
            f"{element} reference sources ({taken}; as in panels.json). It stands in for Biolog's inoculating "
            f"fluids (IF-0a for PM1-2, IF-10 for PM3-8), whose recipes are proprietary. {IDS}",
            "Biolog base", {b: v for b, v in m9.items() if b not in removed}))
    for element in ("carbon", "nitrogen"):
        removed = [b for b in shew if seed_of[b] in reference[element]]
        taken = "D- and L-lactate" if element == "carbon" else "ammonia"
        media.append(Medium(
            f"biolog_base_shewanella_{element}_free",
            f"Biolog phenotype base medium for Shewanella: ShewMM without its {element} source ({taken}), "
            f"aerobic. The negative control of the {element} plates.",
            f"CarveMe's Biolog benchmark base for S. oneidensis (carveme/cli/benchmark.py): 'ShewMM' of "
            f"{CARVEME}, minus the {element} reference sources ({taken}). {IDS}",
            "Biolog base", {b: v for b, v in shew.items() if b not in removed}))
    return media


def build(biochem: BiochemIndex) -> dict[str, dict[str, Any]]:
    """{media id: the medium as written to its file}."""
    carveme = carveme_media()
    _, panels = load_panels()
    reference = {name: list(panel.reference_sources) for name, panel in panels.items()}
    wanted = {b for media in carveme.values() for b in media} | set(BIGG_ROLES) | {"no3", "fum"} \
        | {b for bigg, _, _ in CARBON_SOURCES for b in bigg.split("+")}
    to_seed = biochem.compound_ids_for_external("BiGG", sorted(wanted))
    media = library(carveme, reference, to_seed)
    ids = {to_seed[b] for m in media for b in m.compounds}
    records = biochem.compounds_by_ids(ids)
    stale = sorted(c for c in ids if c not in records or records[c]["is_obsolete"])
    assert not stale, f"not current ModelSEED compounds: {stale}"
    files: dict[str, dict[str, Any]] = {}
    for medium in media:
        compounds: dict[str, dict[str, Any]] = {}
        ordered = sorted(medium.compounds.items(), key=lambda item: list(ROLES).index(item[1][0]))
        for bigg, (role, limit, comment) in ordered:
            cpd = to_seed[bigg]
            assert cpd not in compounds, f"{medium.name}: {bigg} maps to {cpd} twice"
            compounds[cpd] = {"name": records[cpd]["name"], "bounds": [-limit, SECRETION], "role": role,
                              "comment": comment}
        assert medium.name not in files, medium.name
        files[medium.name] = {"name": medium.name, "description": medium.description, "source": medium.source,
                              "category": medium.category, "compounds": compounds}
    return files


def expected_files(biochem: BiochemIndex) -> dict[str, str]:
    """{file name: its text}: what OUT must hold."""
    return {f"{name}.json": render(medium) for name, medium in build(biochem).items()}


def render(medium: dict[str, Any]) -> str:
    text = json.dumps(medium, indent=2, ensure_ascii=False)
    return re.sub(r"\[\s+([^,\[\]]+),\s+([^,\[\]]+?)\s+\]", r"[\1, \2]", text) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="fail when the shipped files differ")
    check = parser.parse_args().check
    settings = Settings.resolve()
    wanted = expected_files(BiochemIndex.open(settings.data_dir, settings.cache_dir))
    present = {p.name: p for p in OUT.glob("*.json")} if OUT.is_dir() else {}
    if check:
        differ = sorted(n for n in wanted.keys() | present.keys()
                        if n not in present or n not in wanted or present[n].read_text(encoding="utf-8") != wanted[n])
        sys.exit(f"media library out of date: {', '.join(differ)}" if differ else 0)
    OUT.mkdir(parents=True, exist_ok=True)
    for name, path in present.items():
        if name not in wanted:
            path.unlink()
    for name, text in wanted.items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(wanted)} media to {OUT}")


if __name__ == "__main__":
    main()
