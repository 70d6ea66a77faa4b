"""Simulated MAGs (issue 34): completeness and contamination estimated against the truth, and how
phenotype predictions degrade with completeness.

The development data are proteomes, not assemblies, so a MAG is simulated by removing *proteins*,
not contigs: a seeded random share of the organism's proteins is kept (removal is gene by gene,
scattered over the genome, where a real MAG loses whole contigs, i.e. runs of neighbouring genes),
and a random share of another development organism's proteins is added as contamination
(contaminant ids get a `contaminant|` prefix so they never clash with the host's).

Part A, estimation (a few minutes). For each of the nine development organisms (E. coli K-12 and
the other seven of `fermentation/`, B. subtilis 168 from `genomes/`): completeness 100, 90, 80,
70, 60, 50 % (share of the host's proteins kept), contamination 0, 5, 10 % (that share of the
contaminant's proteins added; the contaminant is the next organism in the list, the last one's is
the first), REPLICATES random draws each. Estimated with `estimate_completeness` against the
bundled markers with both the host's and the contaminant's own marker proteins left out
(`marker_set_without`), as a new genome would be. True completeness is the share of host proteins
kept, true contamination the share of the contaminant's proteins added (CheckM's contamination:
a complete second genome is 100 %). Targets (issue 34): completeness within 10 points from 50 to
100 %, contamination within 5 points up to 10 %. Beside each level, what an ideal counter of the
92 single-copy families would reach on such MAGs (`ideal`): the error that sampling 92 families
leaves, and the definitions' own bias (a contaminant's copy of a family the host lost counts as
completeness, not contamination). A second table keeps the host's own marker proteins in (as a
build does for a genome whose organism supplied markers) and leaves only the contaminant's out.

Speed: the markers are searched once per (host, contaminant) pair with *all* proteins of both;
each simulated MAG is then counted (`count_markers`) on the hits of the proteins it keeps. A
protein's hits do not depend on which other proteins are searched with it, so this is the search
of the MAG itself; `--direct N` checks that on N MAGs per organism by searching them on their own
(`estimate_completeness`), and the output says how many agreed.

Part B, phenotypes (`--phenotypes`; ~7 minutes at 70 %, 13 with `--mag-levels 70,50`, on 2 cores).
The same simulation without contamination (seeded; `--mag-levels`, default 70 %) on:
- E. coli K-12 and B. subtilis 168, CarveMe's benchmark proteomes: built, gapfilled and scored on
  Biolog growth and gene essentiality with `phenotypes/run.py`'s protocol and functions, with the
  full homology reference (its first case). Essentiality is scored, as CarveMe's protocol does, on
  the listed genes the model has: a MAG's model has fewer, so `n` is printed beside the MCC.
- the eight fermentation organisms: `gem-flux reconstruct --template auto`, gapfilled on FT, with
  `phenotypes/fermentation.py`'s protocol and functions; pooled MCC over 8 x 9 product calls.
The complete genomes are rebuilt in the same run, so both columns come from the same code.

Part B also prints each genome's estimate as its build reported it (`genome_completeness`: the
bundled markers, the organism's own included).

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.mags \\
        [--replicates 5] [--direct 1] [--phenotypes [--no-estimation] [--mag-levels 70,50]
        [--fermentation-levels 70]] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from benchmarks.phenotypes import fermentation, run, score

from gem_flux_mcp.modeling import align
from gem_flux_mcp.modeling.completeness import (
    GenomeCompleteness,
    MarkerSet,
    bundled_markers,
    count_markers,
    estimate_completeness,
    marker_set_without,
)
from gem_flux_mcp.modeling.inputs import Protein

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from make_markers import proteomes, read_named  # (scripts/ is not a package)

os.environ.setdefault("GEMFLUX_KEEP_HITS", "0")  # builds are timed cold: every protein aligned (hit_cache)

COMPLETENESS_LEVELS = (100, 90, 80, 70, 60, 50)  # percent of the host's proteins kept
CONTAMINATION_LEVELS = (0, 5, 10)  # percent of the contaminant's proteins added
REPLICATES = 5
COMPLETENESS_TARGET = 10.0  # points
CONTAMINATION_TARGET = 5.0
CONTAMINANT_PREFIX = "contaminant|"
SHORT_NAMES = {"GCF_000005845.2": "E. coli K-12", "GCF_000008765.1": "C. acetobutylicum",
               "GCF_000011065.1": "B. thetaiotaomicron", "GCF_000020425.1": "B. infantis",
               "GCF_000175255.2": "Z. mobilis", "GCF_000203855.3": "L. plantarum",
               "GCF_000392875.1": "E. faecalis", "GCF_001561955.1": "A. propionicum",
               "bsubtilis_168": "B. subtilis 168"}


class Mag(NamedTuple):
    host: str
    contaminant: str
    completeness: int  # true, percent
    contamination: int  # true, percent
    replicate: int
    proteins: list[str]  # ids kept (host) and added (contaminant, prefixed)


def kept(ids: Iterable[str], percent: float, seed: str) -> list[str]:
    """A seeded random `percent` % of `ids` (sorted first, so the draw depends on the seed only)."""
    pool = sorted(ids)
    return sorted(random.Random(seed).sample(pool, round(len(pool) * percent / 100.0)))


def simulate(host: str, host_ids: list[str], contaminant: str, contaminant_ids: list[str],
             replicates: int) -> list[Mag]:
    """Every (completeness, contamination, replicate) MAG of one host. A replicate's host proteins
    are the same at every contamination level, so the levels differ by the contaminant alone."""
    mags = []
    for completeness in COMPLETENESS_LEVELS:
        for replicate in range(replicates):
            own = kept(host_ids, completeness, f"{host}|{completeness}|{replicate}")
            for contamination in CONTAMINATION_LEVELS:
                added = kept(contaminant_ids, contamination, f"{host}|{contaminant}|{contamination}|{replicate}")
                mags.append(Mag(host, contaminant, completeness, contamination, replicate,
                                own + [CONTAMINANT_PREFIX + pid for pid in added]))
    return mags


def _binomial(n: int, p: float) -> list[float]:
    return [math.comb(n, k) * p**k * (1.0 - p) ** (n - k) for k in range(n + 1)]


def ideal(completeness: int, contamination: int, markers: int) -> dict[str, float]:
    """What a perfect counter of `markers` single-copy families would estimate on these MAGs: each
    family's host copy kept with probability p, the contaminant's added with probability c;
    completeness = families with either copy, contamination = families with both. Its errors are
    those of sampling `markers` families (and of the definitions), not of the search."""
    p, c = completeness / 100.0, contamination / 100.0
    present, both = _binomial(markers, p + c - p * c), _binomial(markers, p * c)
    return {
        "completeness": 100.0 * (p + c - p * c), "contamination": 100.0 * p * c,
        "completeness_within": sum(q for k, q in enumerate(present)
                                   if abs(100.0 * k / markers - completeness) <= COMPLETENESS_TARGET + 1e-9),
        "contamination_within": sum(q for k, q in enumerate(both)
                                    if abs(100.0 * k / markers - contamination) <= CONTAMINATION_TARGET + 1e-9),
    }


def read_proteome(path: Path) -> dict[str, str]:
    return {pid: seq for pid, _, seq in read_named(path)}


def _estimate(hits: list[align.Hit], mag: Mag, markers: MarkerSet) -> GenomeCompleteness:
    wanted = set(mag.proteins)
    return count_markers((h for h in hits if h.query in wanted), markers)


def part_a(data_dir: Path, work: Path, replicates: int, direct: int) -> list[dict[str, Any]]:
    organisms = proteomes(data_dir)
    names = list(organisms)
    markers = bundled_markers()
    aligner = align.choose_aligner()
    print(f"# Part A: estimation. {len(names)} hosts x {len(COMPLETENESS_LEVELS)} completeness x "
          f"{len(CONTAMINATION_LEVELS)} contamination levels x {replicates} replicates; aligner "
          f"{aligner.describe()}; {len(markers.families)} marker families, {len(markers.proteins)} marker proteins")
    rows: list[dict[str, Any]] = []
    checked = agreed = 0
    started = time.perf_counter()
    for i, host in enumerate(names):
        contaminant = names[(i + 1) % len(names)]
        host_proteins = read_proteome(organisms[host])
        other = read_proteome(organisms[contaminant])
        both = {**host_proteins, **{CONTAMINANT_PREFIX + pid: seq for pid, seq in other.items()}}
        without = marker_set_without(markers, [host, contaminant], work)
        searched = time.perf_counter()
        hits = align.search(both, without.fasta, aligner)
        searched = time.perf_counter() - searched
        # as a build of a genome whose own organism is in the marker set: only the contaminant new
        own_in = marker_set_without(markers, [contaminant], work)
        hits_own_in = align.search(both, own_in.fasta, aligner)
        mags = simulate(host, list(host_proteins), contaminant, list(other), replicates)
        for mag in mags:
            found = _estimate(hits, mag, without)
            found_own_in = _estimate(hits_own_in, mag, own_in)
            rows.append({"host": host, "contaminant": contaminant, "true_completeness": mag.completeness,
                         "true_contamination": mag.contamination, "replicate": mag.replicate,
                         "proteins": len(mag.proteins), "completeness": found.completeness,
                         "contamination": found.contamination, "markers_left": len(without.proteins),
                         "duplicated_with_contaminant": sum(
                             any(g.startswith(CONTAMINANT_PREFIX) for g in genes)
                             for genes in found.duplicated().values()),
                         "own_in": {"completeness": found_own_in.completeness,
                                    "contamination": found_own_in.contamination}})
        # the shortcut checked: the same MAGs searched on their own
        for mag in random.Random(f"direct|{host}").sample(mags, min(direct, len(mags))):
            alone = estimate_completeness({pid: both[pid] for pid in mag.proteins}, aligner, markers=without)
            shortcut = _estimate(hits, mag, without)
            checked += 1
            agreed += alone.found == shortcut.found
        full = next(r for r in rows if r["host"] == host and r["true_completeness"] == 100
                    and r["true_contamination"] == 0)
        print(f"  {SHORT_NAMES.get(host, host):<20} {len(host_proteins):>5} proteins, contaminant "
              f"{SHORT_NAMES.get(contaminant, contaminant):<20} markers left {len(without.proteins):>3}; "
              f"complete genome: {full['completeness']:.1f} % / {full['contamination']:.1f} %; "
              f"search {searched:.1f} s")
    print(f"searched MAGs on their own (--direct): {agreed} of {checked} found the same marker proteins as "
          f"the shortcut; Part A took {time.perf_counter() - started:.0f} s")
    print_part_a(rows, len(markers.families))
    return rows


def _errors(rows: list[dict[str, Any]], key: str) -> list[float]:
    return [r[key] - r[f"true_{key}"] for r in rows]


def _share(errors: list[float], target: float) -> str:
    return f"{100.0 * sum(abs(e) <= target + 1e-9 for e in errors) / len(errors):.0f} %"


def _stats(errors: list[float]) -> tuple[float, float, float]:
    """mean signed error, mean absolute error, max absolute error"""
    absolute = [abs(e) for e in errors]
    return statistics.fmean(errors), statistics.fmean(absolute), max(absolute)


def print_part_a(rows: list[dict[str, Any]], markers: int) -> None:
    print("\nPer level (all hosts and replicates): estimate - truth, in points. 'ideal': a perfect counter of "
          f"{markers} single-copy families on such MAGs (mean estimate; share within the target)")
    print("| completeness | contamination | MAGs | compl. mean est. (ideal) | bias | mean abs | max abs "
          "| within 10 (ideal) | contam. mean est. (ideal) | bias | mean abs | max abs | within 5 (ideal) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for completeness in COMPLETENESS_LEVELS:
        for contamination in CONTAMINATION_LEVELS:
            group = [r for r in rows if r["true_completeness"] == completeness
                     and r["true_contamination"] == contamination]
            ce, cn = _errors(group, "completeness"), _errors(group, "contamination")
            cb, ca, cm = _stats(ce)
            nb, na, nm = _stats(cn)
            best = ideal(completeness, contamination, markers)
            print(f"| {completeness} % | {contamination} % | {len(group)} "
                  f"| {statistics.fmean(r['completeness'] for r in group):.1f} ({best['completeness']:.1f}) "
                  f"| {cb:+.1f} | {ca:.1f} | {cm:.1f} "
                  f"| {_share(ce, COMPLETENESS_TARGET)} ({100 * best['completeness_within']:.0f} %) "
                  f"| {statistics.fmean(r['contamination'] for r in group):.1f} ({best['contamination']:.1f}) "
                  f"| {nb:+.1f} | {na:.1f} | {nm:.1f} "
                  f"| {_share(cn, CONTAMINATION_TARGET)} ({100 * best['contamination_within']:.0f} %) |")
    print("\nPer host (all levels): estimate - truth, in points")
    print("| host | contaminant | compl. bias | mean abs | max abs | within 10 | contam. bias | mean abs | max abs "
          "| within 5 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for host in dict.fromkeys(r["host"] for r in rows):
        group = [r for r in rows if r["host"] == host]
        ce, cn = _errors(group, "completeness"), _errors(group, "contamination")
        cb, ca, cm = _stats(ce)
        nb, na, nm = _stats(cn)
        print(f"| {SHORT_NAMES.get(host, host)} | {SHORT_NAMES.get(group[0]['contaminant'], '')} | {cb:+.1f} "
              f"| {ca:.1f} | {cm:.1f} | {_share(ce, COMPLETENESS_TARGET)} | {nb:+.1f} | {na:.1f} | {nm:.1f} "
              f"| {_share(cn, CONTAMINATION_TARGET)} |")
    print("\nThe host's own marker proteins in the set (as in a build of a genome whose organism supplied "
          "markers), the contaminant's left out; contaminated MAGs only: contamination estimate - truth")
    print("| host | contaminant | own left out: bias | mean abs | within 5 | own in: bias | mean abs | within 5 "
          "| own in, complete + 10 %: mean est. | completeness bias, own in |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for host in dict.fromkeys(r["host"] for r in rows):
        group = [r for r in rows if r["host"] == host and r["true_contamination"] > 0]
        out = _errors(group, "contamination")
        inside = [r["own_in"]["contamination"] - r["true_contamination"] for r in group]
        top = [r["own_in"]["contamination"] for r in group
               if r["true_completeness"] == 100 and r["true_contamination"] == 10]
        compl_in = [r["own_in"]["completeness"] - r["true_completeness"] for r in rows if r["host"] == host]
        print(f"| {SHORT_NAMES.get(host, host)} | {SHORT_NAMES.get(group[0]['contaminant'], '')} "
              f"| {_stats(out)[0]:+.1f} | {_stats(out)[1]:.1f} | {_share(out, CONTAMINATION_TARGET)} "
              f"| {_stats(inside)[0]:+.1f} | {_stats(inside)[1]:.1f} | {_share(inside, CONTAMINATION_TARGET)} "
              f"| {statistics.fmean(top):.1f} | {_stats(compl_in)[0]:+.1f} |")
    ce, cn = _errors(rows, "completeness"), _errors(rows, "contamination")
    cb, ca, cm = _stats(ce)
    nb, na, nm = _stats(cn)
    ideals = [ideal(r["true_completeness"], r["true_contamination"], markers) for r in rows]
    print(f"\nOverall, {len(rows)} MAGs (completeness 50-100 %, contamination 0-10 %):")
    print(f"  completeness: bias {cb:+.1f}, mean abs error {ca:.1f}, max {cm:.1f} points; within "
          f"{COMPLETENESS_TARGET:g} points: {_share(ce, COMPLETENESS_TARGET)} (target: all; ideal counter "
          f"{100 * statistics.fmean(i['completeness_within'] for i in ideals):.0f} %)")
    print(f"  contamination: bias {nb:+.1f}, mean abs error {na:.1f}, max {nm:.1f} points; within "
          f"{CONTAMINATION_TARGET:g} points: {_share(cn, CONTAMINATION_TARGET)} (target: all; ideal counter "
          f"{100 * statistics.fmean(i['contamination_within'] for i in ideals):.0f} %)")
    clean = [r for r in rows if r["true_contamination"] == 0]
    ce = _errors(clean, "completeness")
    print(f"  without contamination ({len(clean)} MAGs): completeness mean abs error {_stats(ce)[1]:.1f}, "
          f"within {COMPLETENESS_TARGET:g}: {_share(ce, COMPLETENESS_TARGET)}")


# ---- Part B


def subset(proteins: list[Protein], percent: int, seed: str) -> list[Protein]:
    """The MAG of a protein list: a seeded `percent` % of it, in the file's order."""
    ids = set(kept((p.id for p in proteins), percent, seed))
    return [p for p in proteins if p.id in ids]


