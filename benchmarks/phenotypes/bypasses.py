"""Bypass report: for every false-negative gene of the essentiality benchmark (essential in vivo,
predicted non-essential by the model), what keeps the model growing without it, as one class, so
that a change to the pipeline can say which false negatives it removed.

The model is scored as benchmarks/phenotypes/score.py does (the organism's essentiality medium,
objective `bio1`, essential = growth below 10 % of the wild type); each false negative is then
deleted with `gem_flux_mcp.modeling.explain.explain_deletion`, which names the reactions the
deletion closes and the route the flux takes instead (the wild type's pFBA solution against the
deletion's linear-MOMA solution: reactions whose flux appears, reverses or more than doubles; or,
when the wild type does not use the closed reactions, the reactions that make their products
instead, 'replaces').

The route's main reactions: leaving out its neutral steps (the objective, ATP maintenance,
exchanges that secrete, exchanges of currency compounds: protons, water, O2, CO2, phosphate,
ammonia, ... as explain.py lists them), the MAIN_STEPS largest by size (|flux with the deletion - flux in the
wild type|; |flux| for 'replaces'), keeping those of at least MAIN_FRACTION of the largest (all of
them for 'replaces': the makers of a by-product, glutamate say, often carry far more flux than the
maker of the product that matters). Each main reaction gets every flag that applies:

* reversed: not a boundary, and it runs against its own direction in the wild type (change
  'reverses'), or against an irreversible direction given by the template ('>' or '<' in the
  organism's ModelSEED template) or by the ModelSEED database (its `reversibility`). Running "in
  reverse" as written on a reaction both the template and the database call reversible is not a
  flag: that is only how the equation happens to be written. (An exchange that turns from
  secretion to uptake is medium uptake, not a reversed reaction.)
* gapfilled: added by gapfilling (`gemflux_sources` template_gapfill, atp_correction or
  end_product_export), or a direction opened by gapfilling (`gemflux_reversed_by` set) that it
  runs in against the template's direction.
* medium uptake: an exchange taking a (non-currency) compound up (newly, or more than twice the
  wild type's, or instead of secreting it), a transporter that gapfilling added for a medium
  compound (source medium_uptake), or a reaction that takes a non-currency medium compound from
  outside the cell.
* gene-less: no genes, not a boundary, not gapfilled.
* gene-backed: none of the above, with genes.

A gene's classes are those of its main route reactions (gene-backed ones give `alternative route
with genes`); its primary class is the first in this precedence:

  1. isozyme/paralog in the rule: the deletion closes no reaction (another gene of each rule
     keeps it open), whatever the route;
  2. reversed reaction;  3. gapfilled reaction;  4. medium uptake;  5. gene-less reaction;
  6. alternative route with genes.

For an isozyme the report also says why each of its reactions stays open, judged by the rules of
the organism's curated BiGG model in the homology reference (iML1515, iYO844) for the BiGG
reactions the reaction's evidence names (KEEPER_KINDS, first that applies): the curated rule has
the keeping enzyme as an isozyme too; the curated model does not give the gene this reaction; the
keeping enzyme is the curated enzyme of another BiGG reaction merged into the same ModelSEED
reaction; the keeping genes are subunits of the gene's own curated complex (a complex written as
OR); the keeping genes are in no curated rule of the reaction (a partner by homology only); or the
curated model has no rule for it.

Two more outcomes are reported as their own class: `essential when explained` (the explanation's
solver finds the deletion lethal: a solver disagreement at the 10 % line) and `no route found` (no
main reaction: the route holds only neutral steps, or none).

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.phenotypes.bypasses \\
        MODELS_DIR|MODEL.json [--organism ecol|bsub] [--json out.json] [--compact] [--compare old.json]

`--compare` an earlier `--json` report: which false negatives a change removed, by the class they
had, and which it added. About 2.5 min for the four models of run.py (E. coli ~1 s per gene, B.
subtilis ~1 s; the essentiality scoring ~10 s per model).

A models directory is what `benchmarks.phenotypes.run --models-dir` writes: `<organism>_reference.json`
and `<organism>_left_out.json`, each reported.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import cobra
from benchmarks.phenotypes import score

from gem_flux_mcp.modeling.explain import CURRENCY, Explanation, RouteStep, explain_deletion

ISOZYME = "isozyme/paralog in the rule"
REVERSED = "reversed reaction"
GAPFILLED = "gapfilled reaction"
MEDIUM = "medium uptake"
GENELESS = "gene-less reaction"
ALTERNATIVE = "alternative route with genes"
LETHAL = "essential when explained"
NO_ROUTE = "no route found"
PRECEDENCE = (ISOZYME, REVERSED, GAPFILLED, MEDIUM, GENELESS, ALTERNATIVE)
CLASSES = (*PRECEDENCE, LETHAL, NO_ROUTE)
SHORT = {ISOZYME: "iso", REVERSED: "rev", GAPFILLED: "gf", MEDIUM: "med", GENELESS: "nogene", ALTERNATIVE: "alt",
         LETHAL: "lethal", NO_ROUTE: "none"}
MAIN_STEPS = 5  # main route reactions at most
MAIN_FRACTION = 0.1  # a main route reaction changes by at least this fraction of the largest change
ROUTE_STEPS = 200  # route reactions asked of explain_deletion (its default lists 40)
GAPFILL_SOURCES = frozenset({"template_gapfill", "atp_correction", "end_product_export"})
TEMPLATES = {"ecol": "GramNegative", "bsub": "GramPositive"}  # as benchmarks/phenotypes/run.py builds them
CASES = {"reference": "full homology reference", "left_out": "organism's own models left out of the reference"}
CURATED = {"ecol": "iML1515", "bsub": "iYO844"}  # the organism's curated BiGG model: its rules judge an isozyme
# why a reaction of an isozyme false negative stays open, judged by the curated model's rules for
# the BiGG reactions the reaction's homology evidence names (first that applies)
CURATED_ISOZYME = "isozyme in the curated model"  # the curated rule has the keeping enzyme too
NOT_CURATED_GENE = "gene not in the curated rule"  # the curated model does not give the gene this reaction
MERGED = "enzyme of a merged BiGG reaction"  # kept open by the curated enzyme of another BiGG reaction
COMPLEX_SPLIT = "complex subunits joined by OR"  # the keeping genes are the gene's subunit partners
HOMOLOGY_ONLY = "partner by homology only"  # the keeping genes are in no curated rule of the reaction
NO_CURATED = "no curated rule"  # the curated model has no rule for the reaction's BiGG reactions
KEEPER_KINDS = (CURATED_ISOZYME, NOT_CURATED_GENE, MERGED, COMPLEX_SPLIT, HOMOLOGY_ONLY, NO_CURATED)
Enzymes = Mapping[str, list[frozenset[str]]]  # BiGG reaction id -> its enzymes (gene sets: subunits)
Details = Callable[[Iterable[str]], dict[str, dict[str, Any]]]


@dataclass
class MainStep:
    reaction_id: str
    name: str
    change: str  # appears, reverses, rises, replaces (explain.py)
    direction: str  # forward / reverse: how it runs with the deletion
    flux_wild_type: float
    flux_deleted: float
    size: float  # |change| (|flux| for 'replaces')
    origin: str  # modeling/origins.py key
    sources: str  # its gemflux_sources note
    genes: list[str]
    against: list[str]  # 'wild type' and/or the direction tables it runs against
    flags: list[str]  # REVERSED, GAPFILLED, MEDIUM, GENELESS, or ALTERNATIVE for a plain gene-backed step


@dataclass
class Bypass:
    gene: str
    reactions_closed: list[str]
    growth_ratio: float
    primary: str
    classes: list[str]  # every class present, in precedence order
    used_in_wild_type: bool = True
    rule_partners: list[str] = field(default_factory=list)  # genes of the rule branches without it (open reactions)
    # for an isozyme (nothing closed): per reaction, why it stays open (KEEPER_KINDS) and by which genes
    kept_open: dict[str, dict[str, Any]] = field(default_factory=dict)
    isozyme_kind: str = ""  # the kinds of its reactions, '+'-joined ('' when not an isozyme or not judged)
    main_route: list[MainStep] = field(default_factory=list)
    route_total: int = 0


def main_steps(model: cobra.Model, route: list[RouteStep], objective: str,
               limit: int = MAIN_STEPS, fraction: float = MAIN_FRACTION) -> list[tuple[RouteStep, float]]:
    """The route's main reactions with their size, largest first (module docstring)."""
    sized = [(s, abs(s.flux_deleted) if s.change == "replaces" else abs(s.flux_deleted - s.flux_wild_type))
             for s in route if not _neutral(model, s, objective)]
    sized.sort(key=lambda pair: (-pair[1], pair[0].reaction_id))
    if not sized:
        return []
    largest = sized[0][1]
    return [(s, size) for s, size in sized[:limit] if size >= fraction * largest or s.change == "replaces"]


