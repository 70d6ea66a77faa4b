"""Gram-negative or Gram-positive, from the genome: the template `auto` picks.

Two kinds of evidence, each about the outer membrane a Gram-negative cell has and a Gram-positive
cell lacks:
- **Protein names**, when the proteome carries them (NCBI, RefSeq, Prokka and Bakta headers):
  outer-membrane proteins are named as such ("outer membrane protein assembly factor BamA",
  "TonB-dependent receptor", "LPS-assembly protein LptD", porins). Every diderm needs the Bam
  machine and LptD, so a named Gram-negative proteome lists dozens (E. coli K-12 58, B.
  thetaiotaomicron 58, Z. mobilis 39) and a Gram-positive one none or one (B. subtilis, L.
  plantarum, E. faecalis, C. acetobutylicum, B. infantis, A. propionicum: 0-1).
- **Lipopolysaccharide enzymes**: the outer leaflet is lipopolysaccharide, so the genome encodes
  the lipid A pathway (LpxA, LpxC, LpxD, LpxH, LpxB, LpxK) and the Kdo core (KdsB, WaaA), read off
  a draft built with the Gram-negative template (reactions homology or header names gave genes).
  Distant lipid A enzymes can be missed (Z. mobilis: 2 of 8), and a nucleotidyltransferase can
  pass for KdsB in a Gram-positive (E. faecalis, L. plantarum: 1).

Names that say "no outer membrane" decide alone, so a Gram-positive proteome is drafted once;
otherwise the Gram-negative draft is built and both are weighed. Unsure calls say so."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .inputs import product_from_description

if TYPE_CHECKING:
    from collections.abc import Iterable

    import cobra

    from .inputs import Protein

# BiGG reaction -> enzyme, mapped to ModelSEED through the biochemistry's BiGG aliases
LPS_MARKERS = {"UAGAAT": "LpxA", "UHGADA": "LpxC", "U23GAAT": "LpxD", "USHD": "LpxH", "LPADSS": "LpxB",
               "TDSK": "LpxK", "KDOCT2": "KdsB", "MOAT": "WaaA"}
MIN_MARKERS = 3  # E. coli K-12 drafts have 6 of 8, B. subtilis 168 none
# 1 or 2 markers: some lipid A genes found, too few to be sure (Zymomonas mobilis, a Gram-negative
# alphaproteobacterium whose lipid A enzymes are distant from the reference ones, has 2)
UNSURE = range(1, MIN_MARKERS)

OUTER_MEMBRANE_NAME = re.compile(r"outer[ -]membrane|\bTonB\b|\bBam[A-E]\b|\bLpt[DE]\b|\bporins?\b", re.IGNORECASE)
MIN_NAMED = 500  # proteins with a function name: fewer, and the names are not read (too few to tell)
MIN_OUTER_MEMBRANE = 10  # this many outer-membrane proteins named: an outer membrane
MAX_WITHOUT = 2  # at most this many: none (a stray LolA- or TolC-like name in a Gram-positive)


class ReactionAliasSource(Protocol):
    def reaction_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, set[str]]: ...


@dataclass(frozen=True)
class NameEvidence:
    """Outer-membrane proteins among a proteome's function names."""

    named: int  # proteins whose header names a function
    outer_membrane: tuple[str, ...]  # their names, one per protein

    @property
    def readable(self) -> bool:
        return self.named >= MIN_NAMED

    @property
    def says_outer_membrane(self) -> bool:
        return self.readable and len(self.outer_membrane) >= MIN_OUTER_MEMBRANE

    @property
    def says_none(self) -> bool:
        return self.readable and len(self.outer_membrane) <= MAX_WITHOUT

    def describe(self) -> str:
        if not self.readable:
            return f"{self.named} proteins carry function names, too few to read the cell envelope from"
        counts = Counter(self.outer_membrane)  # the commonest names, shortest first among equals
        examples = sorted(counts, key=lambda name: (-counts[name], len(name), name))[:3]
        shown = f" (e.g. {'; '.join(examples)})" if examples else ""
        return f"{len(self.outer_membrane)} of {self.named} named proteins are outer-membrane proteins{shown}"


def outer_membrane_names(proteins: Iterable[Protein]) -> NameEvidence:
    names = [name for name in (product_from_description(p.description) for p in proteins) if name]
    return NameEvidence(len(names), tuple(name for name in names if OUTER_MEMBRANE_NAME.search(name)))


@dataclass(frozen=True)
class GramCall:
    template: str  # GramNegative or GramPositive
    markers_found: tuple[str, ...]
    reason: str
    unsure: bool = False  # the evidence is thin or conflicting: the caller should say so


_ASK = " If you know the organism's Gram type, build again with template='GramNegative' or 'GramPositive'."


def gram_from_names(names: NameEvidence) -> GramCall | None:
    """The call when the names alone say there is no outer membrane (no draft needed), else None."""
    if not names.says_none:
        return None
    return GramCall("GramPositive", (), f"{names.describe()}: no outer membrane, Gram-positive")


def gram_from_draft(draft: cobra.Model, aliases: ReactionAliasSource, names: NameEvidence | None = None) -> GramCall:
    """The call from a Gram-negative draft's lipopolysaccharide genes, weighed with the names."""
    found = []
    for bigg, ids in aliases.reaction_ids_for_external("BiGG", LPS_MARKERS).items():
        present = (draft.reactions.get_by_id(f"{rid}_c0") for rid in ids if f"{rid}_c0" in draft.reactions)
        if any(reaction.genes for reaction in present):
            found.append(LPS_MARKERS[bigg])
    found.sort()
    enzymes_say_negative = len(found) >= MIN_MARKERS
    listed = ", ".join(found) if found else "none"
    enzymes = f"{len(found)} of {len(LPS_MARKERS)} lipopolysaccharide enzymes have genes ({listed})"
    if names is not None and names.says_outer_membrane:
        unsure = not found  # outer-membrane proteins without any lipid A enzyme: an unusual envelope
        reason = f"{names.describe()}; {enzymes}: an outer membrane, Gram-negative"
        return GramCall("GramNegative", tuple(found), reason + ("; unsure." + _ASK if unsure else ""), unsure)
    if names is not None and names.says_none:
        if not enzymes_say_negative:
            return GramCall("GramPositive", tuple(found), f"{names.describe()}; {enzymes}: no outer membrane, "
                            "Gram-positive")
        reason = f"{names.describe()}; {enzymes}: Gram-negative by the enzymes; unsure: the names disagree."
        return GramCall("GramNegative", tuple(found), reason + _ASK, True)
    verdict = "an outer membrane: Gram-negative" if enzymes_say_negative else "no outer membrane: Gram-positive"
    reason = f"{enzymes}; {verdict} (Gram-negative takes {MIN_MARKERS} or more)"
    if names is not None:
        reason = f"{names.describe()}; {reason}"
    # a few outer-membrane names and no lipid A pathway: thin evidence either way
    unsure = len(found) in UNSURE or (names is not None and names.readable and not enzymes_say_negative)
    if unsure:
        reason += "; unsure: too few lipid A genes or outer-membrane names to tell." + _ASK
    return GramCall("GramNegative" if enzymes_say_negative else "GramPositive", tuple(found), reason, unsure)
