"""Inputs as biologists have them: proteomes with stops and pseudogenes, headers from every
common tool, genomes (gene calling checked against Prodigal's own output shipped with pyrodigal),
annotated GenBank and GFF3."""

from __future__ import annotations

import gzip
import io
import sys
from pathlib import Path

import pyrodigal
import pytest
from Bio import SeqIO
from Bio.Seq import Seq
from Bio.SeqFeature import FeatureLocation, SeqFeature
from Bio.SeqRecord import SeqRecord

from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling.annotate import RoleMatcher
from gem_flux_mcp.modeling.inputs import (
    Protein,
    clean_proteins,
    parse_fasta,
    product_from_description,
    proteins_from_text,
    read_proteins_file,
)

PYRODIGAL_DATA = Path(pyrodigal.__file__).parent / "tests" / "data"
BENCHMARK_FASTA = Path(sys.prefix) / "lib" / "python3.11" / "site-packages" / "carveme" / "data" / "benchmark" / "fasta"


def reference_proteins(name: str) -> list[str]:
    """Prodigal's own translations, as pyrodigal's test data ships them."""
    with gzip.open(PYRODIGAL_DATA / name, "rt") as handle:
        return [str(r.seq).rstrip("*") for r in SeqIO.parse(handle, "fasta")]


# ------------------------------------------------------------------------------ protein FASTA


def test_the_benchmark_ecoli_proteome_reads_as_it_is() -> None:
    """Pseudogene translations with internal stops are skipped and listed; the rest is kept."""
    path = BENCHMARK_FASTA / "Ecoli_K12_MG1655.faa"
    records = parse_fasta(path.read_text())
    with_internal_stop = {r.id for r in records if "*" in r.sequence.rstrip("*")}
    found = read_proteins_file(path, "proteins")
    assert len(with_internal_stop) == 48 and len(records) == 4321
    assert {s["id"] for s in found.report["skipped"]} == with_internal_stop
    assert found.report["skipped_by_reason"] == {"internal_stop": 48}
    assert len(found.proteins) == 4321 - 48 and all("*" not in p.sequence for p in found.proteins)
    assert any("Skipped 48 sequence(s)" in w for w in found.warnings)
    selenoproteins = [p for p in found.proteins if "U" in p.sequence]  # fdhF, fdnG, fdoG
    assert len(selenoproteins) == found.report["with_ambiguity_codes"] == 3


def test_stops_ambiguity_codes_and_unusable_sequences() -> None:
    cleaned = clean_proteins([
        Protein("stop", "mkv*"), Protein("x", "MKXBZJUOV"), Protein("internal", "MK*V*"), Protein("empty", "**"),
        Protein("digits", "MK1V"), Protein("spaced", "M K\tV"),
    ])
    assert [(p.id, p.sequence) for p in cleaned.proteins] == [("stop", "MKV"), ("x", "MKXBZJUOV"), ("spaced", "MKV")]
    assert [(s.id, s.reason) for s in cleaned.skipped] == [
        ("internal", "internal_stop"), ("empty", "empty"), ("digits", "invalid_characters")]
    assert cleaned.trailing_stops_removed == 1 and cleaned.with_ambiguity_codes == 1
    with pytest.raises(ValidationError) as info:
        clean_proteins([Protein("a", "MK*V"), Protein("b", "")])
    assert info.value.code == "INVALID_AMINO_ACIDS" and info.value.details["num_skipped"] == 2
    with pytest.raises(ValidationError) as info:
        clean_proteins([])
    assert info.value.code == "EMPTY_PROTEIN_SEQUENCES"