def _neutral(model: cobra.Model, step: RouteStep, objective: str) -> bool:
    if step.reaction_id == objective or step.reaction_id.startswith("ATPM"):
        return True
    reaction = model.reactions.get_by_id(step.reaction_id)
    return bool(reaction.boundary) and (not _takes_up(reaction, step.flux_deleted)
                                        or all(_base(m.id) in CURRENCY for m in reaction.metabolites))


def _takes_up(reaction: cobra.Reaction, flux: float) -> bool:
    """A boundary reaction (`met <=>`) bringing its metabolite into the model at this flux."""
    return bool(sum(reaction.metabolites.values()) * flux > 0)


def _base(met_id: str) -> str:
    return re.sub(r"_[a-z]\d*$", "", met_id)


def _runs_against(table: Mapping[str, str], reaction_id: str, sign: int) -> bool:
    given = table.get(reaction_id)
    return (given == ">" and sign < 0) or (given == "<" and sign > 0)


def step_flags(model: cobra.Model, step: RouteStep, directions: Mapping[str, Mapping[str, str]],
               medium: Iterable[str]) -> tuple[list[str], list[str]]:
    """(the directions it runs against, its flags) for one main route reaction (module docstring).
    `directions`: {name of the direction table: {reaction id: '>', '<' or '='}}; `medium`: the
    compound ids (no compartment) the medium offers."""
    reaction = model.reactions.get_by_id(step.reaction_id)
    sign = 1 if step.direction == "forward" else -1
    against = [] if reaction.boundary else ["wild type"] if step.change == "reverses" else []
    if not reaction.boundary:
        against += [name for name, table in directions.items() if _runs_against(table, step.reaction_id, sign)]
    sources = set(filter(None, str(reaction.notes.get("gemflux_sources") or "").split(";")))
    opened_by_gapfill = bool(reaction.notes.get("gemflux_reversed_by")) and _runs_against(
        directions.get("template", {}), step.reaction_id, sign)
    flags = [REVERSED] if against else []
    if sources & GAPFILL_SOURCES or opened_by_gapfill:
        flags.append(GAPFILLED)
    offered = set(medium) - CURRENCY
    if reaction.boundary:
        if _takes_up(reaction, step.flux_deleted) and step.change != "replaces":
            flags.append(MEDIUM)
    elif "medium_uptake" in sources or any(
            coef * sign < 0 and met.compartment.startswith("e") and _base(met.id) in offered
            for met, coef in reaction.metabolites.items()):
        flags.append(MEDIUM)
    if not reaction.boundary and not reaction.genes and not sources & (GAPFILL_SOURCES | {"medium_uptake"}):
        flags.append(GENELESS)
    if not flags and reaction.genes:
        flags.append(ALTERNATIVE)
    return against, flags


