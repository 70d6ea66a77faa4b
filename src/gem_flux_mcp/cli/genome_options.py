"""The options every command that reads a genome shares: Prodigal's mode and the genetic code,
with the values and rules of modeling/inputs/genome.py."""

from __future__ import annotations

import argparse

from gem_flux_mcp.modeling.inputs import GENE_CALLING_MODES, TRANSLATION_TABLES


def add_genome_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gene-calling", choices=list(GENE_CALLING_MODES), default="auto",
                        help="Prodigal mode for a genome (auto: single for 100 kb or more, else meta)")
    parser.add_argument("--translation-table", choices=[str(t) for t in TRANSLATION_TABLES], default="auto",
                        help="genetic code for a genome's genes: 11, 4 (Mycoplasma: TGA is tryptophan), 25, or "
                             "auto (11 or 4, from the genome)")