def _completeness_line(proteins: list[Protein], own: str, work: Path) -> dict[str, float]:
    """The estimate with the organism's own marker proteins left out (as in Part A)."""
    markers = marker_set_without(bundled_markers(), [own], work)
    found = estimate_completeness({p.id: p.sequence for p in proteins}, markers=markers)
    return {"completeness": found.completeness, "contamination": found.contamination}


def _estimates(result: dict[str, Any]) -> str:
    """Completeness / contamination without the organism's own markers, and as the build reported it
    (all markers, its own included)."""
    alone, build = result["estimate"], result.get("genome_completeness") or {}
    return (f"{alone['completeness']} / {alone['contamination']} % (build's: {build.get('completeness')} / "
            f"{build.get('contamination')} %)")


def part_b(data_dir: Path, work: Path, levels: list[int], ferm_levels: list[int]) -> dict[str, Any]:
    from gem_flux_mcp.data.biochem import BiochemIndex

    print(f"\n# Part B: phenotypes, complete genome vs {', '.join(f'{c} %' for c in levels)} complete "
          f"(fermentation: {', '.join(f'{c} %' for c in ferm_levels)}; proteins kept at random, seeded; "
          "no contamination)")
    cache = Path(os.environ.get("GEMFLUX_CACHE_DIR", work / "cache"))
    biochem = BiochemIndex.open(data_dir, cache)
    started = time.perf_counter()
    carveme: list[dict[str, Any]] = []
    own = {"ecol": "GCF_000005845.2", "bsub": "bsubtilis_168"}
    for organism in ("ecol", "bsub"):
        proteins, _ = run.proteome(organism)
        case, excluded = next(iter(run.SETUPS[organism].cases.items()))
        for level in [100, *levels]:
            mag = proteins if level == 100 else subset(proteins, level, f"{organism}|{level}")
            t = time.perf_counter()
            result = run.run_case(organism, f"{case}, {level} %", excluded, mag, data_dir, cache, biochem)
            result.update(level=level, proteins=len(mag), seconds=round(time.perf_counter() - t, 1),
                          estimate=_completeness_line(mag, own[organism], work))
            carveme.append(result)
            biolog, ess = result["biolog"]["plates"]["all"], result["essentiality"]["metrics"]
            print(f"  {organism} {level:>3} %: {len(mag)} proteins, estimated {_estimates(result)}; draft "
                  f"{result['draft_reactions']} reactions, gapfill +{result['gapfill_reactions_added']}, Biolog MCC "
                  f"{run._num(biolog['mcc'])}, essentiality MCC {run._num(ess['mcc'])}; {result['seconds']} s")
    carveme_s = time.perf_counter() - started
    medium = fermentation.ft_medium(data_dir)
    rows = fermentation.organisms(data_dir)
    ferm: dict[int, list[dict[str, Any]]] = {}
    started = time.perf_counter()
    for level in [100, *ferm_levels]:
        ferm[level] = []
        for row in rows:
            proteins = fermentation.read_proteome(data_dir, row)
            mag = proteins if level == 100 else subset(proteins, level, f"{row['assembly']}|{level}")
            t = time.perf_counter()
            result = fermentation.run_organism(row, medium, data_dir, cache, biochem, None, proteins=mag)
            result.update(level=level, seconds_total=round(time.perf_counter() - t, 1),
                          estimate=_completeness_line(mag, "_".join(row["assembly"].split("_")[:2]), work))
            ferm[level].append(result)
            m = fermentation.confusion([(bool(p), bool(o)) for p, o in result["calls"].values()])
            print(f"  {row['organism'][:40]:<40} {level:>3} %: {len(mag)} proteins, estimated "
                  f"{_estimates(result)}; {result['template']}, +{result['gapfill_added']} "
                  f"gapfilled, growth {result['growth']:.3f}; predicted {', '.join(result['predicted']) or '-'} "
                  f"(TP/FP/TN/FN {m['TP']}/{m['FP']}/{m['TN']}/{m['FN']}); {result['seconds_total']} s")
    ferm_s = time.perf_counter() - started
    print_part_b(carveme, ferm, ferm_levels)
    print(f"\nPart B took {carveme_s + ferm_s:.0f} s: E. coli + B. subtilis {carveme_s:.0f} s, "
          f"fermentation {ferm_s:.0f} s")
    return {"carveme": carveme, "fermentation": {str(k): v for k, v in ferm.items()}}