@pytest.mark.parametrize(("header", "expected_id", "product"), [
    # NCBI protein FASTA of a genome: locus tag, accession, product, organism
    ("b0002 NP_414543.1 fused aspartate kinase/homoserine dehydrogenase 1 [Escherichia coli str. K-12]",
     "b0002", "fused aspartate kinase/homoserine dehydrogenase 1"),
    ("NP_414542.1 thr operon leader peptide [Escherichia coli str. K-12 substr. MG1655]",
     "NP_414542.1", "thr operon leader peptide"),
    ("WP_000123.1 MULTISPECIES: pantothenate kinase [Enterobacteriaceae]", "WP_000123.1", "pantothenate kinase"),
    ("lcl|NC_000913.3_prot_NP_414543.1_2 [gene=thrA] [locus_tag=b0002] [protein=fused aspartate kinase] "
     "[protein_id=NP_414543.1] [location=337..2799] [gbkey=CDS]", "b0002", "fused aspartate kinase"),
    ("PROKKA_00001 Chromosomal replication initiator protein DnaA", "PROKKA_00001",
     "Chromosomal replication initiator protein DnaA"),
    ("GFMLCD_00005 Glucose-6-phosphate isomerase", "GFMLCD_00005", "Glucose-6-phosphate isomerase"),
    ("contig_1_7 # 5 # 898 # 1 # ID=1_7;partial=00;start_type=ATG;rbs_motif=GGAG", "contig_1_7", None),
    ("sp|P0A7B8|HSLV_ECOLI ATP-dependent protease subunit HslV OS=Escherichia coli (strain K12) OX=83333 GN=hslV",
     "sp|P0A7B8|HSLV_ECOLI", "ATP-dependent protease subunit HslV"),
    ("g1 hypothetical protein", "g1", None),
])
def test_headers_of_common_tools(header: str, expected_id: str, product: str | None) -> None:
    record = parse_fasta(f">{header}\r\nMKV\r\n")[0]
    assert record.id == expected_id
    assert product_from_description(record.description) == product


def test_accessions_and_trailing_gene_symbols_do_not_block_a_role_match() -> None:
    matcher = RoleMatcher([("r1", "Pantothenate kinase (EC 2.7.1.33)"),
                           ("r2", "Chromosomal replication initiator protein DnaA")])
    header = "b3974 NP_418405.1 pantothenate kinase CoaA [Escherichia coli]"
    product = product_from_description(parse_fasta(f">{header}\nMKV\n")[0].description)
    assert product == "pantothenate kinase CoaA"
    assert [(m.role_id, m.method) for m in matcher.match(product)] == [("r1", "relaxed_name")]
    assert [m.role_id for m in matcher.match("Chromosomal replication initiator protein DnaA")] == ["r2"]
    assert matcher.match("ribosomal protein") == []


def test_ncbi_bifunctional_names_match_each_function() -> None:
    """NCBI's "bifunctional A/B": two full names, or two names sharing their last words (AdhE);
    a slash elsewhere ("NAD(P)/FAD-dependent") splits nothing."""
    matcher = RoleMatcher([("adh", "Alcohol dehydrogenase (EC 1.1.1.1)"),
                           ("ribA", "GTP cyclohydrolase II (EC 3.5.4.25)"),
                           ("ribB", "3,4-dihydroxy-2-butanone 4-phosphate synthase (EC 4.1.99.12)"),
                           ("fad", "FAD-dependent oxidoreductase")])
    assert [m.role_id for m in matcher.match("bifunctional acetaldehyde-CoA/alcohol dehydrogenase")] == ["adh"]
    assert {m.role_id for m in matcher.match(
        "bifunctional 3,4-dihydroxy-2-butanone-4-phosphate synthase/GTP cyclohydrolase II")} == {"ribA", "ribB"}
    assert matcher.match("NAD(P)/FAD-dependent oxidoreductase") == []
    assert matcher.match("acetaldehyde-CoA/alcohol dehydrogenase") == []  # not named bifunctional


def test_duplicate_ids_are_named(tmp_path: Path) -> None:
    path = tmp_path / "dup.faa"
    path.write_text(">a\nMKV\n>b\nMKV\n>a\nMKL\n")
    with pytest.raises(ValidationError) as info:
        read_proteins_file(path, "proteins")
    assert info.value.code == "DUPLICATE_SEQUENCE_IDS" and info.value.details["duplicate_ids"] == ["a"]
    assert "a" in info.value.message


def test_nucleotides_and_proteins_in_the_wrong_place_are_named(tmp_path: Path) -> None:
    genome = PYRODIGAL_DATA / "KK037166.fna.gz"
    with pytest.raises(ValidationError) as info:
        read_proteins_file(genome, "proteins", parameter="fasta_file_path")
    assert info.value.code == "WRONG_SEQUENCE_TYPE" and info.value.details["looks_like"] == "nucleotide"
    assert "genome_file_path" in " ".join(info.value.suggestions)
    proteome = tmp_path / "p.faa"
    proteome.write_text(">a\nMKVLAAGIVGLLLSTQAHA\n")
    with pytest.raises(ValidationError) as info:
        read_proteins_file(proteome, "genome", parameter="genome_file_path")
    assert info.value.code == "WRONG_SEQUENCE_TYPE" and info.value.details["looks_like"] == "protein"


# ------------------------------------------------------------------------------------ genomes


