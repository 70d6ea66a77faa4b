"""FASTA text → records (id, sequence, header description), for proteins and contigs alike."""

from __future__ import annotations

from collections import Counter

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

from .headers import bracket_fields
from .sequences import Protein


def parse_fasta(text: str, source: str = "FASTA") -> list[Protein]:
    """Records in file order. CRLF, blank lines and ';' comments are fine; a header without an id,
    sequence before the first header and repeated ids are errors that name the line or ids. NCBI
    'cds_from_genomic' headers (`>lcl|… [locus_tag=b0001] …`) are named by their locus tags."""
    records: list[Protein] = []
    current: Protein | None = None
    chunks: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith(">"):
            if current is not None:
                current.sequence = "".join(chunks)
            header = line[1:].strip()
            pid, _, description = header.partition(" ")
            if not pid:
                raise ValidationError(
                    ErrorCode.FASTA_INVALID_FORMAT, f"{source}: a header without an id at line {number}.",
                    details={"line_number": number},
                    suggestions=["Every header needs an id right after '>', e.g. '>gene1 product name'."],
                )
            current = Protein(pid, "", description.strip())
            records.append(current)
            chunks = []
        elif current is None:
            raise ValidationError(
                ErrorCode.FASTA_INVALID_FORMAT, f"{source}: sequence data before the first '>' header (line {number}).",
                details={"line_number": number},
                suggestions=["A FASTA file starts with a header line such as '>gene1'."],
            )
        else:
            chunks.append("".join(line.split()))
    if current is not None:
        current.sequence = "".join(chunks)
    if not records:
        raise ValidationError(
            ErrorCode.FASTA_NO_SEQUENCES, f"{source} contains no sequences.",
            suggestions=["Give a FASTA file with at least one '>id' header and its sequence."],
        )
    _name_by_locus_tags(records)
    check_unique_ids([r.id for r in records], source)
    return records


def _name_by_locus_tags(records: list[Protein]) -> None:
    tags = [bracket_fields(r.description).get("locus_tag", "") for r in records]
    if all(tags) and len(set(tags)) == len(tags):
        for record, tag in zip(records, tags, strict=True):
            record.id = tag


def check_unique_ids(ids: list[str], source: str) -> None:
    duplicates = sorted(pid for pid, count in Counter(ids).items() if count > 1)
    if duplicates:
        raise ValidationError(
            ErrorCode.DUPLICATE_SEQUENCE_IDS, f"{source} uses {len(duplicates)} id(s) more than once: "
            f"{', '.join(duplicates[:5])}{' …' if len(duplicates) > 5 else ''}.",
            details={"duplicate_ids": duplicates[:50], "num_duplicate_ids": len(duplicates)},
            suggestions=["Make every sequence id unique; genes are named by these ids in the model."],
        )
