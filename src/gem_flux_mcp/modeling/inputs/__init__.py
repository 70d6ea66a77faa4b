"""Sequences in, proteins out: every input a user has for a build (see files.py)."""

from .fasta import parse_fasta
from .files import (
    Expected,
    InputKind,
    ProteinInput,
    proteins_from_sequences,
    proteins_from_text,
    read_fasta_file,
    read_proteins_file,
    read_text,
    text_of_content,
)
from .headers import product_from_description
from .sequences import CleanedProteins, Protein, clean_proteins

__all__ = [
    "CleanedProteins", "Expected", "InputKind", "Protein", "ProteinInput", "clean_proteins",
    "parse_fasta", "product_from_description", "proteins_from_sequences", "proteins_from_text", "read_fasta_file",
    "read_proteins_file", "read_text", "text_of_content",
]
