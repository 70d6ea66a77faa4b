"""What the pages show of a stored model, read from its stored COBRApy JSON without COBRApy (a
2,400-reaction model parses in ~15 ms): reactions with their notes, genes, and where each reaction
came from (the `gemflux_sources` notes written by build and gapfill, the revision records of the
lineage)."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from gem_flux_mcp.modeling.origins import ORIGINS as LABELLED_ORIGINS
from gem_flux_mcp.modeling.origins import reaction_origin as origin_of
from gem_flux_mcp.store.rows import ModelRow

_GENE_TOKEN = re.compile(r"[^\s()]+")

# Where a reaction came from (modeling/origins.py), with the colour charts draw it in.
_COLOURS = {"fasta_header": "#4c78a8", "fasta_header+homology": "#72b7b2", "homology": "#54a24b", "rast": "#b279a2",
            "gapfill": "#e45756", "gapfill_exchange": "#ff9d98", "revision": "#f58518", "template": "#bab0ac",
            "boundary": "#d8d8d8", "unrecorded": "#9d755d"}
ORIGINS: tuple[tuple[str, str, str], ...] = tuple((key, label, _COLOURS[key]) for key, label in LABELLED_ORIGINS)
ORIGIN_LABELS = {key: label for key, label, _ in ORIGINS}


@dataclass(frozen=True)
class ReactionFacts:
    id: str
    name: str
    metabolites: dict[str, float]
    lower: float
    upper: float
    rule: str
    sources: str  # the gemflux_sources note ('' when none)
    evidence: str  # the gemflux_evidence note (JSON text, '' when none)

    @property
    def base_id(self) -> str:
        """`rxn00148_c0` -> `rxn00148` (other ids as they are)."""
        return self.id.rsplit("_", 1)[0] if self.id.startswith("rxn") else self.id

    def genes(self) -> list[str]:
        return [t for t in _GENE_TOKEN.findall(self.rule) if t not in ("and", "or")]


@dataclass(frozen=True)
class ModelFacts:
    model_id: str
    reactions: dict[str, ReactionFacts]
    metabolite_names: dict[str, str]
    genes: dict[str, list[str]]  # gene -> its reactions, model order
    objective: list[str]
    origin: dict[str, str]  # reaction id -> ORIGINS key

    def origin_counts(self) -> list[tuple[str, str, str, int]]:
        """(key, label, colour, reactions) for every origin present, in ORIGINS order."""
        counts = Counter(self.origin.values())
        return [(key, label, colour, counts[key]) for key, label, colour in ORIGINS if counts[key]]


def read_model_facts(data: bytes, row: ModelRow, revision_added: set[str]) -> ModelFacts:
    """The facts of a stored model file (`revision_added`: reactions its lineage's revisions added)."""
    raw: dict[str, Any] = json.loads(data)
    reactions: dict[str, ReactionFacts] = {}
    genes: dict[str, list[str]] = {str(g["id"]): [] for g in raw.get("genes", [])}
    objective = []
    for item in raw.get("reactions", []):
        notes = item.get("notes") if isinstance(item.get("notes"), dict) else {}
        facts = ReactionFacts(
            id=str(item["id"]), name=str(item.get("name") or ""),
            metabolites={str(k): float(v) for k, v in item.get("metabolites", {}).items()},
            lower=float(item.get("lower_bound", 0.0)), upper=float(item.get("upper_bound", 0.0)),
            rule=str(item.get("gene_reaction_rule") or ""), sources=str(notes.get("gemflux_sources") or ""),
            evidence=str(notes.get("gemflux_evidence") or ""))
        reactions[facts.id] = facts
        for gene in facts.genes():
            genes.setdefault(gene, []).append(facts.id)
        if item.get("objective_coefficient"):
            objective.append(facts.id)
    names = {str(m["id"]): str(m.get("name") or m["id"]) for m in raw.get("metabolites", [])}
    origin = {rid: reaction_origin(r, rid in revision_added) for rid, r in reactions.items()}
    return ModelFacts(row.model_id, reactions, names, genes, objective, origin)


def reaction_origin(reaction: ReactionFacts, added_by_revision: bool) -> str:
    """The ORIGINS key of one reaction (modeling/origins.py)."""
    return origin_of(reaction.id, reaction.sources, added_by_revision)


def evidence_text(evidence: str) -> str:
    """A gemflux_evidence note in one line: roles and functions, best homology hit, weak hits."""
    if not evidence:
        return ""
    try:
        data = json.loads(evidence)
    except ValueError:
        return evidence[:200]
    if not isinstance(data, dict):
        return str(data)[:200]
    parts = []
    for role in data.get("roles", [])[:2]:
        if isinstance(role, dict):
            parts.append(f"{role.get('source', '')}: {role.get('gene', '')} '{role.get('function', '')}' → "
                         f"{role.get('role', '')}")
    hit = data.get("homology", {}).get("best_hit") if isinstance(data.get("homology"), dict) else None
    if isinstance(hit, dict):
        parts.append(f"homology: {hit.get('gene', '')} ~ {hit.get('reference', '')} ({hit.get('identity', '')} % id)")
    weak = data.get("weak_homology")
    if isinstance(weak, dict):
        parts.append("weak homology: " + ", ".join(f"{k} {v}" for k, v in weak.items()))
    return "; ".join(parts) or json.dumps(data, sort_keys=True)[:200]