def branches(reaction: cobra.Reaction) -> list[frozenset[str]]:
    """The reaction's rule as alternative enzymes (disjunctive normal form): gene sets."""
    body = reaction.gpr.body
    return [] if body is None else _dnf(body)


def _dnf(node: ast.AST) -> list[frozenset[str]]:
    if isinstance(node, ast.Name):
        return [frozenset({node.id})]
    if isinstance(node, ast.BoolOp):
        parts = [_dnf(value) for value in node.values]
        if isinstance(node.op, ast.Or):
            return [branch for part in parts for branch in part]
        combined = [frozenset[str]()]
        for part in parts:
            combined = [a | b for a in combined for b in part]
        return combined
    raise ValueError(f"unexpected rule element {ast.dump(node)}")


def bigg_reactions(reaction: cobra.Reaction) -> list[str]:
    """The BiGG reactions its evidence note names (homology, header functions)."""
    try:
        evidence = json.loads(str(reaction.notes.get("gemflux_evidence") or "{}"))
    except ValueError:
        return []
    found = [r for part in evidence.values() if isinstance(part, dict) for r in part.get("bigg_reactions", [])]
    return sorted(set(map(str, found)))


def keeper_kind(reaction: cobra.Reaction, gene_id: str, enzymes: Enzymes) -> tuple[str, list[str]]:
    """Why `reaction` stays open without `gene_id` (KEEPER_KINDS), and the genes that keep it."""
    keeping = [b for b in branches(reaction) if gene_id not in b]
    keepers = sorted(set().union(*keeping)) if keeping else []
    curated = {r: enzymes[r] for r in bigg_reactions(reaction) if r in enzymes}
    if not curated:
        return NO_CURATED, keepers
    mine = {r for r, sets in curated.items() if any(gene_id in e for e in sets)}
    kinds = set() if mine else {NOT_CURATED_GENE}
    for branch in keeping:
        for r, sets in curated.items():
            if any(gene_id not in e and e <= branch for e in sets):
                kinds.add(CURATED_ISOZYME if r in mine else MERGED)
        if any(gene_id in e and branch & e for sets in curated.values() for e in sets):
            kinds.add(COMPLEX_SPLIT)
    return next((k for k in KEEPER_KINDS if k in kinds), HOMOLOGY_ONLY), keepers


