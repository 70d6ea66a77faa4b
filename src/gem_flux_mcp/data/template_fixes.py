"""Corrections applied to every ModelSEED template as it is parsed, each with its reason.

All were measured on the development organisms before they were kept (benchmarks/HISTORY.md):
- `UNSOUND_REACTIONS`: left out; their stoichiometry makes mass from nothing.
- Ferredoxin counted per electron: the templates' ferredoxin (cpd11620 reduced, cpd11621
  oxidised; charges +4 / +6 in the database) carries an electron pair, and the charge-balanced
  ferredoxin reactions use one per pair (pyruvate:ferredoxin oxidoreductase, ferredoxin:NAD(P)
  oxidoreductases, sulfite reductase). A few count one per electron (nitrogenase, ferredoxin
  nitrite reductase, and the Core-V5.2 template, whose ferredoxin carries one); together with the
  others they make electrons, and so energy, from nothing. With the database's charges, a reaction whose charge is
  off and balances with half its ferredoxins gets half.
- `WRONG_COMPLEXES`: a role that names another enzyme, taken off a reaction.
- `DIRECTION_FIXES`: a direction the template forbids or allows against what the database's
  thermodynamics or the enzyme's known role says.
- `ADDED_REACTIONS`: database reactions the genome-scale templates lack, written in the templates'
  compounds. Only genome evidence brings them: drafts reach them through homology (no complex
  names them), and gapfilling is never offered them (no gapfill direction), so a model makes H2
  only where its genome has a hydrogenase.
"""

from __future__ import annotations

from typing import Any

# All are 'gapfilling' reactions of the GramNegative, GramPositive and Core templates (no complex:
# a draft only gets them from BiGG homology). Each differs from the BiGG reaction ModelSEED aliases
# it to (iML1515) by water, or is short of a hydrogen, and together with correct template reactions
# it makes water or protons from nothing; e.g. rxn08929 + rxn08939 turn murein4p3p into D-alanine +
# 2 anhgm3p, while rxn08938 + rxn08077 (which agree with BiGG) take a water for it.
UNSOUND_REACTIONS: dict[str, str] = {
    "rxn08887": "murein crosslinking transpeptidase 1A releases water; transpeptidation does not (BiGG MCTP1App)",
    "rxn08888": "murein crosslinking transpeptidase 1B releases water; transpeptidation does not (BiGG MCTP1Bpp)",
    "rxn08895": "murein D,D-endopeptidase (murein4px4p) uses two waters for one peptide bond (BiGG MDDEP1pp: one)",
    "rxn08897": "murein D,D-endopeptidase (murein5px4p) uses two waters for one peptide bond (BiGG MDDEP3pp: one)",
    "rxn08931": "murein L,D-endopeptidase (murein3px3p) uses two waters for one peptide bond (BiGG MLDEP1pp: one)",
    "rxn08932": "murein L,D-endopeptidase (murein5px3p) uses two waters for one peptide bond (BiGG MLDEP2pp: one)",
    "rxn08939": "murein lytic transglycosylase (murein3p3p) releases water; the transglycosylation is "
                "intramolecular (BiGG MLTGY3pp), as in the template's rxn08937/rxn08938",
    "rxn10937": "KAS_HP, 3-oxoacyl-ACP synthase and reductase lumped, loses a hydrogen (by the template's own "
                "formulas) and releases one proton less than its two steps rxn05344 + rxn05336, which stay",
}

