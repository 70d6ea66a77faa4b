"""What evidence-weighted catabolic completion (gapseq's last gapfilling step) would do to the Biolog
scores: for every Biolog well a gapfilled benchmark model does not grow in, the cheapest template
reactions to add for growth there (stage 2 with the model's own ATP tests), and the genome's best
homology evidence for each addition: the highest identity of any hit, not only best hits, on a
reference gene whose BiGG reaction maps to it.

A completion stage that adds a well's reactions only when every one has evidence of at least T %
turns that well into a predicted grower; the table shows the confusion counts and MCC that
would give, per T. Wells whose completion needs a reaction without any evidence cannot be reached
by evidence at all.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.phenotypes.run --models-dir MODELS
    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.phenotypes.completion MODELS \\
        [--organisms bsub] [--cases reference,left_out]

Reads the models `run.py` saved (`<organism>_<case>.json`); takes ~2-4 min per model on 2 cores.
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.phenotypes import run as bench
from benchmarks.phenotypes import score

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.reference import Reference
from gem_flux_mcp.data.templates import load_template
from gem_flux_mcp.errors import GemFluxError
from gem_flux_mcp.modeling import align, gapfill
from gem_flux_mcp.modeling.bigg_match import StoichiometricAliases, bound_carrier_pairs, template_reaction_id

THRESHOLDS = (25, 30, 35, 40, 50, 60)
CASES = {"reference": 0, "left_out": 1}  # run.py's model file suffix -> index into Setup.cases


def any_hit_evidence(organism: str, excluded: tuple[str, ...], template: Any, biochem: BiochemIndex,
                     cache: Path) -> dict[str, float]:
    """Template reaction id (e.g. rxn00148_c) -> highest identity of any hit of the proteome on a
    reference gene with that reaction."""
    reference = Reference.installed(excluded)
    stoichiometry = reference.reaction_stoichiometry(cache)
    rules = reference.rules()
    aliases = StoichiometricAliases(biochem, stoichiometry, template, bound_carrier_pairs(stoichiometry, rules))
    proteins, _ = bench.proteome(organism)
    hits = align.search({p.id: p.sequence for p in proteins}, reference.filtered_fasta(cache),
                        align.choose_aligner(), index_dir=cache / "reference")
    best: dict[str, float] = {}  # reference gene -> best identity
    for hit in hits:
        if hit.target in rules:
            best[hit.target] = max(best.get(hit.target, 0.0), hit.identity)
    to_modelseed = aliases.reaction_ids_for_external("BiGG", {r.reaction for g in best for r in rules[g]})
    evidence: dict[str, float] = {}
    for gene, identity in best.items():
        for rule in rules[gene]:
            for rid in to_modelseed.get(rule.reaction, ()):
                tid = template_reaction_id(rid)
                evidence[tid] = max(evidence.get(tid, 0.0), identity)
    return evidence


def completions(model_path: Path, organism: str, template_name: str, biochem: BiochemIndex,
                data_dir: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per well the model does not grow in, the additions that make it grow (None: none exist);
    and the model's own Biolog scores per plate."""
    model = score.load_model(model_path)
    info = score.organism_info(organism)
    scored = score.score_biolog(model, "modelseed", organism)
    calls = [c for c in scored["calls"] if not c["predicted"]]
    base = {name: (lower, 1000.0) for name, lower in score.load_medium(info.biolog_medium, "modelseed").items()}
    # the model's ATP tests, computed once (the model is gapfilled: stage 1 changes nothing more)
    atp = gapfill.gapfill_from_data(model, base, gapfill.GapfillOptions(mode="atp_only"),
                                    template_name=template_name, data_dir=data_dir, biochem=biochem).atp
    options = gapfill.GapfillOptions(target_growth=score.MIN_GROWTH, medium_uptake=False, time_limit_s=120)
    found = []
    for call in calls:
        mapped, _ = score.to_namespace([call["bigg_id"]], "modelseed")
        compound = call["compound"] or mapped.get(call["bigg_id"], "")
        well = score.load_medium(info.biolog_medium, "modelseed", frozenset(score.PLATES[call["plate"]]))
        additions: list[tuple[str, int]] | None = None
        if compound:
            well[compound] = -score.UPTAKE
            try:
                result = gapfill.gapfill_from_data(model, {k: (v, 1000.0) for k, v in well.items()}, options,
                                                   template_name=template_name, data_dir=data_dir,
                                                   biochem=biochem, previous_atp=atp)
                # new template reactions only: a model reaction opened the other way has the
                # model's own evidence (stage 1 of this re-run sets Core directions again, so the
                # directions the model's own gapfill opened come back here)
                additions = result.genome_scale.added if result.genome_scale else []
            except GemFluxError:  # no set of template reactions reaches growth in this well
                additions = None
        found.append({**call, "additions": additions})
    return found, scored["plates"]