def curated_enzymes(model_name: str) -> dict[str, list[frozenset[str]]]:
    """{BiGG reaction: enzymes} of one curated model of the homology reference (carveme's rules)."""
    from gem_flux_mcp.data.reference import Reference

    found: dict[str, set[frozenset[str]]] = {}
    for rules in Reference.installed().rules().values():
        for rule in rules:
            if rule.model == model_name:
                found.setdefault(rule.reaction, set()).add(frozenset(s.split(".", 1)[1] for s in rule.subunits))
    return {r: sorted(v, key=sorted) for r, v in found.items()}


def classify(model: cobra.Model, gene_id: str, objective: str,
             directions: Mapping[str, Mapping[str, str]] | None = None, medium: Iterable[str] = (),
             details: Details | None = None, enzymes: Enzymes | None = None) -> Bypass:
    """Explain the deletion of `gene_id` on `model` as it is (medium and objective applied) and
    classify its bypass (module docstring). `enzymes`: the curated model's rules, to say why an
    isozyme's reactions stay open."""
    found: Explanation = explain_deletion(model, gene_id, "genes", details=details, max_steps=ROUTE_STEPS)
    gene = model.genes.get_by_id(gene_id)
    partners = sorted({g for r in gene.reactions for b in branches(r) if gene_id not in b for g in b})
    result = Bypass(gene_id, found.reactions_closed, round(found.growth_ratio, 4), NO_ROUTE, [],
                    used_in_wild_type=found.used_in_wild_type, rule_partners=partners, route_total=found.route_total)
    if not found.reactions_closed and enzymes is not None:
        for reaction in sorted(gene.reactions, key=lambda r: r.id):
            kind, keepers = keeper_kind(reaction, gene_id, enzymes)
            result.kept_open[reaction.id] = {"kind": kind, "by": keepers, "bigg": bigg_reactions(reaction)}
        kinds = {k["kind"] for k in result.kept_open.values()}
        result.isozyme_kind = "+".join(k for k in KEEPER_KINDS if k in kinds)
    if found.essential:
        result.primary, result.classes = LETHAL, [LETHAL]
        return result
    offered = list(medium)
    for step, size in main_steps(model, found.route, objective):
        against, flags = step_flags(model, step, directions or {}, offered)
        result.main_route.append(MainStep(
            step.reaction_id, step.name, step.change, step.direction, step.flux_wild_type, step.flux_deleted,
            round(size, 6), step.origin, str(model.reactions.get_by_id(step.reaction_id).notes.get(
                "gemflux_sources") or ""), step.genes, against, flags))
    present = {f for s in result.main_route for f in s.flags}
    if not found.reactions_closed:
        present.add(ISOZYME)
    result.classes = [c for c in PRECEDENCE if c in present]
    result.primary = result.classes[0] if result.classes else NO_ROUTE
    if not result.classes:
        result.classes = [NO_ROUTE]
    return result


