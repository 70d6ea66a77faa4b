"""How complete a genome looks, and how contaminated: universal single-copy marker genes.

The markers are bacterial genes nearly every genome carries exactly once (ribosomal proteins,
aminoacyl-tRNA synthetases, RNA polymerase subunits, translation factors, …). Their reference
proteins (`data/markers.faa.gz`, written by `scripts/make_markers.py` from the development
proteomes) are searched with the same aligner as the homology reference. A protein counts for the
marker of its best hit; completeness is the share of markers found, contamination the extra
copies per marker (CheckM's definitions: a second copy is, most often, a second organism's).

`organism` in a reference id ("rpL2|GCF_000005845.2|NP_417778.1") lets a benchmark leave a genome's
own marker proteins out, as the build's reference can leave out a BiGG model.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..fsutil import atomic_write_text
from . import align

MIN_IDENTITY = 30.0  # percent; orthologs of these conserved genes across bacteria share more
# A hit this far below the family's own best score is a paralog's (class I aminoacyl-tRNA
# synthetases, translation GTPases), not a second copy of the marker.
MIN_SCORE_OF_BEST = 0.5
COMPLETE_FROM = 90.0  # completeness (%) from which a genome is "near complete" (MIMAG: high quality)
MEDIUM_FROM = 50.0  # MIMAG's medium-quality draft
CONTAMINATED_FROM = 5.0  # contamination (%) above which MIMAG no longer calls a draft high quality


@dataclass(frozen=True)
class MarkerSet:
    fasta: Path
    families: dict[str, str]  # family → description
    proteins: dict[str, str]  # reference id → family


@dataclass
class GenomeCompleteness:
    """Markers found in one proteome, with the estimate and what it rests on."""

    markers: int
    found: dict[str, list[str]] = field(default_factory=dict)  # family → proteins of the genome

    @property
    def present(self) -> int:
        return sum(1 for genes in self.found.values() if genes)

    @property
    def extra_copies(self) -> int:
        return sum(max(0, len(genes) - 1) for genes in self.found.values())

    @property
    def completeness(self) -> float:
        return round(100.0 * self.present / self.markers, 1) if self.markers else 0.0

    @property
    def contamination(self) -> float:
        return round(100.0 * self.extra_copies / self.markers, 1) if self.markers else 0.0

    def missing(self, families: Iterable[str]) -> list[str]:
        return sorted(f for f in families if not self.found.get(f))

    def duplicated(self) -> dict[str, list[str]]:
        return {f: sorted(genes) for f, genes in sorted(self.found.items()) if len(genes) > 1}

    def verdict(self) -> str:
        """One line a user can sort by (MIMAG's quality tiers, by markers only)."""
        if self.completeness >= COMPLETE_FROM and self.contamination <= CONTAMINATED_FROM:
            tier = "near complete"
        elif self.completeness >= MEDIUM_FROM and self.contamination <= 10.0:
            tier = "partial (medium-quality draft)"
        elif self.contamination > 10.0:
            tier = "contaminated"
        else:
            tier = "fragmentary"
        return (f"{tier}: {self.present} of {self.markers} single-copy markers found "
                f"(completeness {self.completeness:.1f} %), {self.extra_copies} extra copies "
                f"(contamination {self.contamination:.1f} %)")


def read_marker_fasta(path: Path) -> dict[str, str]:
    """Reference id → sequence of a (gzipped) marker FASTA."""
    sequences: dict[str, list[str]] = {}
    current = ""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:
        for line in handle:
            line = line.strip()
            if line.startswith(">"):
                current = line[1:].split()[0]
                sequences[current] = []
            elif current:
                sequences[current].append(line)
    return {rid: "".join(parts) for rid, parts in sequences.items()}


def family_of(reference_id: str) -> str:
    return reference_id.split("|", 1)[0]


def organism_of(reference_id: str) -> str:
    parts = reference_id.split("|")
    return parts[1] if len(parts) > 2 else ""


@lru_cache(maxsize=1)
def bundled_markers() -> MarkerSet:
    """The marker set shipped with the package."""
    folder = resources.files("gem_flux_mcp.data")
    description = json.loads(folder.joinpath("markers.json").read_text())
    fasta = Path(str(folder.joinpath("markers.faa.gz")))
    proteins = {rid: family_of(rid) for rid in read_marker_fasta(fasta)}
    return MarkerSet(fasta=fasta, families=dict(description["families"]), proteins=proteins)


def marker_set_without(markers: MarkerSet, organisms: Iterable[str], folder: Path) -> MarkerSet:
    """The same markers without the reference proteins of `organisms` (for benchmarks)."""
    left_out = set(organisms)
    if not left_out:
        return markers
    kept = {rid: seq for rid, seq in read_marker_fasta(markers.fasta).items() if organism_of(rid) not in left_out}
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"markers-without-{'-'.join(sorted(left_out))}.faa"
    align.write_fasta(kept.items(), path)
    return MarkerSet(fasta=path, families=markers.families, proteins={rid: family_of(rid) for rid in kept})


def reference_with_markers(reference_fasta: Path, markers: MarkerSet, folder: Path) -> Path:
    """The homology reference with the marker proteins appended, written once into `folder`
    (named by both inputs, so a changed reference or marker set gets a file of its own)."""
    stat = reference_fasta.stat()
    key = hashlib.sha256(f"{reference_fasta.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode()
                         + markers.fasta.read_bytes()).hexdigest()[:16]
    target = folder / f"{reference_fasta.stem}+markers-{key}.faa"
    if not target.is_file():
        text = reference_fasta.read_text()
        text += ("" if not text or text.endswith("\n") else "\n") + "".join(
            f">{rid}\n{seq}\n" for rid, seq in read_marker_fasta(markers.fasta).items())
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, text, mode=0o644)
    return target


