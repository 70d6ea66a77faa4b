"""BiGG reactions matched to template reactions by what they do, where ModelSEED has no alias.

Homology brings BiGG reactions; ModelSEED's BiGG aliases turn them into template reactions. About
a third of the BiGG reactions in the reference have no alias that lands in a template, among them
most transporters of the Gram-negative models, which run through the periplasm in two steps
(`G6Ptex`: g6p_e <=> g6p_p, then `G6Pt6_2pp`: g6p_p + 2 pi_c -> g6p_c + 2 pi_p), while the
two-compartment ModelSEED templates have one step from e0 to c0 (rxn05563: the same with e0 for
the periplasm). Here each BiGG reaction without such an alias is written in ModelSEED compounds
(BiGG metabolite aliases) with the periplasm taken as the outside (p → e0, e → e0, c → c0) and
looked up among the template reactions by stoichiometry, either direction, protons left out
(the two namespaces protonate compounds differently). Porins (a compound from e to p) become
nothing and are skipped; a reaction with a compartment or compound that has no counterpart is
not matched.

Quinones: the templates keep one menaquinone pool, menaquinone-8. Gram-positive BiGG models use
menaquinone-7 (B. subtilis iYO844: NADH4, CYTB_B2, CYTB_B3), whose ModelSEED reactions are not
in the templates or do not connect to the template's oxidases, so such a strain got no
respiration. Menaquinone-7 and -8 differ only in the length of their isoprenoid tail; here they
count as the same compound, and reactions with menaquinone-7 are also matched by stoichiometry
even when they have an alias.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

PROTON = "cpd00067"
COMPARTMENTS = {"c": "c", "p": "e", "e": "e"}  # BiGG compartment -> template compartment
SAME_AS = {"mql7": "mql8", "mqn7": "mqn8"}  # BiGG compound -> the one it is matched as
Key = tuple[tuple[tuple[str, str], float], ...]


class Aliases(Protocol):
    def reaction_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, set[str]]: ...

    def compound_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, str]: ...


class StoichiometricAliases:
    """ModelSEED's BiGG reaction aliases, completed by stoichiometry for the BiGG reactions whose
    aliases miss the template (same interface as the biochemistry index)."""

    def __init__(self, aliases: Aliases, bigg_reactions: Mapping[str, Mapping[str, float]], template: Any) -> None:
        self.aliases = aliases
        self.bigg_reactions = bigg_reactions
        self.template_ids = {r.id for r in template.reactions}
        self.index: dict[Key, set[str]] = defaultdict(set)
        for reaction in template.reactions:
            coefficients: dict[tuple[str, str], float] = {}
            for metabolite, value in reaction.metabolites.items():
                compound, compartment = metabolite.id.rsplit("_", 1)
                place = (compound, compartment[0])
                coefficients[place] = coefficients.get(place, 0.0) + float(value)
            key = _key(coefficients)
            if key:
                self.index[key].add(reaction.id.rsplit("_", 1)[0])
        self.matched: dict[str, set[str]] = {}  # BiGG id -> ModelSEED ids found by stoichiometry

    def compound_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, str]:
        return self.aliases.compound_ids_for_external(source, values)

    def reaction_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, set[str]]:
        wanted = set(values)
        found = self.aliases.reaction_ids_for_external(source, wanted)
        if source != "BiGG":
            return found
        missing = {b for b in wanted if not any(f"{r}_c" in self.template_ids for r in found.get(b, ()))
                   or any(m.rsplit("_", 1)[0] in SAME_AS for m in self.bigg_reactions.get(b, {}))}
        for bigg, ids in self.by_stoichiometry(missing).items():
            found[bigg] = set(found.get(bigg, set())) | ids
        return found

    def by_stoichiometry(self, bigg_ids: Iterable[str]) -> dict[str, set[str]]:
        reactions = {b: self.bigg_reactions[b] for b in bigg_ids if b in self.bigg_reactions}
        names = {SAME_AS.get(n, n) for coefficients in reactions.values() for n in
                 (m.rsplit("_", 1)[0] for m in coefficients)}
        compounds = self.aliases.compound_ids_for_external("BiGG", names)
        result: dict[str, set[str]] = {}
        for bigg, coefficients in reactions.items():
            converted: dict[tuple[str, str], float] = {}
            for metabolite, value in coefficients.items():
                name, _, compartment = metabolite.rpartition("_")
                name = SAME_AS.get(name, name)
                if compartment not in COMPARTMENTS or name not in compounds:
                    break
                place = (compounds[name], COMPARTMENTS[compartment])
                converted[place] = converted.get(place, 0.0) + value
            else:
                key = _key(converted)
                if key and key in self.index:
                    result[bigg] = set(self.index[key])
        self.matched.update(result)
        return result


def _key(coefficients: Mapping[tuple[str, str], float]) -> Key:
    """The reaction without protons and zero terms, the same for both directions (empty: nothing)."""
    kept = {place: round(value, 3) for place, value in coefficients.items()
            if place[0] != PROTON and abs(value) > 1e-9}
    forward = tuple(sorted(kept.items()))
    backward = tuple(sorted((place, -value) for place, value in kept.items()))
    return min(forward, backward)
