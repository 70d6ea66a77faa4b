"""Offline functional annotation of proteins for draft reconstruction.

Three combinable sources, each reported per reaction:
- `fasta_header`: product names already in the FASTA headers (RefSeq, Prokka, Bakta) matched to
  the template's SEED role names (normalised; EC numbers as a fallback);
- `homology`: best hits against the BiGG reference proteins, whose gene-reaction rules map to
  ModelSEED template reactions through the BiGG aliases of reactions.tsv;
- `rast`: role names from the RAST web service (opt-in, see modeling/rast.py).
"""

from __future__ import annotations

import ast
import re
import time
from collections import defaultdict
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..data.reference import Reference
from . import align
from .bigg_match import OUTSIDE, inside_id, template_reaction_id
from .completeness import GenomeCompleteness, MarkerSet, bundled_markers, count_markers, reference_with_markers

MIN_IDENTITY = 40.0  # percent; below this, a best hit says little about the reaction (ALIGNERS.md)
WEAK_MIN_IDENTITY = 25.0  # hits from here up to MIN_IDENTITY are kept as weak evidence for gapfilling
NEAR_BEST = 0.9  # a hit within this fraction of a protein's best bit score is "near best"
WEAK_EVIDENCE_NOTE = "gemflux_weak_evidence"  # model note: {reaction id: best weak hit}


# ------------------------------------------------------------------ header product names → roles

_EC_IN_TEXT = re.compile(r"\bEC[: ]?(\d+\.\d+\.\d+\.\d+)\b")
_EC_PARENS = re.compile(r"\((?:EC|TC)[^)]*\)")
_NON_WORD = re.compile(r"[\W_]+")
_ISOZYME_SUFFIX = re.compile(r"\s+(?:\d{1,2}|[A-Z]|I{1,3}|IV|V|VI{1,3})$")
# "pantothenate kinase CoaA", "chromosome replication initiator DnaA": NCBI names end in the gene
# symbol, SEED role names do not
_GENE_SYMBOL_SUFFIX = re.compile(r"\s+(?:[A-Z][a-z]{2}|[a-z]{3})[A-Z]\d?$")
_HEDGE_PREFIX = re.compile(r"^(?:putative|probable|predicted|possible)\s+", re.IGNORECASE)
_SPLIT_FUNCTIONS = re.compile(r"\s*;\s+|\s+/\s+|\s+@\s+")
_BIFUNCTIONAL = re.compile(r"^bifunctional\s+(\S.*?)/(\S.*)$", re.IGNORECASE)


def bifunctional_parts(function: str) -> list[str]:
    """NCBI names a two-function protein "bifunctional A/B" ("... synthase/GTP cyclohydrolase
    II"), often with the last words shared ("bifunctional acetaldehyde-CoA/alcohol dehydrogenase":
    acetaldehyde-CoA dehydrogenase and alcohol dehydrogenase): the names each function may have."""
    match = _BIFUNCTIONAL.match(function.strip())
    if not match:
        return []
    first, second = match.group(1).strip(), match.group(2).strip()
    shared = second.split(" ", 1)[1] if " " in second else ""
    return [first, second, *([f"{first} {shared}"] if shared and " " not in first else [])]


def normalize_role(name: str) -> str:
    """Role key: EC/TC parentheses removed, lower case, only word characters."""
    return _NON_WORD.sub("", _EC_PARENS.sub("", name).lower())


@dataclass(frozen=True)
class RoleMatch:
    role_id: str
    role_name: str
    method: str  # "name", "relaxed_name" or "ec"
    ec: str | None = None


class RoleMatcher:
    """Finds template roles for a function name: whole name, then each part of a multi-function
    name ("A / B", "A; B", NCBI's "bifunctional A/B"), then, only when no name matched, EC numbers."""

    def __init__(self, roles: Iterable[tuple[str, str]]) -> None:
        self.by_name: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.by_ec: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for role_id, name in roles:
            key = normalize_role(name)
            if key:
                self.by_name[key].append((role_id, name))
            ecs = set(_EC_IN_TEXT.findall(name))
            if len(ecs) == 1:  # roles naming several ECs are multi-functional: too broad for EC matching
                self.by_ec[ecs.pop()].append((role_id, name))

    def match(self, function: str) -> list[RoleMatch]:
        found: dict[str, RoleMatch] = {}
        parts = [function, *[p for p in _SPLIT_FUNCTIONS.split(function) if p != function],
                 *bifunctional_parts(function)]
        for part in parts:
            for role_id, name in self.by_name.get(normalize_role(part), []):
                found.setdefault(role_id, RoleMatch(role_id, name, "name"))
        if not found:
            # "6-phosphofructokinase 1", "putative citrate synthase", "… kinase CoaA": isozyme
            # numbers, hedges and gene symbols are not part of SEED role names
            for part in parts:
                relaxed = _ISOZYME_SUFFIX.sub("", _GENE_SYMBOL_SUFFIX.sub("", _HEDGE_PREFIX.sub("", part.strip())))
                for role_id, name in self.by_name.get(normalize_role(relaxed), []):
                    found.setdefault(role_id, RoleMatch(role_id, name, "relaxed_name"))
        if not found:
            for ec in _EC_IN_TEXT.findall(function):
                for role_id, name in self.by_ec.get(ec, []):
                    found.setdefault(role_id, RoleMatch(role_id, name, "ec", ec))
        return list(found.values())


