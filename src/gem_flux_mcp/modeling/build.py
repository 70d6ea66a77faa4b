"""Draft reconstruction: annotated proteins + a ModelSEED template → a COBRApy model.

Role-based evidence (FASTA header functions, RAST) goes through ModelSEEDpy's `MSBuilder`, which
applies the template's complex logic, builds the GPRs, the biomass from the template, the
spontaneous/universal reactions, exchanges and sinks. Homology evidence is added on top: template
reactions reached through BiGG gene-reaction rules, with GPRs that keep the reference complexes.
Every reaction records which source(s) supported it, and with what evidence, in its notes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode

from ..data.reference import Reference
from ..data.templates import import_modelseedpy, load_template
from ..errors import LibraryError
from . import align
from .acyl_coa_dehydrogenases import orient_acyl_coa_dehydrogenases
from .annotate import (
    WEAK_EVIDENCE_NOTE,
    HomologyEvidence,
    HomologyResult,
    RoleMatch,
    RoleMatcher,
    gpr_string,
    homology_reactions,
    ordered_rule,
    roles_from_functions,
)
from .bigg_match import Aliases, StoichiometricAliases, bound_carrier_pairs, inside_id
from .biomass_needs import (
    drop_dispensable_cofactors,
    either_chain_lipids,
    either_chain_menaquinones,
    require_essential_lps,
    straight_chain_lipids,
)
from .completeness import bundled_markers, completeness_summary, estimate_completeness
from .database_transport import add_database_transporters, database_index, moving_alone
from .decarboxylation import orient_decarboxylations
from .diffusion import NEUTRAL, add_diffusion
from .energy import orient_atp_coupled_reactions, orient_atp_driven_transport, orient_nucleotide_making_kinases
from .gene_rules import set_rule
from .hydrolysis import orient_hydrolyses
from .inputs import Protein, product_from_description
from .kinase_donors import add_donor_variants
from .outside_enzymes import add_outside_phosphatases, outside_copy
from .phosphorylation import orient_phosphorylations
from .rast import annotate_with_rast
from .translation import charge_protein_synthesis

if TYPE_CHECKING:
    import cobra

SOURCE_HEADER = "fasta_header"
SOURCE_HOMOLOGY = "homology"
SOURCE_RAST = "rast"
ATPM_ID = "ATPM_c0"

Progress = Callable[[str, float, str], None]  # stage, fraction of the whole build (0..1), message


@dataclass
class BuildOptions:
    template: str = "GramNegative"
    use_header_functions: bool = True
    use_homology: bool = True
    use_rast: bool = False  # opt-in: sends the sequences to the RAST web service
    exclude_reference_models: tuple[str, ...] = ()
    aligner: str | None = None
    align_threads: int | None = None  # threads of the homology search; None: one per core


@dataclass
class BuildResult:
    model: cobra.Model
    annotation: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)


def _no_progress(stage: str, fraction: float, message: str) -> None:
    return None


def build_draft(
    model_id: str,
    proteins: list[Protein],
    options: BuildOptions,
    data_dir: Path,
    cache_dir: Path,
    aliases: Aliases,
    progress: Progress = _no_progress,
) -> BuildResult:
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = round(now - clock, 3)
        clock = now

    progress("load_template", 0.05, f"loading template {options.template}")
    template = load_template(data_dir, options.template)
    lap("load_template")

    rast_functions: dict[str, list[str]] = {}
    if options.use_rast:
        progress("annotate", 0.08, f"sending {len(proteins)} proteins to RAST (internet)")
        rast_functions = annotate_with_rast({p.id: p.sequence for p in proteins})
        lap("rast")

    # ---- role evidence: header functions and RAST functions → template roles
    progress("annotate", 0.10, "matching function names to template roles")
    matcher = RoleMatcher((role.id, role.name) for role in template.roles)
    role_sources: dict[tuple[str, str], list[dict[str, Any]]] = {}
    gene_roles: dict[str, set[str]] = {}
    products: dict[str, list[str]] = {}
    if options.use_header_functions:
        for protein in proteins:
            product = product_from_description(protein.description)
            if product:
                products[protein.id] = [product]
    for source, functions in ((SOURCE_HEADER, products), (SOURCE_RAST, rast_functions)):
        for gene, matches in roles_from_functions(functions, matcher).items():
            for m in matches:
                gene_roles.setdefault(gene, set()).add(m.role_id)
                role_sources.setdefault((gene, m.role_id), []).append(_role_evidence(source, functions[gene], m))
    lap("match_roles")

    homology: HomologyResult | None = None
    database_transporters: dict[str, HomologyEvidence] = {}
    if options.use_homology:
        progress("annotate", 0.15, f"searching {len(proteins)} proteins against the BiGG reference")
        reference = Reference.installed(options.exclude_reference_models)
        stoichiometry, matched = _reference_aliases(reference, cache_dir, aliases, template)
        homology = homology_reactions(
            {p.id: p.sequence for p in proteins}, reference, matched,
            {r.id for r in template.reactions}, cache_dir,
            aligner=align.choose_aligner(options.aligner), threads=options.align_threads,
            boundary={r.id for r in template.reactions if any(m.compartment == "e" for m in r.metabolites)},
            markers=bundled_markers(),
        )
        lap("homology")
    completeness = homology.completeness if homology is not None else None
    if completeness is None:  # no homology search to ride on: the markers alone
        try:
            completeness = estimate_completeness({p.id: p.sequence for p in proteins},
                                                 align.choose_aligner(options.aligner), options.align_threads)
        except LibraryError:  # no aligner: a build from names alone still works, without the estimate
            completeness = None
        lap("completeness")

    # ---- assemble
    progress("assemble", 0.70, "assembling the draft model")
    model, complex_sets = _build_role_model(model_id, proteins, gene_roles, template)
    lap("msbuilder")
    sources: dict[str, set[str]] = {}
    evidence: dict[str, dict[str, Any]] = {}
    enzymes: dict[str, set[frozenset[frozenset[str]]]] = {}
    for template_rxn_id, cpx_set in complex_sets.items():
        rid = f"{template_rxn_id}0"
        if rid not in model.reactions:
            continue
        enzymes[rid] = {frozenset(frozenset(genes) for genes in roles.values()) for roles in cpx_set.values()}
        roles: list[dict[str, Any]] = []
        for cpx_roles in cpx_set.values():
            for role_id, genes in cpx_roles.items():
                for gene in sorted(genes):
                    for item in role_sources.get((gene, role_id), []):
                        sources.setdefault(rid, set()).add(item["source"])
                        roles.append({"gene": gene, **item})
        roles.sort(key=lambda item: (item["gene"], item["role"], item["source"]))  # the same ten in every run
        evidence[rid] = {"roles": roles[:10], "num_role_assignments": len(roles)}

    if homology is not None:
        _add_homology_reactions(model, template, homology, sources, evidence, enzymes)
        # transporters the template lacks, from the database, where homology found them (a draft
        # that has the compound inside but no way to move it across)
        wanted = {b: stoichiometry[b] for b in homology.unmatched if b in stoichiometry}
        database_transporters = add_database_transporters(model, homology.unmatched, matched.in_modelseed(wanted),
                                                          database_index(aliases), aliases,
                                                          with_genes=set(enzymes))
        for rid, backed in database_transporters.items():
            enzymes[rid] = set(backed.complexes)
            sources.setdefault(rid, set()).add(SOURCE_HOMOLOGY)
            evidence[rid] = {"homology": _homology_record(backed), "database_transport": True}
    charge_protein_synthesis(model, template)
    require_essential_lps(model, template)
    drop_dispensable_cofactors(model, template, gram_positive=options.template == "GramPositive")
    for rid, alternatives in enzymes.items():
        set_rule(model.reactions.get_by_id(rid), gpr_string(alternatives))
    straight = straight_chain_lipids(model, template)  # needs the genes: after the rules are set
    either = either_chain_lipids(model, template)  # with the dehydrogenase: branched or straight
    quinones = either_chain_menaquinones(model, template)  # with MenA for heptaprenyl: MK-8 or MK-7
    # the database's facts on every template reaction (the outside copies below are template
    # reactions too), read once for the phosphatases and the direction rules
    details = aliases.reaction_details({r.id.split("_")[0] for r in template.reactions}
                                       | {r.id.split("_")[0] for r in model.reactions})
    ec_numbers = {k: d["ec_numbers"] for k, d in details.items()}
    deltag = {k: d["deltag"] for k, d in details.items()}
    phosphatases = add_outside_phosphatases(model, template, ec_numbers)
    for rid in phosphatases if homology is not None else ():  # otherwise their genes' roles count, below
        sources[rid] = {SOURCE_HOMOLOGY}
        evidence[rid] = {"outside_phosphatase": sorted(g.id for g in model.reactions.get_by_id(rid).genes)[:10]}
    # a kinase's other phosphoryl donors (pyruvate kinase with GTP, UTP, ...) with its genes
    donors = add_donor_variants(model, template, ec_numbers)
    for rid, source_id in donors.items():
        sources[rid] = set(sources.get(source_id, {SOURCE_HOMOLOGY}))
        evidence[rid] = {"donor_variant_of": source_id}
    # no gene: recorded as spontaneous reactions (the template's, else the database's)
    diffusing = add_diffusion(model, template, moving_alone(model, NEUTRAL, database_index(aliases), aliases))
    from modelseedpy.core.msbuilder import MSBuilder

    MSBuilder.add_exchanges_to_model(model)  # for extracellular metabolites the homology step added
    _add_atpm(model)
    oriented = orient_atp_driven_transport(model)  # ABC transporters, P-type ATPases and PTS spend ATP or PEP only
    # and so do the ligases and carboxylases the database calls irreversible
    coupled = orient_atp_coupled_reactions(model, {k: d["reversibility"] for k, d in details.items()})
    kinases = orient_nucleotide_making_kinases(model)  # PEP and carbamoyl phosphate give phosphate to NDPs only
    # and no decarboxylation fixes CO2 backwards without an energy source
    decarboxylations = orient_decarboxylations(model, deltag)
    hydrolyses = orient_hydrolyses(model, deltag)  # nor joins what water split
    phosphorylations = orient_phosphorylations(model, deltag)  # nor remakes ATP or PEP from an ester
    acyl_coa = orient_acyl_coa_dehydrogenases(model)  # nor runs beta-oxidation backwards
    gene_sources: dict[str, set[str]] = {}
    for (gene, _), items in role_sources.items():
        gene_sources.setdefault(gene, set()).update(item["source"] for item in items)
    for reaction in model.reactions:
        # reactions ModelSEEDpy derives itself (e.g. the macromolecule syntheses of the biomass)
        # get their genes from the same role annotations
        if reaction.genes and reaction.id not in sources:
            found = set().union(*(gene_sources.get(g.id, set()) for g in reaction.genes))
            if found:
                sources[reaction.id] = found
                evidence[reaction.id] = {"genes_from_roles": sorted(g.id for g in reaction.genes)[:10]}
    for reaction in model.reactions:  # the rules ModelSEEDpy wrote (the others are gpr_string's, in order)
        if reaction.genes and reaction.id not in enzymes:
            ordered = ordered_rule(reaction.gpr)
            if ordered != reaction.gene_reaction_rule:
                reaction.gene_reaction_rule = ordered
    _annotate_reactions(model, sources, evidence)
    lap("assemble")

    annotation = {
        "sources_used": [s for s, used in ((SOURCE_HEADER, options.use_header_functions),
                                           (SOURCE_HOMOLOGY, options.use_homology),
                                           (SOURCE_RAST, options.use_rast)) if used],
        "proteins": len(proteins),
        "proteins_with_header_function": len(products),
        "proteins_with_matched_roles": len(gene_roles),
        "reactions_by_source": _count_by_source(sources),
        "gene_associated_reactions": sum(1 for r in model.reactions if r.genes),
        "atp_driven_transporters_made_one_way": len(oriented),
        "atp_driven_reactions_made_one_way": len(coupled),
        "nucleotide_making_kinases_made_one_way": len(kinases),
        "decarboxylations_made_one_way": len(decarboxylations),
        "hydrolyses_made_one_way": len(hydrolyses),
        "phosphorylations_made_one_way": len(phosphorylations),
        "acyl_coa_dehydrogenases_made_one_way": len(acyl_coa),
        "branched_lipids_replaced": len(straight),
        "branched_lipids_either_chain": len(either),
        "menaquinones_either_chain": len(quinones),
        "outside_phosphatase_reactions": len(phosphatases),
        "kinase_donor_variants_added": len(donors),
        "diffusion_reactions": len(diffusing),
        "database_transporters": len(database_transporters),
        **({"genome_completeness": completeness_summary(completeness)} if completeness is not None else {}),
    }
    if homology is not None:
        annotation["homology"] = {
            "aligner": homology.aligner,
            "excluded_reference_models": list(homology.excluded_models),
            "proteins_with_hits": homology.queries_with_hits,
            "proteins_assigned": homology.queries_assigned,
            "template_reactions_supported": len(homology.reactions),
            "align_seconds": round(homology.seconds_aligning, 2),
        }
    progress("assemble", 0.90, f"draft has {len(model.reactions)} reactions, {len(model.genes)} genes")
    if homology is not None and homology.weak:
        weak = {f"{tid}0": hit for tid, hit in sorted(homology.weak.items()) if f"{tid}0" not in model.reactions}
        model.notes[WEAK_EVIDENCE_NOTE] = json.dumps(weak, sort_keys=True)
        homology_summary = annotation["homology"]
        assert isinstance(homology_summary, dict)
        homology_summary["weakly_supported_reactions"] = len(weak)
    return BuildResult(model=model, annotation=annotation, timings=timings)


def load_shared_inputs(data_dir: Path, cache_dir: Path, template_name: str, aliases: Aliases) -> None:
    """Read what every build with `template_name` against the whole reference reads and the
    process keeps (the template; the reference's gene rules and reaction stoichiometry and what
    is derived from them; the database's transporters and reaction facts), so that a worker has
    it before its first job (services/job_base.warm_up): ~2.5 s of an E. coli build otherwise."""
    template = load_template(data_dir, template_name)
    _reference_aliases(Reference.installed(), cache_dir, aliases, template)
    database_index(aliases)
    aliases.reaction_details({r.id.split("_")[0] for r in template.reactions})


def _reference_aliases(reference: Reference, cache_dir: Path, aliases: Aliases, template: Any
                       ) -> tuple[dict[str, dict[str, float]], StoichiometricAliases]:
    """The reference's BiGG reaction stoichiometry, and the aliases that turn its reactions into
    the template's (ModelSEED's, completed by stoichiometry)."""
    stoichiometry = reference.reaction_stoichiometry(cache_dir)
    return stoichiometry, StoichiometricAliases(aliases, stoichiometry, template,
                                                bound_carrier_pairs(stoichiometry, reference.rules()))


def _role_evidence(source: str, functions: list[str], match: RoleMatch) -> dict[str, Any]:
    item: dict[str, Any] = {"source": source, "role": match.role_name, "function": functions[0]}
    if match.method == "ec":
        item["matched_by_ec"] = match.ec
    return item


def _build_role_model(
    model_id: str, proteins: list[Protein], gene_roles: dict[str, set[str]], template: Any
) -> tuple[cobra.Model, dict[str, dict[str, dict[str, set[str]]]]]:
    import_modelseedpy()
    from modelseedpy.core.msbuilder import MSBuilder
    from modelseedpy.core.msgenome import MSFeature, MSGenome

    genome = MSGenome()
    features = []
    role_names = {role.id: role.name for role in template.roles}
    for protein in proteins:
        feature = MSFeature(protein.id, protein.sequence)
        for role_id in sorted(gene_roles.get(protein.id, ())):
            feature.add_ontology_term("RAST", role_names[role_id])
        features.append(feature)
    genome.add_features(features)
    builder = MSBuilder(genome, template)
    try:
        model = builder.build(model_id, "0", allow_all_non_grp_reactions=True, annotate_with_rast=False)
    except Exception as exc:  # ModelSEEDpy raises plain exceptions; keep its message for the user
        raise LibraryError(
            ErrorCode.MODEL_BUILD_ERROR, f"ModelSEEDpy could not assemble the draft: {exc}",
            details={"stage": "base_model_construction", "error": type(exc).__name__},
        ) from exc
    return model, builder.reaction_to_complex_sets or {}


def _add_homology_reactions(
    model: cobra.Model, template: Any, homology: HomologyResult,
    sources: dict[str, set[str]], evidence: dict[str, dict[str, Any]],
    enzymes: dict[str, set[frozenset[frozenset[str]]]],
) -> None:
    new = []
    for template_rxn_id, item in sorted(homology.reactions.items()):
        rid = f"{template_rxn_id}0"
        record = _homology_record(item)
        if rid not in model.reactions:
            reaction = template.reactions.get_by_id(inside_id(template_rxn_id)).to_reaction(model, "0")
            if template_rxn_id != inside_id(template_rxn_id):
                reaction = outside_copy(model, reaction, rid)
            reaction.annotation["sbo"] = "SBO:0000176"
            new.append(reaction)
        enzymes.setdefault(rid, set()).update(item.complexes)
        sources.setdefault(rid, set()).add(SOURCE_HOMOLOGY)
        evidence.setdefault(rid, {})["homology"] = record
    model.add_reactions(new)


def _homology_record(item: HomologyEvidence) -> dict[str, Any]:
    return {"best_hit": {"gene": item.best_query, "reference": item.best_target,
                         "identity": round(item.best_identity, 1)},
            "bigg_reactions": sorted(item.bigg_reactions)[:5]}


def _add_atpm(model: cobra.Model) -> None:
    """Non-growth-associated ATP maintenance, ATP + H2O -> ADP + Pi + H+, lower bound 0: the
    draft does not assume an organism-specific maintenance demand."""
    from cobra import Reaction

    if ATPM_ID in model.reactions:
        return
    needed = {"cpd00002_c0": -1, "cpd00001_c0": -1, "cpd00008_c0": 1, "cpd00009_c0": 1, "cpd00067_c0": 1}
    if not all(m in model.metabolites for m in needed):
        return
    reaction = Reaction(ATPM_ID, "ATP maintenance requirement", "", 0.0, 1000.0)
    reaction.add_metabolites({model.metabolites.get_by_id(m): c for m, c in needed.items()})
    reaction.annotation["sbo"] = "SBO:0000630"
    model.add_reactions([reaction])


def _annotate_reactions(model: cobra.Model, sources: dict[str, set[str]], evidence: dict[str, dict[str, Any]]) -> None:
    for reaction in model.reactions:
        found = sources.get(reaction.id)
        if found:
            reaction.notes["gemflux_sources"] = ";".join(sorted(found))
            reaction.notes["gemflux_evidence"] = json.dumps(evidence.get(reaction.id, {}), sort_keys=True)
        elif reaction.id.startswith("rxn") and not reaction.genes:
            reaction.notes["gemflux_sources"] = "template"


def _count_by_source(sources: dict[str, set[str]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for found in sources.values():
        for source in found:
            counts[source] = counts.get(source, 0) + 1
        if len(found) > 1:
            counts["more_than_one_source"] = counts.get("more_than_one_source", 0) + 1
    return counts


def describe_draft(model: cobra.Model, template: str, annotation: dict[str, Any]) -> dict[str, Any]:
    """The model part of build_model's answer (contracts/tools.json), without ids and storage fields."""
    from .model_io import summarize

    summary = summarize(model)
    biomass = next((r.id for r in model.reactions if r.id.startswith("bio")), None)
    n = summary["num_reactions"]
    quality = ("High-quality draft" if n > 1000 else "Good draft" if n > 500
               else "Basic draft" if n > 100 else "Minimal draft")
    gene_associated = annotation.get("gene_associated_reactions", 0)
    completeness = annotation.get("genome_completeness")
    annotation = {k: v for k, v in annotation.items() if k != "genome_completeness"}
    return {
        "num_reactions": n,
        "num_metabolites": summary["num_metabolites"],
        "num_genes": summary["num_genes"],
        "num_exchange_reactions": sum(1 for r in model.reactions if r.id.startswith("EX_")),
        "template_used": template,
        "has_biomass_reaction": biomass is not None,
        "biomass_reaction_id": biomass or "bio1",
        "compartments": summary["compartments"],
        "has_atpm": ATPM_ID in model.reactions,
        "atpm_reaction_id": ATPM_ID,
        "statistics": summary["statistics"],
        "annotation": annotation,
        "genome_completeness": completeness,
        "model_properties": {"is_draft": True, "requires_gapfilling": True,
                             "estimated_growth_without_gapfilling": 0.0},
        "interpretation": {
            "model_quality": f"{quality}: {n} reactions, {gene_associated} of them gene-associated.",
            "annotation_status": ", ".join(f"{k}: {v} reactions" for k, v in
                                           annotation.get("reactions_by_source", {}).items()) or "no evidence",
            "model_state": "draft: not gapfilled; it usually cannot grow until gapfill_model adds missing reactions",
            "readiness": "ready for gapfill_model",
            **({"genome": completeness["verdict"]} if completeness else {}),
        },
    }