# ---- a saved benchmark model ----------------------------------------------------------------------


def template_directions(data_dir: Path, template: str, model: cobra.Model) -> dict[str, str]:
    """{model reaction id (rxn00001_c0): the template's direction of rxn00001_c}."""
    raw = json.loads((data_dir / "templates" / f"{template}.json").read_text())
    given = {str(r["id"]): str(r["direction"]) for r in raw["reactions"]}
    return {r.id: given[r.id[:-1]] for r in model.reactions if r.id[:-1] in given}


def database_directions(details: Details, model: cobra.Model) -> dict[str, str]:
    """{model reaction id: the ModelSEED database's reversibility of its rxn id}."""
    base = {r.id: r.id.split("_")[0] for r in model.reactions if r.id.startswith("rxn")}
    known = details(sorted(set(base.values())))
    return {rid: known[b]["reversibility"] for rid, b in base.items() if known.get(b, {}).get("reversibility")}


def report_model(path: Path, organism: str, data_dir: Path, details: Details, template: str | None = None,
                 processes: int = 1, max_genes: int | None = None, enzymes: Enzymes | None = None) -> dict[str, Any]:
    """Score the model's essentiality as score.py does, then classify every false negative."""
    info = score.organism_info(organism)
    model = score.load_model(path)
    started = time.perf_counter()
    scored = score.score_essentiality(model, "modelseed", processes=processes, organism=organism)
    score_s = time.perf_counter() - started
    false_negatives = [c["gene"] for c in scored["calls"] if c["observed"] and not c["predicted"]]
    template = template or TEMPLATES[organism]
    directions = {"template": template_directions(data_dir, template, model),
                  "database": database_directions(details, model)}
    medium = score.load_medium(info.essentiality_medium, "modelseed")
    bypasses = []
    started = time.perf_counter()
    with model:
        score.apply_medium(model, medium)  # score_essentiality's `with` has undone it
        for gene_id in false_negatives[:max_genes]:
            bypasses.append(classify(model, gene_id, "bio1", directions, medium, details, enzymes))
    explain_s = time.perf_counter() - started
    return {"model": str(path), "organism": organism, "medium": info.essentiality_medium, "template": template,
            "curated_model": CURATED[organism] if enzymes is not None else None,
            "metrics": scored["metrics"], "wild_type_growth": scored["wild_type_growth"],
            "false_negatives": len(false_negatives), "explained": len(bypasses),
            "primary_counts": dict(Counter(b.primary for b in bypasses).most_common()),
            "class_counts": dict(Counter(c for b in bypasses for c in b.classes).most_common()),
            "isozyme_kinds": dict(Counter(b.isozyme_kind for b in bypasses if b.isozyme_kind).most_common()),
            "reversed_against": dict(Counter(_against_key(b) for b in bypasses if b.primary == REVERSED).most_common()),
            "seconds": {"score": round(score_s, 1), "explain": round(explain_s, 1)},
            "bypasses": [asdict(b) for b in bypasses]}


