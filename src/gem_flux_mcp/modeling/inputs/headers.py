"""FASTA headers as NCBI, RefSeq, UniProt, Prokka, Bakta and Prodigal write them, split into
the function name they carry (or None): accessions, organisms, coordinates and key=value
decorations never reach role matching."""

from __future__ import annotations

import re

_KEY_VALUE_PRODUCT = re.compile(r"(?:^|\s)product=(\"?)(.+?)\1(?=\s+\w+=|$)")
_BRACKET_FIELD = re.compile(r"\[(\w+)=([^\]]*)\]")
_UNIPROT_TAIL = re.compile(r"\s+OS=.*$")
_ORGANISM = re.compile(r"\s*\[[^\]]*\]\s*$")
# NP_414542.1, WP_003261911.1, XP_..., YP_...; GenBank protein ids AAC73112.1
_ACCESSION = re.compile(r"^(?:[A-Z]{2}_\d{6,}|[A-Z]{3}\d{5,7})(?:\.\d+)?$")
_NON_WORD = re.compile(r"[\W_]+")
_UNINFORMATIVE = {"hypotheticalprotein", "uncharacterizedprotein", "putativeprotein", "unknownfunction",
                  "conservedhypotheticalprotein", "proteinofunknownfunction"}


def bracket_fields(description: str) -> dict[str, str]:
    """NCBI's `[key=value]` fields ('cds_from_genomic' files): locus_tag, protein, gene, …"""
    return dict(_BRACKET_FIELD.findall(description))


def product_from_description(description: str) -> str | None:
    """The function name in a header's description (the text after the id), or None if it says
    nothing: `NP_064721.1 chromosome replication initiator DnaA [Pseudomonas aeruginosa]`,
    `[locus_tag=b0001] [protein=thr operon leader peptide]`, `HSLV_ECOLI Protease HslV OS=…`,
    `product="…"`; Prodigal's `# start # end # strand # ID=…` carries none."""
    text = description.strip()
    if not text or text.startswith("#"):
        return None
    fields = bracket_fields(text)
    if "protein" in fields:
        text = fields["protein"]
    else:
        match = _KEY_VALUE_PRODUCT.search(text)
        if match:
            text = match.group(2)
        text = _UNIPROT_TAIL.sub("", text)
        text = _ORGANISM.sub("", text)
        first, _, rest = text.partition(" ")
        if rest and _ACCESSION.match(first):
            text = rest
    text = re.sub(r"^MULTISPECIES:\s*", "", text.strip()).strip()
    if not text or _NON_WORD.sub("", text.lower()) in _UNINFORMATIVE:
        return None
    return text
