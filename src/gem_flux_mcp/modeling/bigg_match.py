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

Enzyme-bound FAD: some reference models split one flavoprotein into two reactions with free FADH2
between them — B. subtilis' succinate dehydrogenase is SUCD1 (succinate + FAD → fumarate + FADH2)
and SUCD5_BS (FADH2 + menaquinone-7 → FAD + menaquinol-7), both on sdhCAB. The templates have the
first (rxn00288) but reoxidise free FADH2 only with ubiquinone, so a menaquinone organism could
not run its TCA cycle from succinate on. Where one enzyme of a reference model makes FADH2 in one
of its reactions and uses it in another, the sum of the two (here succinate + menaquinone ⇌
fumarate + menaquinol, rxn08527) is also looked up, and matches the reaction that uses the FADH2.
Other models write the enzyme's FAD beside the quinone in one reaction: S. aureus' succinate
dehydrogenase (iYS854 SUCD2: succinate + FAD + menaquinone-7 → fumarate + FADH2 + menaquinol-7,
two electron pairs from one) is B. subtilis' best hit once iYO844 is left out, and matched nothing,
so the strain had no succinate dehydrogenase and grew on no TCA-cycle carbon source. A reaction
that reduces FAD and a quinone together is also looked up without the FAD (`without_bound_fad`).

Stereo variants: ModelSEED keeps some compounds twice, with and without a stereo layer, and its
BiGG alias may name the one no template reaction uses (BiGG's L-cystathionine is cpd19019, the
templates' cystathionine cpd00424). A compound the template does not use is read as the one
template compound of the same structure (the InChIKey's first block), when there is exactly one
(`StoichiometricAliases.in_template`); anomers are in SAME_AS.

Enzymes outside the cell: a reference reaction whose compounds are all in the periplasm or outside
and which changes them (not a porin) is catalysed there, if its compounds also occur outside the
cell in BiGG (they pass porins or come from a medium) — E. coli's periplasmic nucleotidases
(UshA, CpdB), glucose-1-phosphatase (Agp) and phytase (AppA), B. subtilis' secreted amylase. The
templates hold such chemistry only in the cytosol, and ModelSEED's aliases ignore compartments,
so these reactions used to land in the cytosol, where they do not happen, and organic phosphates
and sugars that the cell breaks down outside had no way in. They are now matched, by
stoichiometry only, to the cytosolic template reaction with the same chemistry and returned as
`<id>_e` (see `template_reaction_id`): the build adds a copy of that reaction in e0. Periplasmic
chemistry on envelope compounds that never occur outside (lipids, murein, lipopolysaccharide)
keeps its cytosolic match: the two-compartment templates build the envelope in the cytosol.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, TypeVar, cast

PROTON = "cpd00067"
COMPARTMENTS = {"c": "c", "p": "e", "e": "e"}  # BiGG compartment -> template compartment
# BiGG compound -> the one it is matched as. BiGG's [4Fe-4S] ferredoxin (fdxo_42/fdxr_42) carries an
# electron pair, as ModelSEED's cpd11621/cpd11620 do in the templates (data/template_fixes.py); their
# aliases name BiGG's one-electron fdxox/fdxrd
SAME_AS = {"mql7": "mql8", "mqn7": "mqn8", "fdxo_42": "fdxox", "fdxr_42": "fdxrd",
           # anomers, which ModelSEED's aliases and templates do not tell apart (they interconvert
           # in water); L. lactis' galactokinase (iNF517 GALK2) phosphorylates alpha-D-galactose
           "a_gal__D": "gal", "glc__aD": "glc__D", "glc__bD": "glc__D", "a_D_glucose": "glc__D",
           "b_D_glucose": "glc__D", "g6p_A": "g6p", "g6p_B": "g6p", "fru_B": "fru"}
BOUND_CARRIER = "fadh2_c"  # made and used by one enzyme: not a free pool
OXIDISED_CARRIER = "fad_c"
# BiGG quinones (oxidised -> reduced): an enzyme reducing one of these and FAD at once holds the FAD
QUINONES = {"mqn7": "mql7", "mqn8": "mql8", "q8": "q8h2", "2dmmq8": "2dmmql8"}
OUTSIDE = "_e"  # suffix of a matched id whose cytosolic template reaction runs outside the cell
Key = tuple[tuple[tuple[str, str], float], ...]
T = TypeVar("T")


class Aliases(Protocol):
    def reaction_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, set[str]]: ...

    def compound_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, str]: ...

    def reaction_details(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]: ...

    def transport_reactions(self) -> list[tuple[str, str, str, str]]: ...

    def compounds_by_ids(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]: ...

    def __hash__(self) -> int: ...  # database_transport.database_index keeps one index per database