def test_genes_of_a_genome_are_those_prodigal_calls() -> None:
    """870 kb E. coli contig: single mode, every protein equal to Prodigal's own output."""
    found = read_proteins_file(PYRODIGAL_DATA / "MIIJ01000039.fna.gz", "genome")
    expected = reference_proteins("MIIJ01000039.single.faa.gz")
    assert found.report["input_kind"] == "genome_fasta" and found.report["gene_calling_mode"] == "single"
    assert found.report["genes_called"] == len(expected) == 404
    assert [p.sequence for p in found.proteins] == expected
    assert found.proteins[0].id == "562.SAMN05730656.MIIJ01000039_1"
    assert "Called 404 genes with Prodigal (single mode)" in found.warnings[0]


def test_short_genomes_use_metagenome_profiles(tmp_path: Path) -> None:
    """20 kb scaffold: 'auto' picks meta mode, as Prodigal's authors advise below 100 kb; single
    mode cannot train on less than 20 kb."""
    found = read_proteins_file(PYRODIGAL_DATA / "KK037166.fna.gz", "auto")
    assert found.report["gene_calling_mode"] == "meta"
    assert [p.sequence for p in found.proteins] == reference_proteins("KK037166.meta.faa.gz")
    with gzip.open(PYRODIGAL_DATA / "KK037166.fna.gz", "rt") as handle:
        contig = next(SeqIO.parse(handle, "fasta"))
    short = tmp_path / "short.fna"
    short.write_text(f">short\n{contig.seq[:15_000]}\n")
    with pytest.raises(ValidationError) as info:
        read_proteins_file(short, "genome", gene_calling="single")
    assert info.value.code == "GENOME_TOO_SHORT" and info.value.details["genome_bp"] == 15_000


def test_gff3_with_embedded_fasta_is_translated_like_prodigal() -> None:
    """A Prodigal GFF3 plus its ##FASTA: every CDS translated from the sequence, alternative
    start codons read as Met, equal to Prodigal's own proteins."""
    with gzip.open(PYRODIGAL_DATA / "MIIJ01000039.fna.gz", "rt") as handle:
        contig = next(SeqIO.parse(handle, "fasta"))
    finder = pyrodigal.GeneFinder()
    finder.train(str(contig.seq))
    gff = io.StringIO()
    finder.find_genes(str(contig.seq)).write_gff(gff, contig.id)
    text = gff.getvalue() + f"##FASTA\n>{contig.id}\n{contig.seq}\n"
    found = proteins_from_text(text, "genome.gff", "genome")
    assert found.report["input_kind"] == "gff3" and found.report["translated_from_sequence"] == 404
    assert [p.sequence for p in found.proteins] == reference_proteins("MIIJ01000039.single.faa.gz")


def _genbank(tmp_path: Path) -> Path:
    """A Prokka-style GenBank: locus tags, products, one CDS without /translation, one pseudogene."""
    sequence = Seq("ATGAAAGTTCTGGCTGCTTAA" + "GGGCCC" + "ATGGCTAAAGGTTAA" + "TTTAAA" + "ATGTGATAA")
    record = SeqRecord(sequence, id="contig_1", name="contig_1", annotations={"molecule_type": "DNA"})
    record.features = [
        SeqFeature(FeatureLocation(0, 21, strand=1), type="CDS", qualifiers={
            "locus_tag": ["ABC_00001"], "product": ["Glucose-6-phosphate isomerase"], "translation": ["MKVLAA"]}),
        SeqFeature(FeatureLocation(27, 42, strand=1), type="CDS", qualifiers={
            "locus_tag": ["ABC_00002"], "product": ["pantothenate kinase CoaA"], "transl_table": ["11"]}),
        SeqFeature(FeatureLocation(48, 57, strand=1), type="CDS", qualifiers={
            "locus_tag": ["ABC_00003"], "pseudo": [""], "product": ["truncated transposase"]}),
    ]
    path = tmp_path / "genome.gbk.gz"
    text = io.StringIO()
    SeqIO.write([record], text, "genbank")
    path.write_bytes(gzip.compress(text.getvalue().encode()))
    return path


def test_annotated_genbank_gives_translations_and_products(tmp_path: Path) -> None:
    found = read_proteins_file(_genbank(tmp_path), "genome")
    assert found.report["input_kind"] == "genbank"
    assert [(p.id, p.sequence) for p in found.proteins] == [("ABC_00001", "MKVLAA"), ("ABC_00002", "MAKG")]
    assert [product_from_description(p.description) for p in found.proteins] == [
        "Glucose-6-phosphate isomerase", "pantothenate kinase CoaA"]
    assert found.report["skipped"] == [{"id": "ABC_00003", "reason": "pseudogene"}]
    assert found.report["translated_from_sequence"] == 1
