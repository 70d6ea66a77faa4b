"""Annotated genomes (GenBank from NCBI/Prokka/Bakta, GFF3 with its sequence embedded) read with
Biopython and bcbio-gff: each CDS's protein (its /translation, or its sequence translated) and its
/product, which header-function matching then uses as it uses a FASTA header."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

from .sequences import Protein, SkippedSequence


@dataclass
class AnnotatedGenome:
    proteins: list[Protein]
    contigs: list[Protein]  # the nucleotide records, for gene calling when there are no CDS features
    skipped: list[SkippedSequence] = field(default_factory=list)
    cds_features: int = 0
    translated_here: int = 0  # CDS without a /translation, translated from the sequence


def _first(qualifiers: dict[str, Any], *keys: str) -> str:
    for key in keys:
        values = qualifiers.get(key)
        if values:
            return str(values[0]).strip()
    return ""


def _walk(features: Iterable[Any]) -> Iterator[Any]:
    for feature in features:
        yield feature
        yield from _walk(getattr(feature, "sub_features", None) or [])


def _translate(nucleotides: Any, table: int) -> str:
    """A complete CDS as a protein (an alternative start codon read as Met, as the ribosome does);
    a partial one codon by codon."""
    from Bio.Data.CodonTable import TranslationError

    try:
        return str(nucleotides.translate(table=table, cds=True))
    except TranslationError:
        return str(nucleotides.translate(table=table))


def _proteins(records: list[Any], source: str) -> AnnotatedGenome:
    from Bio.Seq import UndefinedSequenceError

    genome = AnnotatedGenome([], [])
    seen: set[str] = set()
    for record in records:
        try:
            contig_sequence = str(record.seq)
        except UndefinedSequenceError:
            contig_sequence = ""
        if contig_sequence:
            genome.contigs.append(Protein(record.id, contig_sequence, record.description or ""))
        for number, feature in enumerate((f for f in _walk(record.features) if f.type == "CDS"), start=1):
            genome.cds_features += 1
            q = feature.qualifiers
            pid = _first(q, "locus_tag", "protein_id", "ID", "gene", "Name") or f"{record.id}_cds{number}"
            if pid in seen:  # one CDS written as several parts (GFF3 lines sharing an ID)
                continue
            seen.add(pid)
            if "pseudo" in q or "pseudogene" in q:
                genome.skipped.append(SkippedSequence(pid, "pseudogene"))
                continue
            sequence = _first(q, "translation")
            if not sequence:
                try:
                    table = int(_first(q, "transl_table") or 11)
                    nucleotides = feature.extract(record.seq)
                    phase = int(_first(q, "codon_start") or 1) - 1 or int(_first(q, "phase") or 0)
                    nucleotides = nucleotides[phase:]
                    nucleotides = nucleotides[:len(nucleotides) - len(nucleotides) % 3]
                    sequence = _translate(nucleotides, table)
                    genome.translated_here += 1
                except (UndefinedSequenceError, ValueError, KeyError):
                    genome.skipped.append(SkippedSequence(pid, "no_sequence"))
                    continue
            product = _first(q, "product", "function", "note")
            genome.proteins.append(Protein(pid, sequence, f"product={product}" if product else ""))
    if not genome.proteins and not genome.contigs:
        raise ValidationError(
            ErrorCode.GENOME_NO_SEQUENCES, f"{source} has neither protein-coding features nor a sequence.",
            details={"cds_features": genome.cds_features, "skipped": len(genome.skipped)},
            suggestions=["GenBank needs CDS features with /translation or an ORIGIN sequence; "
                         "GFF3 needs its ##FASTA section."],
        )
    return genome


def read_genbank(text: str, source: str) -> AnnotatedGenome:
    from Bio import SeqIO

    try:
        records = list(SeqIO.parse(io.StringIO(text), "genbank"))  # type: ignore[no-untyped-call]
    except ValueError as exc:
        raise ValidationError(ErrorCode.GENOME_INVALID_FORMAT, f"{source}: not valid GenBank: {exc}",
                              suggestions=["Give the .gbk/.gbff file as Prokka, Bakta or NCBI write it."]) from exc
    return _proteins(records, source)


def read_gff3(text: str, source: str) -> AnnotatedGenome:
    from BCBio import GFF
    from Bio import SeqIO

    gff_text, _, fasta_text = text.partition("##FASTA")
    sequences = ({r.id: r for r in SeqIO.parse(io.StringIO(fasta_text), "fasta-pearson")}  # type: ignore[no-untyped-call]
                 if fasta_text.strip() else {})
    try:
        records = list(GFF.parse(io.StringIO(gff_text), base_dict=sequences))
    except (ValueError, IndexError, KeyError) as exc:
        raise ValidationError(ErrorCode.GENOME_INVALID_FORMAT, f"{source}: not valid GFF3: {exc}",
                              suggestions=["Give GFF3 as Prokka or Bakta write it, with the ##FASTA section."]) from exc
    return _proteins(records, source)
