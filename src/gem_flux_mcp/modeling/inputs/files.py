"""One entry point for every sequence file a user has: a protein FASTA, a nucleotide genome
(FASTA of contigs), or an annotated genome (GenBank, GFF3 with ##FASTA); plain or gzipped.
What kind it is comes from its content, not its name."""

from __future__ import annotations

import base64
import binascii
import gzip
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.rules.catalog import GeneCalling, TranslationTable

from .annotated import AnnotatedGenome, read_genbank, read_gff3
from .fasta import check_unique_ids, parse_fasta
from .genome import call_genes
from .sequences import (
    NUCLEOTIDE_SHARE,
    Protein,
    SkippedSequence,
    clean_proteins,
    nucleotide_fraction,
    nucleotides_not_proteins,
)

InputKind = Literal["protein_fasta", "genome_fasta", "genbank", "gff3", "inline_proteins"]
Expected = Literal["auto", "proteins", "genome"]


@dataclass
class ProteinInput:
    """Proteins ready to build from, with what was done to get them."""

    proteins: list[Protein]
    report: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


def read_text(path: Path, parameter: str = "fasta_file_path") -> str:
    """The file's text: gzip undone, a byte-order mark dropped. Clear errors for a missing path,
    a folder, or bytes that are not text."""
    codes = ((ErrorCode.GENOME_FILE_NOT_FOUND, ErrorCode.GENOME_PATH_NOT_FILE, ErrorCode.GENOME_READ_ERROR)
             if parameter == "genome_file_path" else
             (ErrorCode.FASTA_FILE_NOT_FOUND, ErrorCode.FASTA_PATH_NOT_FILE, ErrorCode.FASTA_READ_ERROR))
    if not path.exists():
        raise ValidationError(codes[0], f"File not found: {path}", details={parameter: str(path)},
                              suggestions=["Check the path; it must be inside the server's allowed folders."])
    if not path.is_file():
        raise ValidationError(codes[1], f"Not a file: {path}", details={parameter: str(path)},
                              suggestions=[f"Point {parameter} at a sequence file, not a folder."])
    try:
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":  # .gz
            raw = gzip.decompress(raw)
        return raw.decode("utf-8-sig")
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        raise ValidationError(codes[2], f"Could not read {path}: {exc}", details={parameter: str(path)},
                              suggestions=["Give a readable text file (FASTA, GenBank or GFF3), plain or gzipped."]
                              ) from exc


def text_of_content(content: object, encoding: str, parameter: str) -> str:
    """Inline file content as text: plain text as it is, or base64 (of the file's bytes, gzip
    allowed). A client on another machine sends files this way."""
    if not isinstance(content, str) or not content.strip():
        raise ValidationError(ErrorCode.INVALID_ARGUMENTS, f"{parameter} must be the file's text (or base64).",
                              details={"parameter": parameter})
    if encoding == "text":
        return content.removeprefix("\ufeff")
    if encoding != "base64":
        raise ValidationError(ErrorCode.INVALID_CONTENT_ENCODING, f"content_encoding must be 'text' or 'base64', "
                              f"not {encoding!r}.", details={"provided": encoding, "allowed": ["text", "base64"]})
    try:
        raw = base64.b64decode("".join(content.split()), validate=True)
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        return raw.decode("utf-8-sig")
    except (binascii.Error, ValueError, OSError, EOFError) as exc:
        raise ValidationError(
            ErrorCode.INVALID_CONTENT_ENCODING, f"{parameter} is not valid base64 of a text file (plain or gzipped): "
            f"{type(exc).__name__}.", details={"parameter": parameter},
            suggestions=["Send the file's bytes base64-encoded, or the text itself with content_encoding='text'."],
        ) from exc


def sniff(text: str) -> Literal["fasta", "genbank", "gff3", "unknown"]:
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            continue
        if stripped.startswith("LOCUS"):
            return "genbank"
        if stripped.startswith("##gff-version"):
            return "gff3"
        if stripped.startswith(">"):
            return "fasta"
        return "unknown"
    return "unknown"


