"""Real models for the tests: COBRApy's textbook E. coli core (BiGG ids) and a model in the
ModelSEED namespace assembled from the Core-V5.2 template's reactions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cobra
import pyrodigal
from cobra.io import load_model

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling.build import BuildOptions, build_draft
from gem_flux_mcp.modeling.inputs import Protein, read_proteins_file

# textbook's default medium, by BiGG exchange -> ModelSEED compound id
TEXTBOOK_MEDIUM = {
    "EX_co2_e": "cpd00011", "EX_glc__D_e": "cpd00027", "EX_h_e": "cpd00067", "EX_h2o_e": "cpd00001",
    "EX_nh4_e": "cpd00013", "EX_o2_e": "cpd00007", "EX_pi_e": "cpd00009",
}


def textbook() -> cobra.Model:
    return load_model("textbook")


def modelseed_core_model(data_dir: Path) -> cobra.Model:
    """All Core-V5.2 template reactions as `<rxn>_c0`, an exchange for every extracellular
    compound, and an ATP maintenance reaction as objective."""
    template = json.loads((data_dir / "templates" / "Core-V5.2.json").read_text())
    names = {c["id"]: c["name"] for c in template["compounds"]}
    formulas = {c["id"]: c["formula"] for c in template["compounds"]}
    model = cobra.Model("modelseed_core")
    metabolites: dict[str, cobra.Metabolite] = {}

    def metabolite(compcompound: str) -> cobra.Metabolite:
        cpd, compartment = compcompound.rsplit("_", 1)
        mid = f"{cpd}_{compartment}0"
        if mid not in metabolites:
            metabolites[mid] = cobra.Metabolite(mid, name=names.get(cpd, cpd), formula=formulas.get(cpd) or None,
                                                compartment=f"{compartment}0")
        return metabolites[mid]

    reactions = []
    for entry in template["reactions"]:
        reaction = cobra.Reaction(entry["id"] + "0", name=entry["name"])
        reaction.add_metabolites({
            metabolite(r["templatecompcompound_ref"].split("/")[-1]): float(r["coefficient"])
            for r in entry["templateReactionReagents"]
        })
        reaction.bounds = {">": (0, 1000), "<": (-1000, 0), "=": (-1000, 1000)}[entry["direction"]]
        reactions.append(reaction)
    model.add_reactions(reactions)
    atpm = cobra.Reaction("ATPM_c0", name="ATP maintenance", lower_bound=0, upper_bound=1000)
    atpm.add_metabolites({metabolite("cpd00002_c"): -1, metabolite("cpd00001_c"): -1,
                          metabolite("cpd00008_c"): 1, metabolite("cpd00009_c"): 1, metabolite("cpd00067_c"): 1})
    model.add_reactions([atpm])
    for met in [m for m in model.metabolites if m.compartment == "e0"]:
        model.add_boundary(met, type="exchange", reaction_id=f"EX_{met.id}", lb=-1000, ub=1000)
    model.objective = "ATPM_c0"
    return model


def apply_medium_directly(model: cobra.Model, medium: dict[str, tuple[float, float]],
                          exchange_to_cpd: dict[str, str]) -> None:
    """The reference way, written independently of gem-flux: bounds on each exchange."""
    for reaction in model.exchanges:
        cpd = exchange_to_cpd.get(reaction.id)
        reaction.bounds = medium[cpd] if cpd in medium else (0.0, max(reaction.upper_bound, 0.0))


def predefined_medium(data_dir: Path, name: str) -> dict[str, tuple[float, float]]:
    """A predefined medium read straight from its JSON file (independently of gem-flux)."""
    raw = json.loads((data_dir / "media" / f"{name}.json").read_text())
    return {cpd: (float(e["bounds"][0]), float(e["bounds"][1])) for cpd, e in raw["compounds"].items()}


def medium_of(data_dir: Path, name: str) -> dict[str, tuple[float, float]]:
    """A predefined medium as {compound: (lower, upper)}, read straight from its JSON file."""
    raw = json.loads((data_dir / "media" / f"{name}.json").read_text())["compounds"]
    return {cpd: (float(v["bounds"][0]), float(v["bounds"][1])) for cpd, v in raw.items()}


def build_genome(data_dir: Path, biochem: BiochemIndex, cache: Path, genome: str, template: str) -> cobra.Model:
    """A draft built by the library from one of the reference proteomes."""
    proteins = read_proteins_file(data_dir / "genomes" / genome, "proteins").proteins
    return build_draft(genome.split(".")[0], proteins, BuildOptions(template=template), data_dir, cache,
                       biochem).model


def apply_exchange_medium(model: cobra.Model, medium: dict[str, tuple[float, float]]) -> None:
    """A medium on a ModelSEED model by hand: every exchange (`cpd_e0 <=>`) closed for uptake
    unless its compound is in the medium."""
    for reaction in model.exchanges:
        cpd = next(iter(reaction.metabolites)).id.split("_")[0]
        reaction.bounds = medium.get(cpd, (0.0, 1000.0))


def toy_template(reactions: dict[str, tuple[dict[str, int], float, str]], compounds: tuple[str, ...],
                 formula: str = "C6H12O6") -> Any:
    """A ModelSEED template (ModelSEEDpy reads its JSON form) of hand-written reactions:
    {reaction id: ({compcompound (cpd_c / cpd_e): coefficient}, base cost, direction)}, the
    direction ('>', '<', '=') also its gapfill direction; every compound inside (c) and outside (e)."""
    from modelseedpy.core.mstemplate import MSTemplateBuilder

    def reaction(rid: str, stoichiometry: dict[str, int], cost: float, direction: str) -> dict[str, Any]:
        return {"id": f"{rid}_c", "name": rid, "GapfillDirection": direction, "base_cost": cost,
                "direction": direction, "forward_penalty": 0, "reverse_penalty": 0,
                "lower_bound": 0 if direction == ">" else -1000, "upper_bound": 0 if direction == "<" else 1000,
                "maxforflux": 1000, "maxrevflux": 0 if direction == ">" else 1000,
                "reaction_ref": f"kbase/default/reactions/id/{rid}",
                "templateReactionReagents": [{"coefficient": c, "templatecompcompound_ref": f"~/compcompounds/id/{m}"}
                                             for m, c in stoichiometry.items()],
                "templatecompartment_ref": "~/compartments/id/c", "templatecomplex_refs": [], "type": "gapfilling"}

    return MSTemplateBuilder.from_dict({
        "__VERSION__": 1, "biochemistry_ref": "", "biomasses": [], "complexes": [], "roles": [], "pathways": [],
        "subsystems": [], "domain": "Bacteria", "id": "toy", "name": "toy", "type": "GenomeScale",
        "compartments": [{"id": "c", "name": "Cytosol", "hierarchy": 3, "pH": 7, "aliases": []},
                         {"id": "e", "name": "Extracellular", "hierarchy": 0, "pH": 7, "aliases": []}],
        "compounds": [{"id": c, "name": c, "abbreviation": c, "formula": formula, "defaultCharge": 0, "mass": 180,
                       "aliases": [], "isCofactor": 0, "deltaG": 0, "deltaGErr": 0} for c in compounds],
        "compcompounds": [{"id": f"{c}_{k}", "charge": 0, "maxuptake": 0,
                           "templatecompartment_ref": f"~/compartments/id/{k}",
                           "templatecompound_ref": f"~/compounds/id/{c}"} for c in compounds for k in ("c", "e")],
        "reactions": [reaction(rid, *spec) for rid, spec in reactions.items()],
    }).build()


COMPLEMENT = str.maketrans("ACGT", "TGCA")


def recoded_to_table_4(contig: Protein) -> Protein:
    """The contig with each gene (called by pyrodigal directly, table 11) rewritten for table 4."""
    finder = pyrodigal.GeneFinder()
    finder.train(contig.sequence, translation_table=11)
    bases = list(contig.sequence)
    for gene in finder.find_genes(contig.sequence):
        start, end = gene.begin - 1, gene.end  # [start, end) on the forward strand
        if gene.strand == 1:
            codons = [(i, "".join(bases[i:i + 3])) for i in range(start, end, 3)]
        else:  # the gene's codons, read on the reverse strand, from its first codon down
            codons = [(i, "".join(bases[i:i + 3]).translate(COMPLEMENT)[::-1]) for i in range(end - 3, start - 1, -3)]
        *body, (stop_at, stop) = codons
        for at, codon in body:
            if codon == "TGG":
                _write(bases, at, "TGA", gene.strand)
        if stop == "TGA":
            _write(bases, stop_at, "TAA", gene.strand)
    return Protein(contig.id, "".join(bases))


def _write(bases: list[str], at: int, codon: str, strand: int) -> None:
    bases[at:at + 3] = list(codon if strand == 1 else codon.translate(COMPLEMENT)[::-1])


GLUCOSE, LYSINE, ARGININE = "cpd00027", "cpd00039", "cpd00051"


def small_member(name: str, makes: tuple[str, ...], needs: tuple[str, ...]) -> cobra.Model:
    """A small ModelSEED-namespace organism: glucose in, each compound of `makes` made from glucose
    (and exchanged: secreted or taken up), each of `needs` only taken up; biomass (bio1) takes
    glucose and half a unit of every amino acid it makes or needs. An auxotroph needs what it
    cannot make; two of them rescue each other."""
    model = cobra.Model(name)
    metabolites: dict[str, cobra.Metabolite] = {}

    def met(cpd: str, compartment: str) -> cobra.Metabolite:
        key = f"{cpd}_{compartment}0"
        if key not in metabolites:
            name, formula = {GLUCOSE: ("D-Glucose", "C6H12O6"), LYSINE: ("L-Lysine", "C6H15N2O2"),
                             ARGININE: ("L-Arginine", "C6H15N4O2")}[cpd]
            metabolites[key] = cobra.Metabolite(key, name=name, formula=formula, compartment=f"{compartment}0")
        return metabolites[key]

    def reaction(rid: str, stoichiometry: dict[cobra.Metabolite, float], lower: float = 0.0) -> cobra.Reaction:
        made = cobra.Reaction(rid, lower_bound=lower, upper_bound=1000.0)
        made.add_metabolites(stoichiometry)
        return made

    reactions = [reaction("rxn05226_c0", {met(GLUCOSE, "e"): -1, met(GLUCOSE, "c"): 1})]
    for cpd in makes:
        reactions.append(reaction(f"make_{cpd}_c0", {met(GLUCOSE, "c"): -1, met(cpd, "c"): 1}))
    for cpd in (*makes, *needs):
        reactions.append(reaction(f"transport_{cpd}_c0", {met(cpd, "e"): -1, met(cpd, "c"): 1}, -1000.0))
    reactions.append(reaction("bio1", {met(GLUCOSE, "c"): -1, **{met(c, "c"): -0.5 for c in (*makes, *needs)}}))
    model.add_reactions(reactions)
    for cpd in (GLUCOSE, *makes, *needs):
        model.add_boundary(met(cpd, "e"), type="exchange", reaction_id=f"EX_{cpd}_e0", lb=-1000.0, ub=1000.0)
    model.objective = "bio1"
    return model
