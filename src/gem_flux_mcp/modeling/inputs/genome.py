"""Genes called on a nucleotide genome with Prodigal (pyrodigal) and translated.

Prodigal's own rule: train on the genome itself ('single' mode) when it is long enough to learn
its codon usage and start sites; below that, use the pre-trained 'meta' profiles."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any, Literal

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

from .sequences import Protein

GeneCalling = Literal["auto", "single", "meta"]
GENE_CALLING_MODES: tuple[str, ...] = ("auto", "single", "meta")
SINGLE_MODE_MIN_BP = 100_000  # below this, 'auto' uses the metagenome profiles
PRODIGAL_MIN_TRAINING_BP = 20_000  # pyrodigal refuses to train on less
TRANSLATION_TABLE: Literal[11] = 11  # bacteria and archaea; the templates are bacterial


@dataclass
class CalledGenes:
    proteins: list[Protein]
    mode: str
    genome_bp: int
    contigs: int
    seconds: float
    translation_tables: list[int]  # single mode: 11; meta mode: each gene's best profile decides

    def report(self) -> dict[str, Any]:
        return {"genes_called": len(self.proteins), "gene_calling_mode": self.mode, "genome_bp": self.genome_bp,
                "contigs": self.contigs, "gene_calling_s": round(self.seconds, 2),
                "translation_tables": self.translation_tables}


def check_gene_calling(mode: object) -> GeneCalling:
    if mode not in GENE_CALLING_MODES:
        raise ValidationError(
            ErrorCode.INVALID_GENE_CALLING, f"gene_calling must be one of {', '.join(GENE_CALLING_MODES)}.",
            details={"provided": mode, "allowed": list(GENE_CALLING_MODES)},
            suggestions=["'auto' trains on genomes of 100 kb or more and uses metagenome profiles below."],
        )
    return mode  # type: ignore[return-value]


def call_genes(contigs: list[Protein], mode: GeneCalling = "auto") -> CalledGenes:
    """Proteins of the genes Prodigal finds on `contigs` (records with nucleotide sequences),
    named `<contig>_<n>` as Prodigal names them. Stop codons are not translated."""
    import pyrodigal

    started = time.perf_counter()
    sequences = [(c.id, c.sequence.upper().replace("U", "T")) for c in contigs]
    total = sum(len(s) for _, s in sequences)
    chosen = mode if mode != "auto" else ("single" if total >= SINGLE_MODE_MIN_BP else "meta")
    if chosen == "single":
        if total < PRODIGAL_MIN_TRAINING_BP:
            raise ValidationError(
                ErrorCode.GENOME_TOO_SHORT,
                f"The genome has {total:,} bp; Prodigal's single-genome mode needs at least "
                f"{PRODIGAL_MIN_TRAINING_BP:,} bp to train.",
                details={"genome_bp": total, "minimum_bp": PRODIGAL_MIN_TRAINING_BP},
                suggestions=["Use gene_calling='meta' (pre-trained profiles) for short or fragmented sequences."],
            )
        finder = pyrodigal.GeneFinder(meta=False)
        first, *rest = (s for _, s in sequences)
        with warnings.catch_warnings():  # 'should be at least 100000 characters': the user chose single
            warnings.simplefilter("ignore", UserWarning)
            finder.train(first, *rest, translation_table=TRANSLATION_TABLE)
    else:
        finder = pyrodigal.GeneFinder(meta=True)
    proteins: list[Protein] = []
    tables: set[int] = set()
    for contig_id, sequence in sequences:
        for number, gene in enumerate(finder.find_genes(sequence), start=1):
            strand = "+" if gene.strand == 1 else "-"
            tables.add(gene.translation_table)
            proteins.append(Protein(
                f"{contig_id}_{number}", gene.translate(include_stop=False),
                f"# {gene.begin} # {gene.end} # {strand} # partial={int(gene.partial_begin)}{int(gene.partial_end)}",
            ))
    return CalledGenes(proteins, chosen, total, len(sequences), time.perf_counter() - started,
                       sorted(tables))
