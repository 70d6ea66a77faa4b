"""identifiers.org annotations and SBO terms for a model's metabolites, reactions and genes.

`model_annotations` computes them; nothing here changes a model. What it adds:
- metabolites `cpd#####_<compartment>` and reactions `rxn#####_<compartment>` that the ModelSEED
  database knows: `seed.compound`/`seed.reaction`, and the database's cross-references
  (KEGG, BiGG, MetaCyc as `biocyc`, ChEBI, MetaNetX, Rhea, InChIKey, EC numbers), each kept only
  when it has the identifier shape identifiers.org gives for its collection;
- genes named by a RefSeq protein accession (`NP_418647.1`): `refseq` and `ncbiprotein`; by a
  UniProt accession: `uniprot`;
- an SBO term for every metabolite (simple chemical), gene, and reaction (exchange, demand, sink,
  biomass, ATP maintenance, transport or biochemical reaction, from its structure).

`merge_annotation` puts them under an object's own annotation: a collection the object already
names is kept as it is (imported models are often curated by hand); an SBO term replaces only a
missing or generic one, a boundary term that contradicts the reaction's bounds, or 'spontaneous
reaction' on a reaction between compartments (a transport).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import cobra

Annotation = dict[str, list[str]]  # collection (identifiers.org prefix, or "sbo") -> identifiers

SBO_SIMPLE_CHEMICAL = "SBO:0000247"
SBO_GENE = "SBO:0000243"
SBO_BIOCHEMICAL_REACTION = "SBO:0000176"
SBO_TRANSPORT = "SBO:0000185"
SBO_EXCHANGE = "SBO:0000627"
SBO_DEMAND = "SBO:0000628"
SBO_SINK = "SBO:0000632"
SBO_BIOMASS = "SBO:0000629"
SBO_ATP_MAINTENANCE = "SBO:0000630"
# Terms that say less than the structure of a reaction does: replaced by the computed one.
_GENERIC_SBO = {"SBO:0000176", "SBO:0000167", "SBO:0000375", "SBO:0000231", "SBO:0000000"}
_BOUNDARY_SBO = {SBO_EXCHANGE, SBO_DEMAND, SBO_SINK}
# ModelSEEDpy marks some transporters (diffusion, and a few ATPases) 'spontaneous reaction', a kind
# of biochemical reaction: a reaction between compartments is a transport first.
_SPONTANEOUS = "SBO:0000672"
SBO_TERM = re.compile(r"^SBO:\d{7}$")

_MODEL_COMPOUND = re.compile(r"^(cpd\d{5})(?:_[A-Za-z]+\d*)?$")
_MODEL_REACTION = re.compile(r"^(rxn\d{5})(?:_[A-Za-z]+\d*)?$")
_REFSEQ_PROTEIN = re.compile(r"^(?:AP|NP|WP|XP|YP|ZP)_\d+(?:\.\d+)?$")
_UNIPROT = re.compile(r"^(?:[OPQ][0-9][A-Z0-9]{3}[0-9]|[A-NR-Z][0-9](?:[A-Z][A-Z0-9]{2}[0-9]){1,2})(?:-\d+)?$")
_BIOMASS_ID = re.compile(r"(?i)biomass|^bio\d*$|^bio_")
_BIOMASS_METABOLITE = re.compile(r"^cpd11416(?:_|$)")
_ATP_MAINTENANCE_ID = re.compile(r"(?i)^(?:ATPM|NGAM)(?:_|$)")
_ATP_MAINTENANCE_NAME = re.compile(r"(?i)\b(?:ATP maintenance|non-growth associated maintenance)\b")
_EXTERNAL_COMPARTMENT = re.compile(r"(?i)^(?:e\d*|extracellular.*|ext)$")

# identifiers.org collection and accepted identifier shape, by database source name; a value
# that does not fit is left out (an identifier in the wrong shape is worse than none).
_COMPOUND_SOURCES: dict[str, list[tuple[str, re.Pattern[str], str]]] = {
    "KEGG": [("kegg.compound", re.compile(r"^C\d{5}$"), "{}"), ("kegg.drug", re.compile(r"^D\d{5}$"), "{}"),
             ("kegg.glycan", re.compile(r"^G\d{5}$"), "{}")],
    "BiGG": [("bigg.metabolite", re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$"), "{}")],
    "MetaCyc": [("biocyc", re.compile(r"^[A-Za-z0-9+_.%-]+$"), "META:{}")],
    "ChEBI": [("chebi", re.compile(r"^\d+$"), "CHEBI:{}")],
    "metanetx.chemical": [("metanetx.chemical", re.compile(r"^MNXM\d+$"), "{}")],
    "InChIKey": [("inchikey", re.compile(r"^[A-Z]{14}-[A-Z]{10}-[A-Z]$"), "{}")],
}
_REACTION_SOURCES: dict[str, list[tuple[str, re.Pattern[str], str]]] = {
    "KEGG": [("kegg.reaction", re.compile(r"^R\d{5}$"), "{}")],
    "BiGG": [("bigg.reaction", re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$"), "{}")],
    "MetaCyc": [("biocyc", re.compile(r"^[A-Za-z0-9+_.%-]+$"), "META:{}")],
    "metanetx.reaction": [("metanetx.reaction", re.compile(r"^MNXR\d+$"), "{}")],
    "Rhea": [("rhea", re.compile(r"^\d{5}$"), "{}")],
    "EC": [("ec-code", re.compile(r"^\d+\.(?:-|\d+)\.(?:-|\d+)\.(?:-|n?\d+)$"), "{}")],
}


class CrossReferenceSource(Protocol):
    """The ModelSEED database's cross-references: {ModelSEED id: {source: [values]}} for the ids
    it knows (sources as the database names them, e.g. 'KEGG', 'BiGG', 'MetaCyc', 'ChEBI',
    'metanetx.chemical', 'Rhea', plus 'InChIKey' for compounds and 'EC' for reactions)."""

    def compound_cross_references(self, ids: Iterable[str]) -> dict[str, dict[str, list[str]]]: ...

    def reaction_cross_references(self, ids: Iterable[str]) -> dict[str, dict[str, list[str]]]: ...


@dataclass
class ModelAnnotations:
    """Computed annotations by object id (not yet merged with the objects' own)."""

    metabolites: dict[str, Annotation] = field(default_factory=dict)
    reactions: dict[str, Annotation] = field(default_factory=dict)
    genes: dict[str, Annotation] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """How many objects of each kind got a database cross-reference (not only an SBO term)."""
        return {kind: sum(1 for a in getattr(self, kind).values() if set(a) - {"sbo"})
                for kind in ("metabolites", "reactions", "genes")}


def model_annotations(model: cobra.Model, source: CrossReferenceSource | None) -> ModelAnnotations:
    """Annotations for every metabolite, reaction and gene of `model` (`source` None: SBO terms
    and gene accessions only)."""
    result = ModelAnnotations()
    compound_of = {m.id: found.group(1) for m in model.metabolites if (found := _MODEL_COMPOUND.match(m.id))}
    reaction_of = {r.id: found.group(1) for r in model.reactions if (found := _MODEL_REACTION.match(r.id))}
    compound_refs = source.compound_cross_references(set(compound_of.values())) if source and compound_of else {}
    reaction_refs = source.reaction_cross_references(set(reaction_of.values())) if source and reaction_of else {}
    for metabolite in model.metabolites:
        annotation: Annotation = {"sbo": [SBO_SIMPLE_CHEMICAL]}
        cpd = compound_of.get(metabolite.id)
        if cpd is not None and cpd in compound_refs:
            annotation.update(_cross_references("seed.compound", cpd, compound_refs[cpd], _COMPOUND_SOURCES))
        result.metabolites[metabolite.id] = annotation
    for reaction in model.reactions:
        annotation = {"sbo": [reaction_sbo(reaction)]}
        rxn = reaction_of.get(reaction.id)
        if rxn is not None and rxn in reaction_refs:
            annotation.update(_cross_references("seed.reaction", rxn, reaction_refs[rxn], _REACTION_SOURCES))
        result.reactions[reaction.id] = annotation
    for gene in model.genes:
        result.genes[gene.id] = {"sbo": [SBO_GENE], **gene_accessions(gene.id)}
    return result


def _cross_references(seed_collection: str, seed_id: str, references: Mapping[str, list[str]],
                      sources: Mapping[str, list[tuple[str, re.Pattern[str], str]]]) -> Annotation:
    annotation: Annotation = {seed_collection: [seed_id]}
    for source, values in references.items():
        for collection, shape, template in sources.get(source, []):
            for value in values:
                if shape.match(value):
                    found = annotation.setdefault(collection, [])
                    identifier = template.format(value)
                    if identifier not in found:
                        found.append(identifier)
    return annotation


def gene_accessions(gene_id: str) -> Annotation:
    """Collections a gene id itself names: RefSeq protein accessions (which NCBI Protein also
    resolves) and UniProt accessions."""
    if _REFSEQ_PROTEIN.match(gene_id):
        return {"refseq": [gene_id], "ncbiprotein": [gene_id]}
    if _UNIPROT.match(gene_id):
        return {"uniprot": [gene_id]}
    return {}


def reaction_sbo(reaction: cobra.Reaction) -> str:
    """The SBO term a reaction's structure calls for."""
    metabolites = list(reaction.metabolites)
    if len(metabolites) == 1:
        compartment = metabolites[0].compartment or ""
        if reaction.id.startswith("EX_") or _EXTERNAL_COMPARTMENT.match(compartment):
            return SBO_EXCHANGE
        # SBO: a sink is reversible (a source and a drain); a demand is one-way
        return SBO_SINK if reaction.lower_bound < 0 < reaction.upper_bound else SBO_DEMAND
    if _BIOMASS_ID.search(reaction.id) or any(_BIOMASS_METABOLITE.match(m.id) for m in metabolites):
        return SBO_BIOMASS
    if _ATP_MAINTENANCE_ID.match(reaction.id) or _ATP_MAINTENANCE_NAME.search(reaction.name or ""):
        return SBO_ATP_MAINTENANCE
    if len({m.compartment for m in metabolites}) > 1:
        return SBO_TRANSPORT
    return SBO_BIOCHEMICAL_REACTION


def merge_annotation(own: Mapping[str, Any], computed: Annotation | None) -> dict[str, Any]:
    """An object's annotation with the computed one added (COBRApy's shape: one identifier as a
    string, several as a list). The object's own collections win, except for the SBO rule
    described in the module docstring."""
    merged = dict(own)
    if not computed:
        return merged
    present = {key.lower() for key in own}
    for collection, identifiers in computed.items():
        if not identifiers:
            continue
        if collection == "sbo":
            current = own.get("sbo", own.get("SBO"))
            proposed = identifiers[0]
            if not isinstance(current, str) or not SBO_TERM.match(current) or current in _GENERIC_SBO or (
                    current in _BOUNDARY_SBO and proposed in _BOUNDARY_SBO) or (
                    current == _SPONTANEOUS and proposed == SBO_TRANSPORT):
                merged.pop("SBO", None)
                merged["sbo"] = proposed
        elif collection.lower() not in present:
            merged[collection] = identifiers[0] if len(identifiers) == 1 else list(identifiers)
    return merged
