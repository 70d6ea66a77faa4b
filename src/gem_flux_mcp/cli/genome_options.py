"""The options every command that reads a genome shares: Prodigal's mode and the genetic code,
read through their rules (rules/catalog.py)."""

from __future__ import annotations

import argparse

from gem_flux_mcp.cli.options import add_rule_option
from gem_flux_mcp.rules.catalog import GENE_CALLING, TRANSLATION_TABLE


def add_genome_options(parser: argparse.ArgumentParser) -> None:
    add_rule_option(parser, "--gene-calling", GENE_CALLING, default="auto",
                    help="Prodigal mode for a genome (auto: single for 100 kb or more, else meta)")
    add_rule_option(parser, "--translation-table", TRANSLATION_TABLE, default="auto",
                    help="genetic code for a genome's genes: 11, 4 (Mycoplasma: TGA is tryptophan), 25, or "
                         "auto (11 or 4, from the genome)")
