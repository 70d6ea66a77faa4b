"""Genome completeness and contamination from universal single-copy markers (issue 34,
modeling/completeness.py), on the development proteomes.

Each estimate that searches (MMseqs2, ~3-5 s on 2 cores) is in the slow tier; the marker files'
consistency and the empty proteome run in the fast tier. A genome is always estimated without its
own organism's marker proteins (`marker_set_without`), as a new genome would be; the simulated
MAGs remove proteins (not contigs) with a seeded random draw, as benchmarks/mags.py does.
"""

from __future__ import annotations

import json
import random
import re
from importlib import resources
from pathlib import Path

import pytest

from gem_flux_mcp.modeling import align
from gem_flux_mcp.modeling.completeness import (
    GenomeCompleteness,
    MarkerSet,
    bundled_markers,
    estimate_completeness,
    marker_set_without,
    read_marker_fasta,
)

ECOLI = "GCF_000005845.2"  # the organism E. coli K-12's marker proteins are filed under
BSUB = "bsubtilis_168"
ORGANISMS = {ECOLI, "GCF_000008765.1", "GCF_000011065.1", "GCF_000020425.1", "GCF_000175255.2",
             "GCF_000203855.3", "GCF_000392875.1", "GCF_001561955.1", BSUB}
CONTAMINANT = "bsub|"


def read_faa(path: Path) -> dict[str, str]:
    """protein id -> sequence of a plain protein FASTA (trailing '*' removed)."""
    found: dict[str, list[str]] = {}
    current = ""
    for line in path.read_text().splitlines():
        if line.startswith(">"):
            current = line[1:].split()[0]
            found[current] = []
        elif current:
            found[current].append(line.strip())
    return {pid: "".join(parts).rstrip("*") for pid, parts in found.items()}


def sample(proteins: dict[str, str], percent: float, seed: str) -> dict[str, str]:
    ids = sorted(proteins)
    return {pid: proteins[pid] for pid in random.Random(seed).sample(ids, round(len(ids) * percent / 100.0))}


@pytest.fixture(scope="module")
def ecoli_proteins(data_dir: Path) -> dict[str, str]:
    return read_faa(data_dir / "genomes" / "ecoli_k12_mg1655.faa")


@pytest.fixture(scope="module")
def bsub_proteins(data_dir: Path) -> dict[str, str]:
    return read_faa(data_dir / "genomes" / "bsubtilis_168.faa")


@pytest.fixture(scope="module")
def without_ecoli(tmp_path_factory: pytest.TempPathFactory, ecoli_proteins: dict[str, str]) -> MarkerSet:
    markers = marker_set_without(bundled_markers(), [ECOLI], tmp_path_factory.mktemp("markers"))
    # E. coli's own marker proteins are really gone: none of the remaining ones is an E. coli protein
    sequences = set(ecoli_proteins.values())
    assert not [rid for rid, seq in read_marker_fasta(markers.fasta).items() if seq in sequences]
    assert set(markers.families) == set(bundled_markers().families)
    return markers


@pytest.fixture(scope="module")
def ecoli_estimate(ecoli_proteins: dict[str, str], without_ecoli: MarkerSet) -> GenomeCompleteness:
    return estimate_completeness(ecoli_proteins, markers=without_ecoli)


def test_marker_files_agree() -> None:
    folder = resources.files("gem_flux_mcp.data")
    described = json.loads(folder.joinpath("markers.json").read_text())
    families = set(described["families"])
    proteins = read_marker_fasta(Path(str(folder.joinpath("markers.faa.gz"))))
    assert len(families) == 92
    assert len(proteins) == len(bundled_markers().proteins) > len(families)
    by_family: dict[str, set[str]] = {}
    for rid, sequence in proteins.items():
        family, organism, protein = rid.split("|")  # exactly three parts
        assert family in families, rid
        assert organism in ORGANISMS, rid
        assert re.fullmatch(r"[A-Z]{2}_\d+\.\d+", protein), rid
        assert re.fullmatch(r"[ACDEFGHIKLMNPQRSTVWYXUOBZJ]+", sequence), rid
        by_family.setdefault(family, set()).add(organism)
    assert set(by_family) == families  # every family has proteins
    # the rule markers.json states: single copy in >= 8 of 9 organisms, so every family has
    # reference proteins from several organisms (leaving one out never empties a family)
    assert min(len(organisms) for organisms in by_family.values()) >= 2
    assert set(described["single_copy_in"]) == families
    assert all(8 <= n <= 9 for n in described["single_copy_in"].values())
    assert bundled_markers().families == described["families"]