def count_markers(hits: Iterable[align.Hit], markers: MarkerSet,
                  sequences: Mapping[str, str] | None = None) -> GenomeCompleteness:
    """Each protein counts for the family of its best hit when that hit is close enough: identity
    ≥ MIN_IDENTITY and a bit score ≥ MIN_SCORE_OF_BEST × the best score any protein of the genome
    reaches on that family (a paralog scores far below the true ortholog). With the proteins'
    `sequences`, a protein whose sequence lies within another one found for the same family (an
    alternative start of the same gene, as RefSeq lists E. coli's IF-2 three times) is not a copy."""
    best: dict[str, align.Hit] = {}
    for hit in hits:
        if hit.target in markers.proteins and (hit.query not in best or hit.bits > best[hit.query].bits):
            best[hit.query] = hit
    by_family: dict[str, list[align.Hit]] = defaultdict(list)
    for hit in best.values():
        if hit.identity >= MIN_IDENTITY:
            by_family[markers.proteins[hit.target]].append(hit)
    found: dict[str, list[str]] = {}
    for family, items in by_family.items():
        top = max(h.bits for h in items)
        genes = sorted(h.query for h in items if h.bits >= MIN_SCORE_OF_BEST * top)
        found[family] = _without_isoforms(genes, sequences) if sequences else genes
    return GenomeCompleteness(markers=len(markers.families),
                              found={f: found.get(f, []) for f in markers.families})


def _without_isoforms(genes: list[str], sequences: Mapping[str, str]) -> list[str]:
    """The genes whose sequence is not inside a longer (or equal, earlier) one of the list; the
    first residue is left out of the comparison, as an alternative start codon reads as Met."""
    kept = []
    for gene in genes:
        own = sequences.get(gene, "")
        if not own or not any(other != gene and own[1:] in sequences.get(other, "") and (
                len(sequences[other]) > len(own) or other < gene) for other in genes):
            kept.append(gene)
    return kept


def estimate_completeness(proteins: dict[str, str], aligner: align.Aligner | None = None,
                          threads: int | None = None, markers: MarkerSet | None = None) -> GenomeCompleteness:
    """Completeness and contamination of a proteome (protein id → sequence)."""
    markers = markers or bundled_markers()
    if not proteins:
        return GenomeCompleteness(markers=len(markers.families), found={f: [] for f in markers.families})
    aligner = aligner or align.choose_aligner()
    hits = align.search(proteins, markers.fasta, aligner, threads)
    return count_markers(hits, markers, proteins)


def completeness_summary(result: GenomeCompleteness, markers: MarkerSet | None = None) -> dict[str, Any]:
    """The estimate as the build report and the answers carry it."""
    markers = markers or bundled_markers()
    return {
        "completeness": result.completeness,
        "contamination": result.contamination,
        "markers": result.markers,
        "markers_found": result.present,
        "extra_copies": result.extra_copies,
        "verdict": result.verdict(),
        "missing_markers": result.missing(markers.families),
        "duplicated_markers": result.duplicated(),
    }