def roles_from_functions(functions: dict[str, list[str]], matcher: RoleMatcher) -> dict[str, list[RoleMatch]]:
    """gene → matched roles, for gene → function names (from headers or RAST)."""
    result: dict[str, list[RoleMatch]] = {}
    for gene, names in functions.items():
        matches: dict[str, RoleMatch] = {}
        for name in names:
            for m in matcher.match(name):
                matches.setdefault(m.role_id, m)
        if matches:
            result[gene] = list(matches.values())
    return result


# ------------------------------------------------------------------------------------ homology


class ReactionAliasSource(Protocol):
    def reaction_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, set[str]]: ...


@dataclass
class HomologyEvidence:
    """Why homology supports one template reaction."""

    complexes: set[frozenset[frozenset[str]]] = field(default_factory=set)  # OR of AND of (OR genes)
    best_query: str = ""
    best_target: str = ""
    best_identity: float = 0.0
    bigg_reactions: set[str] = field(default_factory=set)


def gpr_string(complexes: Iterable[frozenset[frozenset[str]]]) -> str:
    """GPR text for alternative enzymes, each a set of subunits, each a set of genes (isozymes).

    One-subunit enzymes merge into one list of alternatives, so the same gene found by two
    sources appears once: {a} or {a, b} gives "a or b". An enzyme whose subunits are all part of
    a larger known complex is that complex with a subunit left unannotated (a reference rule
    whose other subunit had no hit), not an enzyme of its own: it is dropped, so "a or (a and b)"
    becomes "(a and b)" and b stays essential.
    """
    complexes = [frozenset(s for s in cpx if s) for cpx in complexes]
    complexes = [cpx for cpx in complexes if cpx and not any(
        len(other) > len(cpx) and all(any(sub <= part for part in other) for sub in cpx) for other in complexes)]
    singles: set[str] = set()
    multi: set[frozenset[frozenset[str]]] = set()
    for cpx in complexes:
        subunits = [s for s in cpx if s]
        if len(subunits) == 1:
            singles |= subunits[0]
        elif subunits:
            multi.add(frozenset(subunits))
    alternatives = sorted(singles)
    for cpx in sorted(multi, key=lambda c: sorted(sorted(s) for s in c)):
        parts = []
        for genes in sorted(cpx, key=sorted):
            ordered = sorted(genes)
            parts.append(ordered[0] if len(ordered) == 1 else "(" + " or ".join(ordered) + ")")
        alternatives.append("(" + " and ".join(parts) + ")")
    return " or ".join(alternatives)


def ordered_rule(gpr: Any) -> str:
    """A COBRApy gene rule (`GPR`) as text with the terms of each and/or in sorted order, its
    structure kept: the same rule reads the same in every run (ModelSEEDpy writes the rules it
    builds from sets, so their order follows Python's per-process string hashing)."""

    def render(node: Any, top: bool) -> str:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.BoolOp):
            joiner = " and " if isinstance(node.op, ast.And) else " or "
            text = joiner.join(sorted(render(value, False) for value in node.values))
            return text if top else f"({text})"
        return ast.unparse(node)

    return "" if gpr is None or gpr.body is None else render(gpr.body, True)


