"""Gram-negative or Gram-positive, from the genome: the template `auto` picks.

A Gram-negative cell has an outer membrane whose outer leaflet is lipopolysaccharide, so its
genome encodes the lipid A pathway (LpxA, LpxC, LpxD, LpxH, LpxB, LpxK) and the Kdo core
(KdsB, WaaA); Gram-positive bacteria have none of them. The markers are read off a draft built
with the Gram-negative template: reactions of the pathway that homology or header names gave
genes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterable

    import cobra

# BiGG reaction -> enzyme, mapped to ModelSEED through the biochemistry's BiGG aliases
LPS_MARKERS = {"UAGAAT": "LpxA", "UHGADA": "LpxC", "U23GAAT": "LpxD", "USHD": "LpxH", "LPADSS": "LpxB",
               "TDSK": "LpxK", "KDOCT2": "KdsB", "MOAT": "WaaA"}
MIN_MARKERS = 3  # E. coli K-12 drafts have 6 of 8, B. subtilis 168 none
# 1 or 2 markers: some lipid A genes found, too few to be sure (Zymomonas mobilis, a Gram-negative
# alphaproteobacterium whose lipid A enzymes are distant from the reference ones, has 2)
UNSURE = range(1, MIN_MARKERS)


class ReactionAliasSource(Protocol):
    def reaction_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, set[str]]: ...


@dataclass(frozen=True)
class GramCall:
    template: str  # GramNegative or GramPositive
    markers_found: tuple[str, ...]
    reason: str
    unsure: bool = False  # few markers either way: the caller should say so


def gram_from_draft(draft: cobra.Model, aliases: ReactionAliasSource) -> GramCall:
    found = []
    for bigg, ids in aliases.reaction_ids_for_external("BiGG", LPS_MARKERS).items():
        present = (draft.reactions.get_by_id(f"{rid}_c0") for rid in ids if f"{rid}_c0" in draft.reactions)
        if any(reaction.genes for reaction in present):
            found.append(LPS_MARKERS[bigg])
    found.sort()
    negative = len(found) >= MIN_MARKERS
    listed = ", ".join(found) if found else "none"
    verdict = "an outer membrane: Gram-negative" if negative else "no outer membrane: Gram-positive"
    reason = (f"{len(found)} of {len(LPS_MARKERS)} lipopolysaccharide enzymes have genes ({listed}); "
              f"{verdict} (Gram-negative takes {MIN_MARKERS} or more)")
    unsure = len(found) in UNSURE
    if unsure:
        reason += ("; unsure: some lipid A genes were found, too few to tell. If you know the organism's Gram "
                   "type, build again with template='GramNegative' or 'GramPositive'")
    return GramCall("GramNegative" if negative else "GramPositive", tuple(found), reason, unsure)