class Rule(Protocol):
    @property
    def model(self) -> str: ...

    @property
    def reaction(self) -> str: ...

    @property
    def subunits(self) -> tuple[str, ...]: ...


class _SameObjects:
    """What was computed from objects a process keeps loaded (the reference's parsed files, a
    template): given again for the very same objects, the last few. The objects are held, so
    their ids are not reused while an entry lives. Results are shared: callers do not change them."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self.entries: list[tuple[tuple[object, ...], Any]] = []
        self.lock = threading.Lock()

    def get(self, objects: tuple[object, ...], compute: Callable[[], T]) -> T:
        with self.lock:
            for key, value in self.entries:
                if len(key) == len(objects) and all(a is b for a, b in zip(key, objects, strict=True)):
                    return cast(T, value)
        value = compute()
        with self.lock:
            self.entries = [(objects, value), *self.entries][:self.size]
        return value


_CARRIER_PAIRS = _SameObjects()
_TEMPLATE_INDEXES = _SameObjects()
_FOUND_OUTSIDE = _SameObjects()
_TEMPLATE_SKELETONS = _SameObjects()


def bound_carrier_pairs(bigg_reactions: Mapping[str, Mapping[str, float]],
                        rules: Mapping[str, Iterable[Rule]]) -> dict[str, set[str]]:
    """BiGG reaction that uses FADH2 → the reactions making it on the same enzyme (same model, same
    subunits) in some reference model (~0.4 s for the whole reference: once per process and
    reference)."""
    return _CARRIER_PAIRS.get((bigg_reactions, rules), lambda: _bound_carrier_pairs(bigg_reactions, rules))


def _bound_carrier_pairs(bigg_reactions: Mapping[str, Mapping[str, float]],
                         rules: Mapping[str, Iterable[Rule]]) -> dict[str, set[str]]:
    by_enzyme: dict[tuple[str, tuple[str, ...]], set[str]] = defaultdict(set)
    for gene_rules in rules.values():
        for rule in gene_rules:
            by_enzyme[(rule.model, rule.subunits)].add(rule.reaction)
    pairs: dict[str, set[str]] = defaultdict(set)
    for reactions in by_enzyme.values():
        made = [r for r in reactions if bigg_reactions.get(r, {}).get(BOUND_CARRIER, 0.0) > 0]
        for user in reactions:
            if bigg_reactions.get(user, {}).get(BOUND_CARRIER, 0.0) < 0:
                pairs[user].update(made)
    return dict(pairs)


def _template_index(template: Any) -> tuple[set[str], dict[Key, set[str]], dict[Key, set[str]]]:
    """The template's reaction ids, its reactions by stoichiometry, and its cytosolic ones by the
    same chemistry written outside the cell."""
    index: dict[Key, set[str]] = defaultdict(set)
    outside_index: dict[Key, set[str]] = defaultdict(set)
    for reaction in template.reactions:
        coefficients: dict[tuple[str, str], float] = {}
        for metabolite, value in reaction.metabolites.items():
            compound, compartment = metabolite.id.rsplit("_", 1)
            place = (compound, compartment[0])
            coefficients[place] = coefficients.get(place, 0.0) + float(value)
        key = stoichiometry_key(coefficients)
        if key:
            index[key].add(reaction.id.rsplit("_", 1)[0])
        if key and all(place[1] == "c" for place in coefficients):
            outside = stoichiometry_key({(compound, "e"): value for (compound, _), value in coefficients.items()})
            outside_index[outside].add(reaction.id.rsplit("_", 1)[0] + OUTSIDE)
    return {r.id for r in template.reactions}, dict(index), dict(outside_index)


class StoichiometricAliases:
    """ModelSEED's BiGG reaction aliases, completed by stoichiometry for the BiGG reactions whose
    aliases miss the template (same interface as the biochemistry index)."""

    def __init__(self, aliases: Aliases, bigg_reactions: Mapping[str, Mapping[str, float]], template: Any,
                 carrier_pairs: Mapping[str, set[str]] | None = None) -> None:
        self.aliases = aliases
        self.bigg_reactions = bigg_reactions
        self.carrier_pairs = carrier_pairs or {}
        self.found_outside: set[str] = _FOUND_OUTSIDE.get((bigg_reactions,), lambda: {
            m.rpartition("_")[0] for coefficients in bigg_reactions.values() for m in coefficients if m.endswith("_e")})
        self.template_ids, self.index, self.outside_index = _TEMPLATE_INDEXES.get(
            (template,), lambda: _template_index(template))
        # the template's compounds by structure: built with the rest here, so a worker's warm-up
        # (build.load_shared_inputs) pays for it, not its first build (~0.2-0.4 s)
        self.template_compounds, self.by_skeleton = _TEMPLATE_SKELETONS.get(
            (template, aliases), lambda: _template_skeletons(template, aliases))
        self.matched: dict[str, set[str]] = {}  # BiGG id -> ModelSEED ids found by stoichiometry

    def compound_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, str]:
        return self.aliases.compound_ids_for_external(source, values)

    def reaction_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, set[str]]:
        wanted = set(values)
        found = self.aliases.reaction_ids_for_external(source, wanted)
        if source != "BiGG":
            return found
        outside = {b for b in wanted if _is_outside_chemistry(self.bigg_reactions.get(b, {}), self.found_outside)}
        for bigg in outside:  # their aliases name the cytosolic reaction
            found.pop(bigg, None)
        missing = {b for b in wanted if not any(f"{r}_c" in self.template_ids for r in found.get(b, ()))
                   or any(m.rsplit("_", 1)[0] in SAME_AS for m in self.bigg_reactions.get(b, {}))}
        for bigg, ids in self.by_stoichiometry(missing).items():
            found[bigg] = set(found.get(bigg, set())) | ids
        for bigg, ids in self.lumped(wanted).items():
            found[bigg] = set(found.get(bigg, set())) | ids
        return found

    def lumped(self, bigg_ids: Iterable[str]) -> dict[str, set[str]]:
        """Template reactions matching a FADH2 user summed with a FADH2 maker of the same enzyme."""
        result: dict[str, set[str]] = {}
        for user in bigg_ids:
            for maker in sorted(self.carrier_pairs.get(user, ())):
                total = dict(self.bigg_reactions[user])
                for metabolite, value in self.bigg_reactions[maker].items():
                    total[metabolite] = total.get(metabolite, 0.0) + value
                name = f"{user}+{maker}"
                for ids in self._by_stoichiometry({name: total}).values():
                    result.setdefault(user, set()).update(ids)
                    self.matched.setdefault(name, set()).update(ids)
        return result

    def by_stoichiometry(self, bigg_ids: Iterable[str]) -> dict[str, set[str]]:
        result = self._by_stoichiometry({b: self.bigg_reactions[b] for b in bigg_ids if b in self.bigg_reactions})
        self.matched.update(result)
        return result

    def _by_stoichiometry(self, reactions: Mapping[str, Mapping[str, float]]) -> dict[str, set[str]]:
        result = self._looked_up(reactions)
        bare = {name: found for name, coefficients in reactions.items()
                if name not in result and (found := without_bound_fad(coefficients)) is not None}
        return {**result, **self._looked_up(bare)} if bare else result

    def _looked_up(self, reactions: Mapping[str, Mapping[str, float]]) -> dict[str, set[str]]:
        result: dict[str, set[str]] = {}
        for bigg, converted in self.in_modelseed(reactions).items():
            key = stoichiometry_key(converted)
            if key and key in self.index:
                result[bigg] = set(self.index[key])
            elif key and key in self.outside_index:
                result[bigg] = set(self.outside_index[key])
        return result

    def in_template(self, compounds: Mapping[str, str]) -> dict[str, str]:
        """BiGG compound -> ModelSEED compound, where the alias names a compound the template does not
        use and the template has exactly one of the same structure by InChIKey (ModelSEED keeps
        stereo variants apart: BiGG's L-cystathionine is cpd19019, the template's cystathionine
        cpd00424, so E. coli's cystathionine gamma-synthase (SHSL1) matched nothing), that one."""
        foreign = {cid for cid in compounds.values() if cid not in self.template_compounds}
        records = self.aliases.compounds_by_ids(foreign) if foreign else {}
        result = dict(compounds)
        for name, cid in compounds.items():
            if cid in foreign:
                same = self.by_skeleton.get(_skeleton(records.get(cid, {}).get("inchikey")) or "", set())
                if len(same) == 1:
                    result[name] = next(iter(same))
        return result

    def in_modelseed(self, reactions: Mapping[str, Mapping[str, float]]) -> dict[str, dict[tuple[str, str], float]]:
        """BiGG reactions written in ModelSEED compounds, {(compound, 'c' or 'e'): coefficient}, the
        periplasm taken as the outside; those with a compartment or compound without counterpart
        left out."""
        names = {SAME_AS.get(n, n) for coefficients in reactions.values() for n in
                 (m.rsplit("_", 1)[0] for m in coefficients)}
        compounds = self.in_template(self.aliases.compound_ids_for_external("BiGG", names))
        result: dict[str, dict[tuple[str, str], float]] = {}
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
                result[bigg] = converted
        return result


def without_bound_fad(coefficients: Mapping[str, float]) -> dict[str, float] | None:
    """A reaction that reduces FAD and a quinone at once, without the FAD (the enzyme's own,
    written as free); None for any other reaction."""
    fad = coefficients.get(OXIDISED_CARRIER, 0.0)
    if fad >= 0 or coefficients.get(BOUND_CARRIER, 0.0) != -fad:
        return None
    if not any(coefficients.get(f"{oxidised}_c", 0.0) < 0 < coefficients.get(f"{reduced}_c", 0.0)
               for oxidised, reduced in QUINONES.items()):
        return None
    return {m: v for m, v in coefficients.items() if m not in (OXIDISED_CARRIER, BOUND_CARRIER)}


def _skeleton(inchikey: Any) -> str | None:
    """The first block of an InChIKey: the structure without stereochemistry."""
    return inchikey.split("-")[0] if isinstance(inchikey, str) and len(inchikey) > 14 else None


def _template_skeletons(template: Any, aliases: Aliases) -> tuple[set[str], dict[str, set[str]]]:
    """The template's compounds, and those compounds by structure without stereochemistry."""
    compounds = {m.id.rsplit("_", 1)[0] for reaction in template.reactions for m in reaction.metabolites}
    by_skeleton: dict[str, set[str]] = defaultdict(set)
    for cid, record in aliases.compounds_by_ids(compounds).items():
        if (skeleton := _skeleton(record.get("inchikey"))) is not None:
            by_skeleton[skeleton].add(cid)
    return compounds, dict(by_skeleton)


def template_reaction_id(matched_id: str) -> str:
    """The template reaction a matched ModelSEED id stands for: `rxn00001` → `rxn00001_c`; an
    outside copy keeps its suffix (`rxn00001_e`, the cytosolic `rxn00001_c` run in e0)."""
    return matched_id if matched_id.endswith(OUTSIDE) else f"{matched_id}_c"


def inside_id(template_id: str) -> str:
    """The cytosolic template reaction behind a template reaction id or an outside copy's id."""
    return template_id[: -len(OUTSIDE)] + "_c" if template_id.endswith(OUTSIDE) else template_id


def _is_outside_chemistry(coefficients: Mapping[str, float], found_outside: set[str]) -> bool:
    """All compounds in the periplasm or outside and known outside the cell, and some compound made
    or used (not a porin)."""
    if not coefficients or not all(m.rpartition("_")[2] in ("p", "e") and m.rpartition("_")[0] in found_outside
                                   for m in coefficients):
        return False
    net: dict[str, float] = defaultdict(float)
    for metabolite, value in coefficients.items():
        net[metabolite.rpartition("_")[0]] += value
    return any(abs(value) > 1e-9 for value in net.values())


def stoichiometry_key(coefficients: Mapping[tuple[str, str], float]) -> Key:
    """The reaction without protons and zero terms, the same for both directions (empty: nothing)."""
    kept = {place: round(value, 3) for place, value in coefficients.items()
            if place[0] != PROTON and abs(value) > 1e-9}
    forward = tuple(sorted(kept.items()))
    backward = tuple(sorted((place, -value) for place, value in kept.items()))
    return min(forward, backward)
