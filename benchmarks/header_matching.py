"""Header function names → template roles: precision and recall of the matching rules (issue 4).

Truth comes from outside the matcher: E. coli K-12 proteins whose sequence is identical to an
iML1515 protein in CarveMe's BiGG reference inherit iML1515's gene-reaction rules, mapped to
GramNegative template reactions through the BiGG aliases of reactions.tsv. Only genes that are
in iML1515 are scored (genes outside it have no truth). A (gene, reaction) pair from header
matching is a true positive when iML1515 links that gene to that reaction.

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/header_matching.py
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.reference import Reference
from gem_flux_mcp.data.templates import load_template
from gem_flux_mcp.modeling.annotate import RoleMatcher, roles_from_functions
from gem_flux_mcp.modeling.inputs import product_from_description, read_fasta_file


def main() -> None:
    settings = Settings.resolve(data_dir=os.environ["GEMFLUX_DATA_DIR"])
    biochem = BiochemIndex.open(settings.data_dir, settings.cache_dir)
    template = load_template(settings.data_dir, "GramNegative")
    template_ids = {r.id for r in template.reactions}
    proteins = read_fasta_file(settings.data_dir / "genomes" / "ecoli_k12_mg1655.faa")

    reference = Reference.installed()
    ref_seq: dict[str, str] = {}
    current = ""
    for line in Path(reference.proteins_path).read_text().splitlines():
        if line.startswith(">"):
            current = line[1:]
        elif current.startswith("iML1515."):
            ref_seq[line.strip()] = current
    rules = reference.rules()
    bigg = {rule.reaction for target in ref_seq.values() for rule in rules.get(target, [])}
    to_ms = biochem.reaction_ids_for_external("BiGG", bigg)
    truth: dict[str, set[str]] = {}
    for p in proteins:
        target = ref_seq.get(p.sequence)
        if target:
            truth[p.id] = {f"{r}_c" for rule in rules.get(target, []) for r in to_ms.get(rule.reaction, ())
                           if f"{r}_c" in template_ids}

    # template role → reactions (through complexes)
    role_reactions: dict[str, set[str]] = defaultdict(set)
    for reaction in template.reactions:
        for cpx in reaction.complexes:
            for role in cpx.roles:
                role_reactions[role.id].add(reaction.id)
    matcher = RoleMatcher((role.id, role.name) for role in template.roles)
    products = {p.id: [prod] for p in proteins if (prod := product_from_description(p.description))}
    matches = roles_from_functions(products, matcher)
    predicted = {gene: {rxn for m in found for rxn in role_reactions[m.role_id]} for gene, found in matches.items()}

    scored = [g for g in truth if truth[g]]
    tp = sum(len(predicted.get(g, set()) & truth[g]) for g in scored)
    fp = sum(len(predicted.get(g, set()) - truth[g]) for g in scored)
    fn = sum(len(truth[g] - predicted.get(g, set())) for g in scored)
    by_method: dict[str, int] = defaultdict(int)
    for found in matches.values():
        for m in found:
            by_method[m.method] += 1
    print(f"proteins {len(proteins)}, with a product name {len(products)}, matched to roles {len(matches)}"
          f" (role assignments by method: {dict(by_method)})")
    print(f"scored genes (identical to an iML1515 protein with reactions): {len(scored)}")
    print(f"(gene, reaction) pairs: TP {tp}  FP {fp}  FN {fn}  precision {tp / max(1, tp + fp):.3f}"
          f"  recall {tp / max(1, tp + fn):.3f}")


if __name__ == "__main__":
    main()