@dataclass
class HomologyResult:
    reactions: dict[str, HomologyEvidence]  # template reaction id (e.g. rxn00148_c) → evidence
    aligner: str
    queries_with_hits: int
    queries_assigned: int  # best hit ≥ MIN_IDENTITY on a reference gene with reactions
    excluded_models: tuple[str, ...]
    seconds_aligning: float = 0.0
    # template reaction id -> best hit below MIN_IDENTITY: not enough to add the reaction, but
    # makes it cheaper for gapfilling
    weak: dict[str, dict[str, Any]] = field(default_factory=dict)
    # universal single-copy markers found in the same search (modeling/completeness.py)
    completeness: GenomeCompleteness | None = None
    # BiGG reaction id -> evidence, for the BiGG reactions of hit genes that land on no template
    # reaction (database_transport.py adds the database's transporters among them)
    unmatched: dict[str, HomologyEvidence] = field(default_factory=dict)


def best_hits(hits: Iterable[align.Hit], fraction: float = 0.999) -> dict[str, list[align.Hit]]:
    """Per query, the hits tied for the best bit score (identical proteins in several models), or
    within `fraction` of it (`align.NearBest`'s selection), queries in the order of `hits`."""
    items = list(hits)
    result: dict[str, list[align.Hit]] = {hit.query: [] for hit in items}
    for hit in align.NearBest(fraction).keeps(items):
        result[hit.query].append(hit)
    return result


def homology_reactions(
    proteins: dict[str, str],
    reference: Reference,
    aliases: ReactionAliasSource,
    template_reaction_ids: set[str],
    cache_dir: Path,
    aligner: align.Aligner | None = None,
    min_identity: float = MIN_IDENTITY,
    threads: int | None = None,
    boundary: set[str] | None = None,
    markers: MarkerSet | None = None,
) -> HomologyResult:
    """Template reactions supported by the BiGG reactions of each protein's best hits. Near-best
    hits (NEAR_BEST) add only reactions at the cell's boundary (`boundary`: template reactions
    with an outside compound, and outside copies): a protein whose best hit is in a model that
    runs its enzyme inside the cell, or has no transporter for it, may be the close homolog of a
    transporter or an outside enzyme of another model.

    With `markers`, their proteins are searched in the same run (one search, one index) and
    counted apart: a marker protein is never a homology hit."""
    aligner = aligner or align.choose_aligner()
    started = time.perf_counter()
    searched = reference.filtered_fasta(cache_dir)
    # MMseqs2 keeps up to 300 targets per protein: the markers ride on the reference's search. DIAMOND
    # keeps 20, which a protein's BiGG homologs can fill: the markers get a search of their own.
    together = markers is not None and aligner.name == "mmseqs"
    if together and markers is not None:
        searched = reference_with_markers(searched, markers, _index_dir(cache_dir))
    # only each protein's near-best hits are used (best_hits below; the markers' best apart)
    kept = align.NearBest(NEAR_BEST, frozenset(markers.proteins) if together and markers is not None else frozenset())
    hits = align.search(proteins, searched, aligner, threads, index_dir=_index_dir(cache_dir), near_best=kept)
    completeness = None
    if markers is not None:
        marker_hits = [h for h in hits if h.target in markers.proteins] if together else align.search(
            proteins, markers.fasta, aligner, threads)
        completeness = count_markers(marker_hits, markers, proteins)
        hits = [h for h in hits if h.target not in markers.proteins]
    aligned_seconds = time.perf_counter() - started
    rules = reference.rules()
    best = best_hits(hits)

    # reference gene → query genes whose best hit it is
    assigned: dict[str, set[str]] = defaultdict(set)
    best_of: dict[str, align.Hit] = {}
    hit_on: dict[tuple[str, str], align.Hit] = {}  # (query, reference gene) → the hit that assigns it
    for query, tops in best.items():
        for hit in tops:
            if hit.identity >= min_identity and hit.target in rules:
                assigned[hit.target].add(query)
                hit_on[(query, hit.target)] = hit
                if query not in best_of or hit.identity > best_of[query].identity:
                    best_of[query] = hit

    near: dict[str, set[str]] = defaultdict(set)  # reference gene → queries hitting it near best
    near_queries: set[str] = set()
    if boundary is not None:
        for query, items in best_hits(hits, NEAR_BEST).items():
            for hit in items:
                if hit.identity >= min_identity and hit.target in rules and query not in assigned.get(hit.target, ()):
                    near[hit.target].add(query)
                    hit_on[(query, hit.target)] = hit
                    near_queries.add(query)
    both = {t: assigned.get(t, set()) | near.get(t, set()) for t in set(assigned) | set(near)}

    bigg_ids = {rule.reaction for target in both for rule in rules[target]}
    to_modelseed = aliases.reaction_ids_for_external("BiGG", bigg_ids)
    reactions: dict[str, HomologyEvidence] = {}
    unmatched: dict[str, HomologyEvidence] = {}
    seen_rules: set[tuple[str, str, tuple[str, ...]]] = set()
    # best hits first; a rule reached only through near-best hits brings boundary reactions only
    for target, only_near in [*((t, False) for t in assigned), *((t, True) for t in near if t not in assigned)]:
        for rule in rules[target]:
            key = (rule.model, rule.reaction, rule.subunits)
            if key in seen_rules:
                continue
            seen_rules.add(key)
            template_ids = [tid for tid in map(template_reaction_id, sorted(to_modelseed.get(rule.reaction, ())))
                            if inside_id(tid) in template_reaction_ids
                            and (not only_near or tid.endswith(OUTSIDE) or tid in (boundary or set()))]
            # a complex reached through a best hit: a subunit no best hit covers takes the genome's
            # near-best hits on it, so one enzyme is not split into "a or (b and c)"
            genes_of = both if only_near else {s: assigned.get(s) or near.get(s, set()) for s in rule.subunits}
            covered = frozenset(frozenset(genes_of[s]) for s in rule.subunits if genes_of.get(s))
            # genes in order, so of equally good hits the same one is named in every run
            hits_here = [hit_on[(gene, s)] for s in rule.subunits for gene in sorted(genes_of.get(s, ()))]
            targets = ([reactions.setdefault(tid, HomologyEvidence()) for tid in template_ids] if template_ids
                       else [unmatched.setdefault(rule.reaction, HomologyEvidence())])
            for evidence in targets:
                evidence.complexes.add(covered)
                evidence.bigg_reactions.add(rule.reaction)
                for hit in hits_here:
                    if hit.identity > evidence.best_identity:
                        evidence.best_query, evidence.best_target = hit.query, hit.target
                        evidence.best_identity = hit.identity
    return HomologyResult(
        reactions=reactions, aligner=aligner.describe(), queries_with_hits=len(best),
        queries_assigned=len(best_of), excluded_models=reference.excluded, seconds_aligning=aligned_seconds,
        weak=_weak_support(best, best_of.keys() | near_queries, rules, aliases, template_ids=template_reaction_ids,
                           min_identity=min_identity),
        completeness=completeness, unmatched=unmatched,
    )