def proteins_from_text(text: str, source: str, expected: Expected = "auto", gene_calling: GeneCalling = "auto",
                       parameter: str = "fasta_file_path",
                       translation_table: TranslationTable = "auto") -> ProteinInput:
    """Proteins from a file's text; for a genome, Prodigal's genes (`gene_calling`, `translation_table`)."""
    calling = (gene_calling, translation_table)
    fmt = sniff(text)
    if fmt == "genbank":
        return _from_annotated(read_genbank(text, source), "genbank", source, calling)
    if fmt == "gff3":
        return _from_annotated(read_gff3(text, source), "gff3", source, calling)
    if fmt == "unknown" and expected == "genome":
        raise ValidationError(
            ErrorCode.GENOME_INVALID_FORMAT, f"{source} is not FASTA, GenBank or GFF3.",
            details={"first_line": text.strip().splitlines()[0][:120] if text.strip() else ""},
            suggestions=["Give contigs as FASTA ('>contig1' then bases), a GenBank file (starts with LOCUS) "
                         "or GFF3 (starts with ##gff-version 3) with its ##FASTA section."],
        )
    records = parse_fasta(text, source)  # also raises the format errors of a broken FASTA
    fraction = nucleotide_fraction([r.sequence for r in records])
    nucleotide = fraction >= NUCLEOTIDE_SHARE
    if expected == "proteins" and nucleotide:
        raise nucleotides_not_proteins(source, parameter, fraction)
    if expected == "genome" and not nucleotide:
        raise ValidationError(
            ErrorCode.WRONG_SEQUENCE_TYPE, f"{source} looks like protein sequences, not a genome.",
            details={"expected": "nucleotide", "looks_like": "protein", "parameter": parameter},
            suggestions=["Pass a protein FASTA as fasta_file_path.",
                         "A genome is contigs as FASTA, GenBank or GFF3 with ##FASTA."],
        )
    if nucleotide:
        return _called(records, "genome_fasta", source, calling, {"records": len(records)})
    return _cleaned(records, "protein_fasta", source, {"records": len(records)})


def proteins_from_sequences(proteins: list[Protein], parameter: str) -> ProteinInput:
    """Protein sequences given directly (not as a file), checked and cleaned as a file's are."""
    fraction = nucleotide_fraction([p.sequence for p in proteins])
    if fraction >= NUCLEOTIDE_SHARE:
        raise nucleotides_not_proteins(parameter, parameter, fraction)
    return _cleaned(proteins, "inline_proteins", parameter, {"records": len(proteins)})


def read_proteins_file(path: Path, expected: Expected = "auto", gene_calling: GeneCalling = "auto",
                       parameter: str = "fasta_file_path",
                       translation_table: TranslationTable = "auto") -> ProteinInput:
    found = proteins_from_text(read_text(path, parameter), path.name, expected, gene_calling, parameter,
                               translation_table)
    found.report["file_name"] = path.name
    return found


def _cleaned(proteins: list[Protein], kind: InputKind, source: str, extra: dict[str, Any],
             skipped: list[SkippedSequence] | None = None, warnings: list[str] | None = None) -> ProteinInput:
    cleaned = clean_proteins(proteins, source)
    cleaned.skipped[:0] = skipped or []
    return ProteinInput(cleaned.proteins, {"input_kind": kind, **extra, **cleaned.report()},
                        [*(warnings or []), *cleaned.warnings()])


def _called(contigs: list[Protein], kind: InputKind, source: str, calling: tuple[GeneCalling, TranslationTable],
            extra: dict[str, Any]) -> ProteinInput:
    called = call_genes(contigs, *calling)
    if not called.proteins:
        raise ValidationError(
            ErrorCode.GENOME_NO_GENES, f"Prodigal found no genes in {source} ({called.genome_bp:,} bp).",
            details=called.report(),
            suggestions=["Check that the file holds the genome's contigs."] + (
                [f"No profile of translation table {calling[1]} fits this sequence: try translation_table='auto'."]
                if calling[1] != "auto" else []),
        )
    note = (f"Called {len(called.proteins)} genes with Prodigal ({called.mode} mode) on "
            f"{called.contigs} contig(s), {called.genome_bp:,} bp; genetic code: {called.translation_table_reason}.")
    return _cleaned(called.proteins, kind, source, {**extra, **called.report()}, warnings=[note])


def _from_annotated(genome: AnnotatedGenome, kind: InputKind, source: str,
                    calling: tuple[GeneCalling, TranslationTable]) -> ProteinInput:
    extra = {"records": len(genome.contigs), "cds_features": genome.cds_features,
             "translated_from_sequence": genome.translated_here}
    if genome.proteins:
        check_unique_ids([p.id for p in genome.proteins], source)
        return _cleaned(genome.proteins, kind, source, extra, skipped=genome.skipped)
    return _called(genome.contigs, kind, source, calling,
                   {**extra, "note": "no CDS features: genes called on the sequence"})


def read_fasta_file(path: Path) -> list[Protein]:
    """The records of a FASTA file as they are (no cleaning, no type check)."""
    return parse_fasta(read_text(path), path.name)