# reaction -> (direction, why): "=" both ways, ">" forward only, "<" backward only
DIRECTION_FIXES: dict[str, tuple[str, str]] = {
    "rxn05938": ("=", "pyruvate:ferredoxin oxidoreductase is written only as the reductive carboxylation "
                      "(acetyl-CoA + CO2 -> pyruvate); the database leaves its direction open, and in "
                      "clostridia, Bacteroides and other anaerobes it is the enzyme that oxidises pyruvate "
                      "to acetyl-CoA, reducing ferredoxin"),
    "rxn13974": ("=", "the Core template's pyruvate:ferredoxin oxidoreductase, as rxn05938"),
    "rxn05893": ("<", "ferredoxin nitrite reductase reduces nitrite to ammonia; written both ways it oxidises "
                      "ammonia, which the NAD(P)H form (rxn00568, dG'0 +94 kcal/mol that way) rules out"),
    "rxn03978": ("<", "cytochrome c nitrite reductase (NrfA, EC 1.7.2.2, 'ammonia:ferricytochrome-c "
                      "oxidoreductase') reduces nitrite to ammonia; written both ways it oxidises ammonia with "
                      "cytochrome c, an energy source no heterotroph has (ammonia oxidisers start with ammonia "
                      "monooxygenase and O2)"),
    "rxn14427": (">", "the cytochrome c nitrate reductase that translocates protons reduces nitrate; gapfilling "
                      "offered it backwards too, oxidising nitrite with cytochrome c while pumping protons out, "
                      "which makes energy from nitrite (B. subtilis gained growth on L-methionine from it)"),
    "rxn06874": (">", "nitrogenase reduces N2 to ammonia, spending 16 ATP; the templates allow it both ways, and "
                      "run backwards it makes 16 ATP by oxidising ammonia to N2 with ferredoxin: fitting B. "
                      "subtilis to its Biolog plate let 17 of its wells grow on that energy"),
    "rxn00157": ("<", "pyruvate formate-lyase cleaves pyruvate to acetyl-CoA and formate (EC 2.3.1.54); the "
                      "templates write it so but let gapfilling add the reverse, pyruvate made from acetyl-CoA "
                      "and formate, which curated models leave out (iML1515's PFL is irreversible) and no wild "
                      "type is known to use: with it, B. subtilis grew on acetate without a glyoxylate shunt and "
                      "on L-methionine, which it does not"),
}

# the database's charges: an electron pair apart (the Core-V5.2 template gives the reduced form +5)
FERREDOXIN = {"cpd11620": 4.0, "cpd11621": 6.0}

# reaction -> (complex, why): a complex that does not catalyse the reaction, taken off it
WRONG_COMPLEXES: dict[str, tuple[str, str]] = {
    "rxn04043": ("cpx32729", "ribokinase (EC 2.7.1.15) is the only role of the complex that brings ADP-dependent "
                             "phosphofructokinase (EC 2.7.1.146) to every genome with a ribokinase; run backwards it "
                             "turns fructose-1,6-bisphosphate and AMP into ADP, a phosphatase that makes ATP"),
    "rxn00257": ("cpx32133", "levansucrase (EC 2.4.1.10, sucrose -> levan) is not ATP-citrate lyase (EC 2.3.3.8); "
                             "every levan-making genome (Zymomonas mobilis, Bacillus) got an ATP-citrate lyase, "
                             "which with citrate lyase turns acetyl-CoA into acetate and ATP, a pathway Z. mobilis "
                             "lacks"),
    "rxn00503": ("cpx00184", "succinyl-CoA ligase (EC 6.2.1.4) is not 1-pyrroline-5-carboxylate dehydrogenase "
                             "(EC 1.5.1.12)"),
    "rxn02818": ("cpx35580", "tyrosine-tRNA ligase (EC 6.1.1.1), in every genome, is not benzyl-thiocyanate isomerase"),
    "rxn03485": ("cpx35583", "aspartate-tRNA ligase (EC 6.1.1.12), in every genome, is not a chromene isomerase"),
    "rxn03581": ("cpx31600", "photosystem I (EC 1.97.1.12) is not a prenyltransferase (EC 2.5.1.-)"),
    "rxn06893": ("cpx31600", "photosystem I (EC 1.97.1.12) is not a prenyltransferase (EC 2.5.1.-)"),
    "rxn05071": ("cpx35512", "23S rRNA pseudouridine synthase (EC 5.4.99.20) is not squalene mutase (EC 4.2.1.129)"),
    "rxn07454": ("cpx35336", "alanine racemase (EC 5.1.1.1) is not phenylacetaldehyde-oxime dehydratase (EC 4.99.1.7)"),
    "rxn09244": ("cpx33140", "carboxylesterase (EC 3.1.1.1) is not selenocysteine synthase (EC 2.9.1.1)"),
}

ADDED_REACTIONS: list[dict[str, Any]] = [
    {
        "id": "rxn05759",
        "name": "hydrogen:ferredoxin oxidoreductase",
        "direction": "=",
        "reagents": {"cpd11620": -1, "cpd00067": -2, "cpd11621": 1, "cpd11640": 1},
        "why": "the ferredoxin hydrogenase with which fermenting anaerobes dispose of the electrons of "
               "pyruvate oxidation as H2; in the ATP-test template Core-V5.2 (both ways) but not in the "
               "genome-scale ones, so homology to a hydrogenase had nothing to add",
    },
    {
        "id": "rxn16350",
        "name": "hydrogen:NAD+, ferredoxin oxidoreductase (electron-bifurcating hydrogenase)",
        "direction": "=",
        "reagents": {"cpd00003": -1, "cpd11621": -1, "cpd11640": -2, "cpd00004": 1, "cpd00067": 3, "cpd11620": 1},
        "why": "the electron-bifurcating [FeFe] hydrogenase (HydABC) with which anaerobes make H2 from NADH "
               "and reduced ferredoxin together; the database writes two ferredoxins, unbalanced in "
               "charge (status CI:-2), so it is written with one",
    },
]