def _against_key(bypass: Bypass) -> str:
    """What a reversed-reaction bypass runs against: 'wild type only', or the direction tables."""
    tables = sorted({a for s in bypass.main_route if REVERSED in s.flags for a in s.against} - {"wild type"})
    return "+".join(tables) if tables else "wild type only"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _step_text(step: dict[str, Any]) -> str:
    arrow = "<" if step["direction"] == "reverse" else ">"
    against = f" vs {'+'.join(step['against'])}" if step["against"] else ""
    return f"{step['reaction_id']} {_cut(step['name'], 28)} {arrow} {step['change']} {step['origin']}{against}"


def print_report(report: dict[str, Any]) -> None:
    m = report["metrics"]
    print(f"\n## {report['organism']} {Path(report['model']).stem} on {report['medium']}: essentiality "
          f"TP {m['TP']} FP {m['FP']} TN {m['TN']} FN {m['FN']}; {report['explained']} false negatives explained "
          f"(score {report['seconds']['score']} s, explain {report['seconds']['explain']} s)")
    print("primary class counts: " + ", ".join(f"{c} {n}" for c, n in report["primary_counts"].items()))
    print("genes with the class (any): " + ", ".join(f"{c} {n}" for c, n in report["class_counts"].items()))
    if report["isozyme_kinds"]:
        print(f"isozymes, why their reactions stay open (curated {report['curated_model']}): "
              + ", ".join(f"{c} {n}" for c, n in report["isozyme_kinds"].items()))
    if report["reversed_against"]:
        print("reversed reactions, against: " + ", ".join(f"{c} {n}" for c, n in report["reversed_against"].items()))
    print("\n| gene | closed | primary | all | main route (top 3: id name dir change origin) |\n|---|---|---|---|---|")
    order = {c: i for i, c in enumerate(CLASSES)}
    for b in sorted(report["bypasses"], key=lambda b: (order[b["primary"]], b["gene"])):
        closed = ", ".join(b["reactions_closed"][:3]) + (" …" if len(b["reactions_closed"]) > 3 else "")
        if not b["reactions_closed"]:
            keepers = ", ".join(b["rule_partners"][:3]) + (" …" if len(b["rule_partners"]) > 3 else "")
            closed = f"none (kept by {keepers}" + (f": {b['isozyme_kind']}" if b["isozyme_kind"] else "") + ")"
        elif not b["used_in_wild_type"]:
            closed += " (unused in wild type)"
        route = "; ".join(_step_text(s) for s in b["main_route"][:3])
        print(f"| {b['gene']} | {closed} | {b['primary']} | {','.join(SHORT[c] for c in b['classes'])} | {route} |")


def print_compact(report: dict[str, Any]) -> None:
    """The false negatives in a few lines per class: isozymes by why they stay open, the others
    with the main route reaction that gives the class (for a history entry)."""
    print(f"\n{report['organism']} {Path(report['model']).stem}: {report['explained']} false negatives; "
          + ", ".join(f"{c} {n}" for c, n in report["primary_counts"].items()))
    by_class: dict[str, list[dict[str, Any]]] = {}
    for b in report["bypasses"]:
        by_class.setdefault(b["primary"], []).append(b)
    for cls in CLASSES:
        found = sorted(by_class.get(cls, []), key=lambda b: b["gene"])
        if not found:
            continue
        if cls == ISOZYME:
            kinds: dict[str, list[str]] = {}
            for b in found:
                kinds.setdefault(b["isozyme_kind"] or "not judged", []).append(b["gene"])
            print(f"- {cls} ({len(found)}): " + "; ".join(f"{k}: {' '.join(g)}" for k, g in kinds.items()))
            continue
        items = []
        for b in found:
            # the main route reaction that gives the class, else the largest
            first = next((s for s in b["main_route"] if cls in s["flags"]), (b["main_route"] or [None])[0])
            via = f" via {_step_text(first)}" if first else ""
            unused = " (unused in wild type)" if not b["used_in_wild_type"] else ""
            items.append(f"{b['gene']}{unused}{via}")
        print(f"- {cls} ({len(found)}): " + "; ".join(items))