def _index_dir(cache_dir: Path) -> Path:
    return cache_dir / "reference"


def prepare_reference_index(reference: Reference, cache_dir: Path, aligner: align.Aligner | None = None,
                            threads: int | None = None, markers: MarkerSet | None = None) -> Path | None:
    """Build the aligner's index of what builds search now (MMseqs2; DIAMOND needs none): the
    reference with `markers` appended, as homology_reactions searches it (the bundled markers
    unless given), so the first build does not spend the ~7 s on it. Returns the indexed
    database, or None."""
    aligner = aligner or align.choose_aligner()
    if aligner.name != "mmseqs":
        return None
    searched = reference_with_markers(reference.filtered_fasta(cache_dir), markers or bundled_markers(),
                                      _index_dir(cache_dir))
    return align.indexed_target(searched, aligner, _index_dir(cache_dir), threads)


def _weak_support(best: dict[str, list[align.Hit]], assigned: AbstractSet[str], rules: dict[str, Any],
                  aliases: ReactionAliasSource, template_ids: set[str],
                  min_identity: float) -> dict[str, dict[str, Any]]:
    """Template reactions of reference genes that unassigned proteins (not in `assigned`) hit at
    WEAK_MIN_IDENTITY to min_identity: each with its best such hit. Outside copies are not
    gapfilling candidates, so only template reactions are kept."""
    weak_hits: dict[str, align.Hit] = {}  # reference gene -> best weak hit on it
    for query, tops in best.items():
        if query in assigned:
            continue
        for hit in tops:
            if WEAK_MIN_IDENTITY <= hit.identity < min_identity and hit.target in rules and (
                    hit.target not in weak_hits or hit.identity > weak_hits[hit.target].identity):
                weak_hits[hit.target] = hit
    bigg_ids = {rule.reaction for target in weak_hits for rule in rules[target]}
    to_modelseed = aliases.reaction_ids_for_external("BiGG", bigg_ids)
    weak: dict[str, dict[str, Any]] = {}
    for target, hit in weak_hits.items():
        for rule in rules[target]:
            for rid in to_modelseed.get(rule.reaction, ()):
                tid = template_reaction_id(rid)
                if tid in template_ids and hit.identity > weak.get(tid, {}).get("identity", 0.0):
                    weak[tid] = {"gene": hit.query, "reference": hit.target, "identity": round(hit.identity, 1)}
    return weak