def apply_template_fixes(content: dict[str, Any], add_reactions: bool = True) -> dict[str, Any]:
    """A template's JSON content with the corrections applied (changed in place and returned).
    `add_reactions=False` for the ATP-test template (Core-V5.2): its yields are the reference the
    ATP tests hold models to, and there the bifurcating hydrogenase closes a cycle that makes ATP
    from nothing with the methanogenesis and ferredoxin reactions it carries."""
    for compound in content.get("compcompounds", []):
        if _base(compound.get("id")) in FERREDOXIN:
            compound["charge"] = FERREDOXIN[_base(compound["id"])]
    charges = {c.get("id"): float(c.get("charge") or 0.0) for c in content.get("compcompounds", [])}
    reactions = [r for r in content["reactions"] if _base(r.get("id")) not in UNSOUND_REACTIONS]
    for reaction in reactions:
        _count_ferredoxin_per_pair(reaction, charges)
        wrong = WRONG_COMPLEXES.get(_base(reaction.get("id")))
        if wrong is not None:
            reaction["templatecomplex_refs"] = [c for c in reaction.get("templatecomplex_refs", [])
                                                if str(c).rsplit("/", 1)[-1] != wrong[0]]
        fix = DIRECTION_FIXES.get(_base(reaction.get("id")))
        if fix is not None:
            _set_direction(reaction, fix[0])
            reaction["GapfillDirection"] = fix[0]
    present = {r.get("id") for r in reactions}
    for added in ADDED_REACTIONS if add_reactions else []:
        reaction_id = f"{added['id']}_c"
        if reaction_id not in present and all(f"{c}_c" in charges for c in added["reagents"]):
            reactions.append(_template_reaction(reaction_id, added))
    content["reactions"] = reactions
    return content


def _base(identifier: object) -> str:
    """`rxn05938_c` -> `rxn05938`, `cpd11620_c` -> `cpd11620`."""
    return str(identifier or "").rsplit("_", 1)[0]


def _compound(reagent: dict[str, Any]) -> str:
    return str(reagent["templatecompcompound_ref"]).rsplit("/", 1)[-1]


def _count_ferredoxin_per_pair(reaction: dict[str, Any], charges: dict[str, float]) -> None:
    reagents = reaction["templateReactionReagents"]
    ferredoxins = [r for r in reagents if _base(_compound(r)) in FERREDOXIN]
    if not ferredoxins:
        return

    def imbalance(halve: bool) -> float:
        share = {id(r): 0.5 if halve else 1.0 for r in ferredoxins}
        return sum(float(r["coefficient"]) * share.get(id(r), 1.0) * charges.get(_compound(r), 0.0) for r in reagents)

    if abs(imbalance(False)) > 1e-6 and abs(imbalance(True)) < 1e-6:
        for r in ferredoxins:
            r["coefficient"] = float(r["coefficient"]) / 2


def _set_direction(reaction: dict[str, Any], direction: str) -> None:
    reaction["direction"] = direction
    reaction["lower_bound"] = -1000 if direction in ("=", "<") else 0
    reaction["upper_bound"] = 1000 if direction in ("=", ">") else 0
    reaction["maxrevflux"] = 1000 if direction in ("=", "<") else 0
    reaction["maxforflux"] = 1000 if direction in ("=", ">") else 0


def _template_reaction(reaction_id: str, added: dict[str, Any]) -> dict[str, Any]:
    reaction: dict[str, Any] = {
        "id": reaction_id, "name": added["name"], "GapfillDirection": "", "base_cost": 6,
        "forward_penalty": 0, "reverse_penalty": 0, "type": "gapfilling",
        "reaction_ref": f"kbase/default/reactions/id/{added['id']}",
        "templatecompartment_ref": "~/compartments/id/c", "templatecomplex_refs": [],
        "templateReactionReagents": [
            {"coefficient": coefficient, "templatecompcompound_ref": f"~/compcompounds/id/{compound}_c"}
            for compound, coefficient in added["reagents"].items()
        ],
    }
    _set_direction(reaction, added["direction"])
    return reaction
