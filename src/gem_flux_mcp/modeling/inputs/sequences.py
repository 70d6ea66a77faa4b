"""Protein sequences as tools write them, made usable: trailing stops stripped, IUPAC ambiguity
codes kept, sequences that cannot be a protein (an internal stop, nothing left, characters that
are not residues) skipped and listed, so one pseudogene never refuses a whole proteome."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

STANDARD_RESIDUES = frozenset("ACDEFGHIKLMNPQRSTVWY")
# IUPAC: U selenocysteine, O pyrrolysine; B (D/N), Z (E/Q), J (I/L), X unknown
AMBIGUITY_CODES = frozenset("BZJXUO")
NUCLEOTIDE_LETTERS = frozenset("ACGTUN")
MAX_LISTED = 50
_NOT_RESIDUE = re.compile(r"[^A-Z*]")


@dataclass
class Protein:
    id: str
    sequence: str
    description: str = ""


@dataclass
class SkippedSequence:
    id: str
    reason: str  # internal_stop, empty, invalid_characters


@dataclass
class CleanedProteins:
    """Usable proteins, and what was changed or left out on the way."""

    proteins: list[Protein]
    skipped: list[SkippedSequence] = field(default_factory=list)
    trailing_stops_removed: int = 0
    with_ambiguity_codes: int = 0

    def report(self) -> dict[str, Any]:
        reasons = Counter(s.reason for s in self.skipped)
        return {
            "num_proteins": len(self.proteins), "num_skipped": len(self.skipped),
            "skipped_by_reason": dict(sorted(reasons.items())),
            "skipped": [{"id": s.id, "reason": s.reason} for s in self.skipped[:MAX_LISTED]],
            "trailing_stops_removed": self.trailing_stops_removed,
            "with_ambiguity_codes": self.with_ambiguity_codes,
        }

    def warnings(self) -> list[str]:
        notes = []
        if self.skipped:
            reasons = Counter(s.reason for s in self.skipped)
            listed = ", ".join(s.id for s in self.skipped[:10]) + (" …" if len(self.skipped) > 10 else "")
            notes.append(f"Skipped {len(self.skipped)} sequence(s) that cannot be a protein "
                         f"({', '.join(f'{n} {r}' for r, n in sorted(reasons.items()))}): {listed}.")
        if self.with_ambiguity_codes:
            notes.append(f"{self.with_ambiguity_codes} protein(s) contain ambiguity codes (X, B, Z, J) or "
                         "U/O; kept as they are.")
        return notes


def nucleotide_fraction(sequences: list[str]) -> float:
    """Share of A, C, G, T, U, N among all letters: near 1 for DNA, about 0.3 for proteins."""
    counts: Counter[str] = Counter()
    for seq in sequences:
        counts.update(seq.upper())
        if counts.total() > 200_000:
            break
    letters = sum(n for ch, n in counts.items() if ch.isalpha())
    if not letters:
        return 0.0
    return sum(counts[ch] for ch in NUCLEOTIDE_LETTERS) / letters


NUCLEOTIDE_SHARE = 0.9  # from this nucleotide_fraction up, the sequences are DNA


def nucleotides_not_proteins(source: str, parameter: str, fraction: float) -> ValidationError:
    """The error for DNA given where proteins are expected (`fraction`: nucleotide_fraction)."""
    return ValidationError(
        ErrorCode.WRONG_SEQUENCE_TYPE,
        f"{source} looks like nucleotide sequences (DNA), not proteins.",
        details={"expected": "protein", "looks_like": "nucleotide", "parameter": parameter,
                 "nucleotide_fraction": round(fraction, 3)},
        suggestions=["Pass a genome (contigs as FASTA, GenBank or GFF3) as genome_file_path: genes are "
                     "called with Prodigal and translated.",
                     "Or give the translated proteins (.faa)."],
    )


def clean_proteins(proteins: list[Protein], source: str = "input") -> CleanedProteins:
    """Upper-case, strip whitespace and trailing '*'; skip (and list) what cannot be a protein.
    Only an input with no usable protein at all is an error."""
    if not proteins:
        raise ValidationError(
            ErrorCode.EMPTY_PROTEIN_SEQUENCES, "No protein sequences were given.",
            details={"num_sequences_provided": 0, "minimum_required": 1},
            suggestions=["Pass at least one sequence, e.g. {\"gene1\": \"MKV...\"}."],
        )
    result = CleanedProteins([])
    invalid: dict[str, list[str]] = {}
    for protein in proteins:
        seq = "".join(protein.sequence.split()).upper()
        stripped = seq.rstrip("*")
        if not stripped:
            result.skipped.append(SkippedSequence(protein.id, "empty"))
            continue
        if "*" in stripped:
            result.skipped.append(SkippedSequence(protein.id, "internal_stop"))
            continue
        if _NOT_RESIDUE.search(stripped):
            invalid[protein.id] = sorted(set(_NOT_RESIDUE.findall(stripped)))
            result.skipped.append(SkippedSequence(protein.id, "invalid_characters"))
            continue
        if not set(stripped) <= STANDARD_RESIDUES:
            result.with_ambiguity_codes += 1
        if stripped != seq:
            result.trailing_stops_removed += 1
        result.proteins.append(Protein(protein.id, stripped, protein.description))
    if not result.proteins:
        raise ValidationError(
            ErrorCode.INVALID_AMINO_ACIDS,
            f"None of the {len(proteins)} sequences in {source} is a usable protein.",
            details={**result.report(), "invalid_characters": dict(list(invalid.items())[:MAX_LISTED])},
            suggestions=["Give protein sequences (one-letter amino-acid codes); a '*' is allowed only at the end."],
        )
    return result
