"""Protein synthesis from charged tRNAs.

ModelSEEDpy builds the protein of the template biomass (`Protein synthesis`, rxn05296, making
cpd11463) from free amino acids, so the aminoacyl-tRNA synthetases, essential in every bacterium,
are never needed: no knock-out of them changes growth. Here each amino acid of that reaction is
taken from its aminoacyl-tRNA instead and the tRNA is given back, so the template's tRNA ligases
(rxn06300, rxn06432 … rxn06449, rxn06936, rxn06937, rxn08857) carry the flux that makes protein,
through the genes the draft found for them or, when none, through gapfilling.

Charging costs two ATP equivalents per amino acid (ATP → AMP + PPi). The template biomass's
growth-associated ATP (its 40 ATP hydrolysed per gram) already includes the cost of making
protein, so the biomass reaction hydrolyses that many ATP fewer: the total energy a gram of cell
costs is unchanged, only where it is spent moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import cobra

PROTEIN = "cpd11463"
ATP, ADP, AMP, PPI, PI, H2O, H = ("cpd00002", "cpd00008", "cpd00018", "cpd00012", "cpd00009", "cpd00001",
                                  "cpd00067")
CHARGING_NOTE = "gemflux_charged_trnas"  # note on the protein synthesis reaction


@dataclass(frozen=True)
class Charging:
    """A template tRNA ligase: amino acid + tRNA + ATP -> aminoacyl-tRNA + AMP + PPi."""

    reaction: str  # template reaction id, e.g. rxn06440_c
    amino_acid: str  # compound id without compartment
    trna: str
    charged: str


def trna_ligases(template: Any) -> dict[str, Charging]:
    """amino acid -> its tRNA ligase, from the template's reactions of the form
    ATP + aa + tRNA -> AMP + PPi + H+ + aa-tRNA (the tRNA and the aminoacyl-tRNA told apart from
    the amino acid by "tRNA" in their names)."""
    found: dict[str, Charging] = {}
    for reaction in template.reactions:
        stoich = {m.id.rsplit("_", 1)[0]: c for m, c in reaction.metabolites.items()}
        if stoich.get(ATP, 0) >= 0 or stoich.get(AMP, 0) <= 0 or stoich.get(PPI, 0) <= 0:
            continue
        names = {m.id.rsplit("_", 1)[0]: str(m.name).lower() for m in reaction.metabolites}
        rest = {k: v for k, v in stoich.items() if k not in (ATP, AMP, PPI, H)}
        used = [k for k, v in rest.items() if v < 0]
        made = [k for k, v in rest.items() if v > 0]
        trnas = [k for k in used if "trna" in names[k]]
        if len(used) != 2 or len(made) != 1 or len(trnas) != 1 or "trna" not in names[made[0]]:
            continue
        amino_acid = next(k for k in used if k != trnas[0])
        found.setdefault(amino_acid, Charging(reaction.id, amino_acid, trnas[0], made[0]))
    return found


def charge_protein_synthesis(model: cobra.Model, template: Any, biomass_id: str = "bio1",
                             index: str = "0") -> int:
    """Rewrite the model's protein synthesis to consume aminoacyl-tRNAs and give the tRNAs back;
    lower the biomass's ATP hydrolysis by the charging's 2 ATP per amino acid. Returns how many
    amino acids were switched (0 when the model has no protein synthesis or it is done already)."""

    protein = f"{PROTEIN}_c{index}"
    if protein not in model.metabolites:
        return 0
    makers = [r for r in model.metabolites.get_by_id(protein).reactions
              if r.metabolites[model.metabolites.get_by_id(protein)] > 0 and r.id != biomass_id]
    if len(makers) != 1 or CHARGING_NOTE in makers[0].notes:
        return 0
    synthesis = makers[0]
    ligases = trna_ligases(template)
    change: dict[cobra.Metabolite, float] = {}
    switched = []
    amino_acids = 0.0
    for metabolite, coefficient in list(synthesis.metabolites.items()):
        cid = metabolite.id.rsplit("_", 1)[0]
        if coefficient >= 0 or cid not in ligases:
            continue
        charging = ligases[cid]
        change[metabolite] = -coefficient
        change[template_metabolite(model, template, charging.charged, index)] = coefficient
        change[template_metabolite(model, template, charging.trna, index)] = -coefficient
        amino_acids += -coefficient
        switched.append(cid)
    if not switched:
        return 0
    synthesis.add_metabolites(change)
    synthesis.notes[CHARGING_NOTE] = ";".join(sorted(ligases[c].reaction for c in switched))
    if biomass_id in model.reactions:
        _spend_less_atp(model.reactions.get_by_id(biomass_id), protein, 2 * amino_acids, index)
    return len(switched)


def _spend_less_atp(biomass: cobra.Reaction, protein: str, atp_per_protein: float, index: str) -> None:
    """Lower the biomass's ATP + H2O -> ADP + Pi + H+ by what charging now costs per gram."""
    model = biomass.model
    coefficients = {m.id: c for m, c in biomass.metabolites.items()}
    per_gram = atp_per_protein * -coefficients.get(protein, 0.0)
    energy = {ATP: 1, H2O: 1, ADP: -1, PI: -1, H: -1}
    ids = {cid: f"{cid}_c{index}" for cid in energy}
    if per_gram <= 0 or any(ids[cid] not in coefficients or coefficients[ids[cid]] * sign > -per_gram
                            for cid, sign in energy.items()):
        return  # no growth-associated ATP hydrolysis to move the cost out of
    biomass.add_metabolites({model.metabolites.get_by_id(ids[cid]): sign * per_gram for cid, sign in energy.items()})


def template_metabolite(model: cobra.Model, template: Any, compound_id: str, index: str) -> cobra.Metabolite:
    """The model's `<compound>_c<index>`, added from the template when it is not there yet."""
    mid = f"{compound_id}_c{index}"
    if mid in model.metabolites:
        return model.metabolites.get_by_id(mid)
    compcompound = template.compcompounds.get_by_id(f"{compound_id}_c")
    metabolite = compcompound.to_metabolite(index)
    model.add_metabolites([metabolite])
    return model.metabolites.get_by_id(mid)