def _metric(m: dict[str, Any]) -> str:
    counts = "/".join(str(m[k]) for k in ("TP", "FP", "TN", "FN"))
    return f"{run._num(m['mcc'])} ({counts})"


def print_part_b(carveme: list[dict[str, Any]], ferm: dict[int, list[dict[str, Any]]], levels: list[int]) -> None:
    print("\nE. coli and B. subtilis (CarveMe's proteomes and protocol, full reference): MCC (TP/FP/TN/FN)")
    print("| organism | proteins kept | estimated completeness | draft rxns / genes | gapfill added "
          "| Biolog (all plates) | essentiality | genes scored |")
    print("|---|---|---|---|---|---|---|---|")
    for r in carveme:
        ess = r["essentiality"]["metrics"]
        print(f"| {r['organism']} | {r['level']} % ({r['proteins']}) | {r['estimate']['completeness']} % "
              f"| {r['draft_reactions']:,} / {r['draft_genes']:,} | {r['gapfill_reactions_added']} "
              f"| {_metric(r['biolog']['plates']['all'])} | {_metric(ess)} | {ess['n']} |")
    print("\nFermentation products (8 organisms x 9 products, gapseq's protocol): pooled over 72 calls")
    print("| proteins kept | mean estimated completeness | TP | FP | TN | FN | sensitivity | MCC "
          "| mean gapfill added | organisms not growing on FT |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for level in [100, *levels]:
        results = ferm[level]
        pooled = [(bool(p), bool(o)) for r in results for p, o in r["calls"].values()]
        m = fermentation.confusion(pooled)
        print(f"| {level} % | {statistics.fmean(r['estimate']['completeness'] for r in results):.1f} % "
              f"| {m['TP']} | {m['FP']} | {m['TN']} | {m['FN']} | {m['sensitivity']} | {m['mcc']} "
              f"| {statistics.fmean(r['gapfill_added'] for r in results):.0f} "
              f"| {sum(1 for r in results if not r['growth'] > 1e-6)} |")
    print("\nper organism, MCC over its 9 calls (complete -> " + " -> ".join(f"{c} %" for c in levels) + ")")
    for i, r in enumerate(ferm[100]):
        per = [fermentation.confusion([(bool(p), bool(o)) for p, o in ferm[level][i]["calls"].values()])
               for level in [100, *levels]]
        predicted = " | ".join(", ".join(ferm[level][i]["predicted"]) or "-" for level in [100, *levels])
        print(f"  {r['organism'][:45]:<45} {' -> '.join(str(m['mcc']) for m in per):<24} predicted: {predicted}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=REPLICATES, help="random draws per level (Part A)")
    parser.add_argument("--direct", type=int, default=1,
                        help="MAGs per organism also searched on their own, to check the shortcut (Part A)")
    parser.add_argument("--phenotypes", action="store_true", help="also run Part B (builds; ~7 minutes at 70 %%)")
    parser.add_argument("--no-estimation", action="store_true", help="skip Part A")
    parser.add_argument("--mag-levels", default="70", help="Part B completeness levels, percent (default 70)")
    parser.add_argument("--fermentation-levels", help="Part B's fermentation levels (default: --mag-levels)")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"])
    levels = [int(x) for x in args.mag_levels.split(",") if x.strip()]
    results: dict[str, Any] = {}
    print(f"simulated MAGs (issue 34); date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"{os.cpu_count()} CPUs; data {data_dir}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if not args.no_estimation:
            results["estimation"] = part_a(data_dir, work, args.replicates, args.direct)
        if args.phenotypes:
            ferm_levels = levels if args.fermentation_levels is None else [
                int(x) for x in args.fermentation_levels.split(",") if x.strip()]
            results["phenotypes"] = part_b(data_dir, work, levels, ferm_levels)
    if args.json:
        args.json.write_text(json.dumps(score._finite(results), indent=1))


if __name__ == "__main__":
    main()