def test_empty_proteome_is_zero_without_aligning(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the aligner was called for an empty proteome")

    monkeypatch.setattr(align, "search", refuse)
    monkeypatch.setattr(align, "choose_aligner", refuse)
    result = estimate_completeness({})
    assert (result.completeness, result.contamination, result.present, result.extra_copies) == (0.0, 0.0, 0, 0)
    assert result.markers == 92
    assert result.missing(bundled_markers().families) == sorted(bundled_markers().families)
    assert result.duplicated() == {}
    assert result.verdict().startswith("fragmentary: 0 of 92")


@pytest.mark.slow
def test_complete_genome_without_its_own_markers(ecoli_estimate: GenomeCompleteness) -> None:
    assert ecoli_estimate.completeness >= 95.0, ecoli_estimate.verdict()
    assert ecoli_estimate.contamination <= 5.0, ecoli_estimate.duplicated()
    assert ecoli_estimate.verdict().startswith("near complete")
    assert set(ecoli_estimate.found) == set(bundled_markers().families)


@pytest.mark.slow
def test_seventy_percent_subset(ecoli_proteins: dict[str, str], without_ecoli: MarkerSet,
                                ecoli_estimate: GenomeCompleteness) -> None:
    mag = sample(ecoli_proteins, 70, "ecoli|70|0")
    result = estimate_completeness(mag, markers=without_ecoli)
    assert abs(result.completeness - 70.0) <= 10.0, result.verdict()
    assert result.contamination <= 5.0
    # a subset finds a subset: no family the MAG has is one the complete genome lacks, and the
    # families it lost are those whose E. coli proteins were all left out. The complete genome
    # counts one protein per gene; a MAG that lost it may keep another start of it (an isoform).
    def with_isoforms(genes: list[str]) -> set[str]:
        return {pid for pid, seq in ecoli_proteins.items()
                if any(seq[1:] in ecoli_proteins[gene] for gene in genes)} | set(genes)

    for family, genes in result.found.items():
        known = with_isoforms(ecoli_estimate.found[family])
        assert set(genes) <= known, family
        assert bool(genes) == bool(known & set(mag)), family
    assert "partial" in result.verdict()


@pytest.mark.slow
def test_contamination_from_another_genome(ecoli_proteins: dict[str, str], bsub_proteins: dict[str, str],
                                           tmp_path: Path) -> None:
    markers = marker_set_without(bundled_markers(), [ECOLI, BSUB], tmp_path)
    added = sample(bsub_proteins, 10, "ecoli+bsub|10|0")
    genome = {**ecoli_proteins, **{CONTAMINANT + pid: seq for pid, seq in added.items()}}
    result = estimate_completeness(genome, markers=markers)
    assert abs(result.contamination - 10.0) <= 5.0, result.duplicated()
    assert result.completeness >= 95.0
    duplicated = result.duplicated()
    from_bsub = {family for family, genes in duplicated.items() if any(g.startswith(CONTAMINANT) for g in genes)}
    assert len(from_bsub) >= 5, duplicated
    # the second copy of a family is B. subtilis' and the first E. coli's
    for family in from_bsub:
        assert any(not g.startswith(CONTAMINANT) for g in duplicated[family]), family


def test_an_alternative_start_of_the_same_gene_is_not_a_second_copy() -> None:
    """RefSeq lists some genes once per start codon (E. coli's IF-2 three times); an isoform read
    from a later start (first residue Met, the rest inside the full protein) is not a copy, a
    different protein of the family is."""
    from gem_flux_mcp.modeling.completeness import count_markers

    markers = bundled_markers()
    target, family = next(iter(markers.proteins.items()))
    full = "VKVEEIQSAAEAFGVSPRTLRNWEKKGLIEAQRTPGGHRRYTAEQIAALRDFLGT"
    sequences = {"full": full, "isoform": "M" + full[12:], "paralog": "MSTNPKPQRKTKRNTNRRPQDVKFPGG"}
    hits = [align.Hit(gene, target, 95.0, 1e-40, bits) for gene, bits in
            (("full", 300.0), ("isoform", 280.0), ("paralog", 250.0))]
    assert count_markers(hits, markers, sequences).found[family] == ["full", "paralog"]
    assert len(count_markers(hits, markers).found[family]) == 3  # without sequences, every protein counts
