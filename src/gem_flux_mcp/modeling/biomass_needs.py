"""What a draft's biomass asks for: what a cell cannot grow without, not everything it may contain.

A compound in the biomass reaction is a compound the model must make (or take up) to grow, so
every gene on its only route is predicted essential. ModelSEED's template biomasses list
compounds that cells contain but can live without, and the genes that make them come out as false
"essential" calls. Two corrections, both also in CarveMe's universal biomasses:

- **Lipopolysaccharide** (`require_essential_lps`). The GramNegative biomass demands core
  oligosaccharide lipid A (cpd15432: lipid A with the inner and outer core sugars), so every gene
  of heptose synthesis, of the core glycosyl- and heptosyltransferases (waa) and the late
  acyltransferases (lpxL, lpxM) is essential in a draft. "Deep rough" E. coli mutants without the
  core grow; what cells cannot do without is Kdo2-lipid IVA (lipid A synthesis, lpxA/C/D/H/B/K; the
  Kdo sugars, kdsA/B, waaA). iML1515's core biomass asks for that molecule, and so does the draft's
  (cpd03586), in the same mass per gram of cell.
- **Cofactors cells live without** (`drop_dispensable_cofactors`): glutathione (E. coli gshA/gshB
  mutants grow; Bacillus makes none, it uses bacillithiol), spermidine and putrescine
  (polyamine-free speA/B/D/E mutants grow), cobamide (cpd00166, assembled from cobinamide:
  E. coli neither makes nor needs B12, its methionine synthase MetE works without), sulfate (the
  templates list it with the ions; a cell's sulfur is in cysteine, methionine and what is made
  from them, all from sulfide, and a required sulfate pool stopped growth on every other sulfur
  source, such as E. coli on cysteine or glutathione on Biolog's sulfur plate), and, for the
  GramPositive template, ubiquinone-8 (Firmicutes and Actinobacteria respire with menaquinone
  and make no ubiquinone) and siroheme (cpd00557: the prosthetic group of sulfite and nitrite
  reductases only, needed where sulfate or nitrite is reduced, not a part of the cell the model can
  tie to those reactions; many Firmicutes make none, and CarveMe's Gram-positive biomass has none.
  Asked for, it made every gene from glutamyl-tRNA to uroporphyrinogen III "essential" for B.
  subtilis on LB, where hemA, hemB, hemC and hemL mutants grow). The remaining cofactors keep
  the cofactors' mass share: ModelSEEDpy splits it into equal moles, and so does this, over fewer
  compounds.

- **Branched-chain lipids** (`straight_chain_lipids`). Both templates' biomasses take their lipids
  from B. subtilis: six of the nine phospholipid species (and, Gram-positive, eight of the twelve
  lipoteichoic acids) carry iso- or anteiso-heptadecanoyl chains, made from the 2-oxo acids of
  leucine, isoleucine and valine by the branched-chain 2-oxo acid dehydrogenase (BKD, bkd operon).
  A genome without BKD (E. coli, the lactic acid bacteria) makes straight-chain fatty acids only,
  and gapfilling added the whole methyl-branched pathway, about 60 reactions without genes, to
  make them. Without a gene-backed BKD reaction, each branched species is replaced by the
  straight-chain (stearoyl) species of its class, gram for gram.

  With a gene-backed BKD (`either_chain_lipids`), each branched species in the biomass becomes a
  pool the cell fills with it or with the straight-chain species of its class, gram for gram: two
  gene-less reactions per species (`branched -> pool`, `straight -> pool`) that only the biomass
  uses. Gram-positives with BKD grow without it, on straight chains: B. subtilis bkd mutants on LB
  (the essentiality data), Listeria and S. aureus bkd mutants; asked for, the branched species
  made bkdA1, bkdA2, bkdB and lpdV false "essential" genes of B. subtilis.

- **Menaquinone's chain length** (`either_chain_menaquinones`). The biomasses ask for menaquinone-8
  and 2-demethylmenaquinone-8, E. coli's octaprenyl quinones. B. subtilis and most Firmicutes make
  MK-7 (heptaprenyl), and the templates hold that branch too (1,4-dihydroxy-2-naphthoate
  heptaprenyltransferase, MenA, and the MK-7 methyltransferase and respiratory reactions). Asked
  for MK-8, gapfilling added the octaprenyl branch without genes beside B. subtilis' own, and menA
  (essential on LB) came out dispensable. With a gene for the heptaprenyltransferase, each MK-8
  species in the biomass becomes a pool filled with it or its MK-7 form, gram for gram, as the
  lipid pools below.
Compounds dropped from the biomass are still made where the genes allow; they are just not
required for growth.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .translation import template_metabolite

if TYPE_CHECKING:
    import cobra

FULL_CORE = "cpd15432"  # core oligosaccharide lipid A
ESSENTIAL_LPS = "cpd03586"  # Kdo2-lipid IV(A)
ENVELOPE_NOTE = "gemflux_essential_lps"  # note on the biomass reaction: what was replaced
DISPENSABLE = ("cpd00042", "cpd00264", "cpd00118", "cpd00166",  # glutathione, spermidine, putrescine, cobamide
               "cpd00048")  # sulfate
NOT_IN_GRAM_POSITIVES = ("cpd15560", "cpd00557")  # ubiquinone-8, siroheme
COFACTORS_NOTE = "gemflux_dropped_cofactors"
# branched-chain 2-oxo acid dehydrogenase: from 3-methyl-2-oxobutanoate (valine), 4-methyl-2-oxopentanoate
# (leucine) and 3-methyl-2-oxopentanoate (isoleucine) to the primers of iso- and anteiso-fatty acids
BRANCHED_CHAIN_DEHYDROGENASE = ("rxn00899", "rxn01207", "rxn02269")
# iso- or anteiso-heptadecanoyl species -> the stearoyl species of the same class
STRAIGHT_CHAIN = {
    "cpd15794": "cpd15793", "cpd15795": "cpd15793",  # cardiolipin
    "cpd15722": "cpd15540", "cpd15723": "cpd15540",  # phosphatidylglycerol
    "cpd15695": "cpd15533", "cpd15696": "cpd15533",  # phosphatidylethanolamine
    # lipoteichoic acids: unsubstituted, glucose, N-acetylglucosamine, D-alanine substituted
    "cpd15749": "cpd15748", "cpd15750": "cpd15748", "cpd15758": "cpd15757", "cpd15759": "cpd15757",
    "cpd15767": "cpd15766", "cpd15768": "cpd15766", "cpd15776": "cpd15775", "cpd15777": "cpd15775",
}
# menaquinone-8 and 2-demethylmenaquinone-8 (the templates' biomass) -> their heptaprenyl (MK-7) forms
MENAQUINONE_7 = {"cpd15500": "cpd11606", "cpd15352": "cpd11425"}
HEPTAPRENYL_TRANSFERASE = "rxn05267"  # 1,4-dihydroxy-2-naphthoate + heptaprenyl diphosphate -> DMK-7
QUINONES_NOTE = "gemflux_either_chain_menaquinones"  # on the biomass: the MK-8 species made pools
LIPIDS_NOTE = "gemflux_straight_chain_lipids"
EITHER_NOTE = "gemflux_either_chain_lipids"  # on the biomass: the branched species made pools
BIOMASS_PART = "gemflux_biomass_part"  # on a pool's filling reaction: it only feeds the biomass


def require_essential_lps(model: cobra.Model, template: Any, biomass_id: str = "bio1", index: str = "0") -> bool:
    """Let the biomass ask for Kdo2-lipid IVA instead of the full LPS core, gram for gram.
    Returns False (nothing changed) when the biomass has no full core or it was replaced already."""
    full = f"{FULL_CORE}_c{index}"
    if biomass_id not in model.reactions or full not in model.metabolites:
        return False
    biomass = model.reactions.get_by_id(biomass_id)
    core = model.metabolites.get_by_id(full)
    coefficient = biomass.metabolites.get(core, 0.0)
    if coefficient >= 0 or ENVELOPE_NOTE in biomass.notes:
        return False
    essential = template_metabolite(model, template, ESSENTIAL_LPS, index)
    if not core.formula_weight or not essential.formula_weight:
        return False
    grams = coefficient * core.formula_weight
    biomass.add_metabolites({core: -coefficient, essential: grams / essential.formula_weight})
    biomass.notes[ENVELOPE_NOTE] = f"{FULL_CORE} -> {ESSENTIAL_LPS}"
    return True


def drop_dispensable_cofactors(model: cobra.Model, template: Any, gram_positive: bool,
                               biomass_id: str = "bio1", index: str = "0") -> list[str]:
    """Take the dispensable cofactors out of the biomass (with the by-products the template links
    to them) and give their mass to the other cofactors in equal moles. Returns the compounds
    taken out ([] when there is nothing to do)."""
    if biomass_id not in model.reactions or not template.biomasses:
        return []
    biomass = model.reactions.get_by_id(biomass_id)
    if COFACTORS_NOTE in biomass.notes:
        return []
    dropped_ids = set(DISPENSABLE) | (set(NOT_IN_GRAM_POSITIVES) if gram_positive else set())
    coefficients = {m.id: (m, c) for m, c in biomass.metabolites.items()}
    entries: list[tuple[str, cobra.Metabolite, float, list[tuple[cobra.Metabolite, float]]]] = []
    for component in template.biomasses[0].templateBiomassComponents:
        if component.comp_class != "cofactor":
            continue
        cid = component.metabolite.id.rsplit("_", 1)[0]
        found = coefficients.get(f"{cid}_c{index}")
        if found is None or found[1] >= 0:
            continue
        linked = [(coefficients[mid][0], found[1] * link) for mid, link in
                  ((f"{m.id.rsplit('_', 1)[0]}_c{index}", link) for m, link in component.linked_metabolites.items())
                  if mid in coefficients]  # the by-products this cofactor alone puts in the biomass
        entries.append((cid, found[0], found[1], linked))
    dropped = [e for e in entries if e[0] in dropped_ids]
    kept = [e for e in entries if e[0] not in dropped_ids]
    weights = {e[0]: _net_weight(e[1], e[2], e[3]) for e in entries}
    if not dropped or not kept or any(w is None for w in weights.values()):
        return []
    change: dict[cobra.Metabolite, float] = {}
    for _, metabolite, coefficient, linked in dropped:
        change[metabolite] = -coefficient
        for other, value in linked:
            change[other] = change.get(other, 0.0) - value
    factor = sum(weights[e[0]] or 0.0 for e in entries) / sum(weights[e[0]] or 0.0 for e in kept)
    for _, metabolite, coefficient, linked in kept:
        change[metabolite] = coefficient * (factor - 1)
        for other, value in linked:
            change[other] = change.get(other, 0.0) + value * (factor - 1)
    biomass.add_metabolites(change)
    names = sorted(e[0] for e in dropped)
    biomass.notes[COFACTORS_NOTE] = ";".join(names)
    return names


def _net_weight(metabolite: cobra.Metabolite, coefficient: float,
                linked: list[tuple[cobra.Metabolite, float]]) -> float | None:
    """Grams per mole of what one biomass cofactor entry takes from the cell: the cofactor less
    its by-products (acyl carrier protein less apo-ACP: the R groups cancel). None when unknown."""
    from cobra.core.formula import elements_and_molecular_weights

    counts: dict[str, float] = {}
    for item, share in [(metabolite, 1.0), *((other, value / coefficient) for other, value in linked)]:
        if not item.formula:
            return None
        for element, number in item.elements.items():
            counts[element] = counts.get(element, 0.0) + share * number
    left = {element: number for element, number in counts.items() if abs(number) > 1e-9}
    if any(element not in elements_and_molecular_weights for element in left):
        return None
    return float(sum(number * elements_and_molecular_weights[element] for element, number in left.items()))


def straight_chain_lipids(model: cobra.Model, template: Any, biomass_id: str = "bio1", index: str = "0") -> list[str]:
    """Without a gene for the branched-chain 2-oxo acid dehydrogenase, let the biomass ask for
    straight-chain lipid species instead of iso- and anteiso-branched ones, gram for gram.
    Returns the branched species replaced ([] when the genome makes branched chains, or when
    there is nothing to replace)."""
    if biomass_id not in model.reactions:
        return []
    biomass = model.reactions.get_by_id(biomass_id)
    if LIPIDS_NOTE in biomass.notes or EITHER_NOTE in biomass.notes or _makes_branched_chains(model, index):
        return []
    change: dict[cobra.Metabolite, float] = {}
    replaced = []
    for branched, metabolite, coefficient, replacement in _branched_species(model, template, biomass, index):
        change[metabolite] = change.get(metabolite, 0.0) - coefficient
        grams = coefficient * metabolite.formula_weight
        change[replacement] = change.get(replacement, 0.0) + grams / replacement.formula_weight
        replaced.append(branched)
    if replaced:
        biomass.add_metabolites(change)
        biomass.notes[LIPIDS_NOTE] = ";".join(replaced)
    return replaced


def either_chain_lipids(model: cobra.Model, template: Any, biomass_id: str = "bio1", index: str = "0") -> list[str]:
    """With a gene for the branched-chain 2-oxo acid dehydrogenase, let the biomass take each
    branched lipid species or the straight-chain species of its class, gram for gram, through a
    pool only the biomass uses (module docstring). Returns the branched species made pools ([]
    without the dehydrogenase, or when done already)."""
    if biomass_id not in model.reactions:
        return []
    biomass = model.reactions.get_by_id(biomass_id)
    if EITHER_NOTE in biomass.notes or LIPIDS_NOTE in biomass.notes or not _makes_branched_chains(model, index):
        return []
    pooled = _pool(model, biomass, _branched_species(model, template, biomass, index), "lipid_pool",
                   ("branched", "straight"), "chains", index)
    if pooled:
        biomass.notes[EITHER_NOTE] = ";".join(pooled)
    return pooled


def either_chain_menaquinones(model: cobra.Model, template: Any, biomass_id: str = "bio1",
                              index: str = "0") -> list[str]:
    """With a gene for 1,4-dihydroxy-2-naphthoate heptaprenyltransferase, let the biomass take
    menaquinone-8 and 2-demethylmenaquinone-8 or their heptaprenyl (MK-7) forms, gram for gram,
    through a pool only the biomass uses (module docstring). Returns the species made pools ([]
    without the gene, or when done already)."""
    if biomass_id not in model.reactions:
        return []
    biomass = model.reactions.get_by_id(biomass_id)
    heptaprenyl = f"{HEPTAPRENYL_TRANSFERASE}_c{index}"
    if QUINONES_NOTE in biomass.notes or heptaprenyl not in model.reactions \
            or not model.reactions.get_by_id(heptaprenyl).genes:
        return []
    pooled = _pool(model, biomass, _species_pairs(model, template, biomass, MENAQUINONE_7, index), "quinone_pool",
                   ("octaprenyl", "heptaprenyl"), "menaquinone", index)
    if pooled:
        biomass.notes[QUINONES_NOTE] = ";".join(pooled)
    return pooled


def _pool(model: cobra.Model, biomass: cobra.Reaction,
          species: list[tuple[str, cobra.Metabolite, float, cobra.Metabolite]], prefix: str,
          kinds: tuple[str, str], what: str, index: str) -> list[str]:
    """Replace each (compound id, metabolite, biomass coefficient, alternative) of the biomass by
    a pool filled with the metabolite or its alternative, gram for gram, by two gene-less
    reactions only the biomass uses; returns the compound ids pooled."""
    from cobra import Metabolite, Reaction

    change: dict[cobra.Metabolite, float] = {}
    fillers = []
    pooled = []
    for cid, metabolite, coefficient, alternative in species:
        pool = Metabolite(f"{prefix}_{cid}_c{index}", metabolite.formula,
                          f"{metabolite.name} or {alternative.name}", metabolite.charge, f"c{index}")
        for source, amount, kind in ((metabolite, 1.0, kinds[0]),
                                     (alternative, metabolite.formula_weight / alternative.formula_weight, kinds[1])):
            filler = Reaction(f"{prefix}_{cid}_{kind}_c{index}", f"{pool.name}: the {kind} {what}",
                              lower_bound=0.0, upper_bound=1000.0)
            filler.add_metabolites({source: -amount, pool: 1.0})
            filler.notes[BIOMASS_PART] = f"{cid} in the biomass, as {kind} {what}"
            fillers.append(filler)
        change[metabolite] = -coefficient
        change[pool] = coefficient
        pooled.append(cid)
    if pooled:
        model.add_reactions(fillers)
        biomass.add_metabolites(change)
    return pooled


def _branched_species(model: cobra.Model, template: Any, biomass: cobra.Reaction, index: str
                      ) -> list[tuple[str, cobra.Metabolite, float, cobra.Metabolite]]:
    """(branched compound id, its metabolite, its biomass coefficient, the straight-chain species
    of its class) for each branched lipid species the biomass asks for, both weights known."""
    return _species_pairs(model, template, biomass, STRAIGHT_CHAIN, index)


def _species_pairs(model: cobra.Model, template: Any, biomass: cobra.Reaction, alternatives: dict[str, str],
                   index: str) -> list[tuple[str, cobra.Metabolite, float, cobra.Metabolite]]:
    """(compound id, its metabolite, its biomass coefficient, its alternative from the template)
    for each compound of `alternatives` the biomass asks for, both weights known."""
    found = []
    for cid, other in alternatives.items():
        mid = f"{cid}_c{index}"
        if mid not in model.metabolites:
            continue
        metabolite = model.metabolites.get_by_id(mid)
        coefficient = biomass.metabolites.get(metabolite, 0.0)
        if coefficient >= 0:
            continue
        alternative = template_metabolite(model, template, other, index)
        if metabolite.formula_weight and alternative.formula_weight:
            found.append((cid, metabolite, coefficient, alternative))
    return found


def _makes_branched_chains(model: cobra.Model, index: str) -> bool:
    return any(f"{rid}_c{index}" in model.reactions and model.reactions.get_by_id(f"{rid}_c{index}").genes
               for rid in BRANCHED_CHAIN_DEHYDROGENASE)