def compare(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    """What a change did to the false negatives, model by model (matched by file name): those it
    removed, with the class they had, and those it added."""
    lines = []
    before = {Path(r["model"]).name: r for r in old}
    for report in new:
        name = Path(report["model"]).name
        if name not in before:
            continue
        was = {b["gene"]: b for b in before[name]["bypasses"]}
        now = {b["gene"]: b for b in report["bypasses"]}
        gone, added = sorted(set(was) - set(now)), sorted(set(now) - set(was))
        removed = Counter(was[g]["primary"] for g in gone)
        lines.append(f"{name}: false negatives {len(was)} -> {len(now)}; removed "
                     + (", ".join(f"{c} {n}" for c, n in removed.most_common()) or "none")
                     + f" ({' '.join(gone) or '-'}); new: {' '.join(added) or '-'}")
        moved = Counter(f"{was[g]['primary']} -> {now[g]['primary']}" for g in set(was) & set(now)
                        if was[g]["primary"] != now[g]["primary"])
        if moved:
            lines.append("  class changed: " + ", ".join(f"{c} {n}" for c, n in moved.most_common()))
    return lines


def _inputs(target: Path, organism: str | None) -> list[tuple[Path, str]]:
    if target.is_dir():
        found = [(target / f"{o}_{case}.json", o) for o in score.ORGANISMS for case in CASES
                 if (target / f"{o}_{case}.json").is_file()]
        return [(p, o) for p, o in found if organism is None or o == organism]
    prefix = target.name.split("_", 1)[0]
    return [(target, organism or (prefix if prefix in score.ORGANISMS else "ecol"))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="a saved model (COBRApy JSON or SBML) or a run.py --models-dir")
    parser.add_argument("--organism", choices=sorted(score.ORGANISMS),
                        help="default: from the file name (ecol_..., bsub_...), else ecol")
    parser.add_argument("--template", help="the template whose directions count (default: run.py's for the organism)")
    parser.add_argument("--json", type=Path, help="write every report, with every main route reaction, here")
    parser.add_argument("--processes", type=int, default=1, help="for the essentiality scoring")
    parser.add_argument("--max-genes", type=int, help="explain only the first N false negatives (a quick look)")
    parser.add_argument("--compact", action="store_true", help="a few lines per class instead of the gene table")
    parser.add_argument("--compare", type=Path, help="an earlier --json report: say which false negatives went")
    args = parser.parse_args(argv)
    from gem_flux_mcp.config import Settings
    from gem_flux_mcp.data.biochem import BiochemIndex

    settings = Settings.resolve()
    biochem = BiochemIndex.open(settings.data_dir, settings.cache_dir)
    inputs = _inputs(args.model, args.organism)
    if not inputs:
        parser.error(f"no <organism>_<case>.json model in {args.model}")
    reports = []
    enzymes = {o: curated_enzymes(CURATED[o]) for o in dict.fromkeys(o for _, o in inputs)}
    for path, organism in inputs:
        report = report_model(path, organism, settings.data_dir, biochem.reaction_details, args.template,
                              args.processes, args.max_genes, enzymes[organism])
        (print_compact if args.compact else print_report)(report)
        reports.append(report)
    if args.compare:
        print("\n" + "\n".join(compare(json.loads(args.compare.read_text()), reports)))
    if args.json:
        args.json.write_text(json.dumps(score._finite(reports), indent=1))


if __name__ == "__main__":
    main()
