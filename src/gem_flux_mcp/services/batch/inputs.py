"""Which genomes a batch reconstructs: files named one by one, and the genome-like files of the
folders named (not recursive), each under a name taken from its file name."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

# what build_model reads: protein or genome FASTA, GenBank, GFF3 with ##FASTA; each may be gzipped
GENOME_SUFFIXES = (".faa", ".fa", ".fasta", ".fas", ".fna", ".ffn", ".fsa", ".gbk", ".gbff", ".gb", ".genbank",
                   ".gff", ".gff3")
MAX_INPUTS = 100_000
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class GenomeInput:
    name: str  # file-name safe; the model id and the stem of every output file
    path: Path


def genome_name(path: Path) -> str:
    """`GCF_000005845.2_ASM584v2_protein.faa.gz` → `GCF_000005845.2_ASM584v2_protein`."""
    stem = Path(path.name.removesuffix(".gz")).stem
    return _UNSAFE.sub("_", stem).strip("._") or "genome"


def is_genome_file(path: Path) -> bool:
    return path.is_file() and path.name.lower().removesuffix(".gz").endswith(GENOME_SUFFIXES)


def find_inputs(paths: Sequence[str | Path]) -> list[GenomeInput]:
    """Every input named, in the order given (a folder's files sorted by name). A path that does
    not exist, a folder with no genome file, two inputs with one name, or none at all is an error
    before any work starts."""
    if not paths:
        raise ValidationError(ErrorCode.BATCH_NO_INPUTS, "Name at least one genome or proteome file, or a folder.")
    found: list[Path] = []
    missing: list[str] = []
    empty: list[str] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if is_genome_file(p))
            if not files:
                empty.append(str(path))
            found.extend(files)
        elif path.is_file():
            found.append(path)
        else:
            missing.append(str(path))
    if missing:
        raise ValidationError(ErrorCode.BATCH_INPUT_NOT_FOUND, f"{len(missing)} input(s) not found: "
                              f"{', '.join(missing[:5])}.", details={"not_found": missing[:50]})
    if empty:
        raise ValidationError(
            ErrorCode.BATCH_NO_INPUTS, f"No genome or proteome file in {', '.join(empty[:5])}.",
            details={"empty_folders": empty[:50], "suffixes": [*GENOME_SUFFIXES, "(each also .gz)"]})
    if len(found) > MAX_INPUTS:
        raise ValidationError(ErrorCode.BATCH_TOO_MANY_INPUTS, f"{len(found)} inputs; at most {MAX_INPUTS} per batch.",
                              details={"num_inputs": len(found), "max_inputs": MAX_INPUTS})
    by_name: dict[str, list[str]] = {}
    unique: dict[Path, GenomeInput] = {}
    for path in found:
        resolved = path.resolve()
        if resolved in unique:  # a file named twice (itself and through its folder) is built once
            continue
        unique[resolved] = GenomeInput(genome_name(path), resolved)
        by_name.setdefault(unique[resolved].name, []).append(str(path))
    clashes = {name: files for name, files in by_name.items() if len(files) > 1}
    if clashes:
        raise ValidationError(
            ErrorCode.BATCH_DUPLICATE_NAMES,
            f"{len(clashes)} name(s) would be used by more than one input: {', '.join(list(clashes)[:5])}; every "
            "genome needs its own name for its output files.",
            details={"clashes": dict(list(clashes.items())[:20])},
            suggestions=["Rename the files, or run the clashing ones in separate batches with separate --out folders."])
    return list(unique.values())