def weakest(additions: list[tuple[str, int]] | None, evidence: dict[str, float]) -> float | None:
    """The lowest evidence among a well's additions (None: no completion exists)."""
    if additions is None:
        return None
    return min((evidence.get(reaction[:-1], 0.0) for reaction, _ in additions), default=100.0)


def mcc(tp: int, fp: int, tn: int, fn: int) -> float:
    denominator = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return (tp * tn - fp * fn) / denominator if denominator else float("nan")


def report(label: str, wells: list[dict[str, Any]], plates: dict[str, Any], evidence: dict[str, float],
           names: dict[str, str]) -> None:
    counts = plates["all"]
    print(f"\n## {label}: {counts['TP']}/{counts['FP']}/{counts['TN']}/{counts['FN']} (TP/FP/TN/FN), "
          f"MCC {mcc(counts['TP'], counts['FP'], counts['TN'], counts['FN']):.3f}; {len(wells)} wells without growth")
    for well in wells:
        low = weakest(well["additions"], evidence)
        steps = "no completion" if well["additions"] is None else " | ".join(
            f"{rid}{'>' if d > 0 else '<'} {names.get(rid[:-1], '?')[:32]} "
            f"({evidence[rid[:-1]]:.0f} %)" if rid[:-1] in evidence else
            f"{rid}{'>' if d > 0 else '<'} {names.get(rid[:-1], '?')[:32]} (none)" for rid, d in well["additions"])
        print(f"  {well['plate']:<10} {well['bigg_id']:<10} {well['call']:<3} weakest "
              f"{'-' if low is None else f'{low:.0f}'}: {steps}")
    positives = [w for w in wells if w["observed"]]
    unreachable = [w for w in positives if (weakest(w["additions"], evidence) or 0.0) < 1.0]
    print(f"  growing wells (FN) whose completion needs a reaction without any evidence, or has none: "
          f"{len(unreachable)} of {len(positives)}")
    print(f"  {'T %':>5} {'TP':>4} {'FP':>4} {'TN':>4} {'FN':>4}    MCC   accuracy")
    for threshold in THRESHOLDS:
        tp, fp, tn, fn = counts["TP"], counts["FP"], counts["TN"], counts["FN"]
        for well in wells:
            low = weakest(well["additions"], evidence)
            if low is not None and low >= threshold:
                tp, fn, fp, tn = (tp + 1, fn - 1, fp, tn) if well["observed"] else (tp, fn, fp + 1, tn - 1)
        print(f"  {threshold:>5} {tp:>4} {fp:>4} {tn:>4} {fn:>4}  {mcc(tp, fp, tn, fn):6.3f}  "
              f"{(tp + tn) / (tp + fp + tn + fn):6.3f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models_dir", type=Path, help="the --models-dir of a run.py run")
    parser.add_argument("--organisms", default="bsub", help="comma-separated: ecol, bsub (default bsub)")
    parser.add_argument("--cases", default="reference,left_out", help="comma-separated: reference, left_out")
    args = parser.parse_args(argv)
    data_dir = Path(os.environ["GEMFLUX_DATA_DIR"])
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        biochem = BiochemIndex.open(data_dir, cache)
        for organism in [o.strip() for o in args.organisms.split(",") if o.strip()]:
            setup = bench.SETUPS[organism]
            template = load_template(data_dir, setup.template)
            names = {r.id: r.name for r in template.reactions}
            for slug in [c.strip() for c in args.cases.split(",") if c.strip()]:
                case = list(setup.cases)[CASES[slug]]
                path = args.models_dir / f"{organism}_{slug}.json"
                evidence = any_hit_evidence(organism, setup.cases[case], template, biochem, cache)
                wells, plates = completions(path, organism, setup.template, biochem, data_dir)
                report(f"{organism}, {case}", wells, plates, evidence, names)


if __name__ == "__main__":
    main()
