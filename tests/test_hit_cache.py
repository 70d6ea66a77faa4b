"""Homology hits kept per sequence (modeling/hit_cache.py): a search with an index folder aligns
only the sequences not searched before against that reference, and what it returns equals one
search of all the proteins with real MMseqs2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gem_flux_mcp.modeling import align, hit_cache
from gem_flux_mcp.modeling.hit_cache import HitCache
from gem_flux_mcp.modeling.inputs import read_proteins_file


def small_reference(data_dir: Path, tmp_path: Path) -> tuple[dict[str, str], Path]:
    """60 E. coli proteins as queries; a reference of every other one with a residue removed, and
    300 unrelated B. subtilis proteins."""
    proteins = read_proteins_file(data_dir / "genomes" / "ecoli_k12_mg1655.faa", "proteins").proteins[:60]
    others = (data_dir / "genomes" / "bsubtilis_168.faa").read_text().split(">")[1:300]
    reference = tmp_path / "reference.faa"
    reference.write_text("".join(f">ref.{p.id}\n{p.sequence[:30]}{p.sequence[31:]}\n" for p in proteins[::2])
                         + "".join(f">{record}" for record in others))
    return {p.id: p.sequence for p in proteins}, reference


def by_query(hits: list[align.Hit], queries: dict[str, str]) -> dict[str, list[tuple[str, float, float, float]]]:
    """Each query's hits (target, identity, E-value, bits) in the order the search gave them."""
    grouped: dict[str, list[tuple[str, float, float, float]]] = {q: [] for q in queries}
    for hit in hits:
        if hit.query in grouped:
            grouped[hit.query].append((hit.target, hit.identity, hit.evalue, hit.bits))
    return grouped


@pytest.mark.slow  # MMseqs2 indexes a reference and searches it (~10 s each)
def test_kept_hits_equal_one_search_of_everything(data_dir: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    queries, reference = small_reference(data_dir, tmp_path)
    mmseqs = align.choose_aligner("mmseqs")
    aligned: list[int] = []
    real_align = align._align

    def counting(batch: dict[str, str], *args: Any, **kwargs: Any) -> list[align.Hit]:
        aligned.append(len(batch))
        return real_align(batch, *args, **kwargs)

    at_once = real_align(queries, reference, mmseqs, 2)  # easy-search: the same hits as the indexed search
    assert len({h.query for h in at_once}) >= 30
    monkeypatch.setattr(align, "_align", counting)
    monkeypatch.setattr(align, "_recent", {})  # the in-memory answer would hide the kept one
    index_dir = tmp_path / "index"
    first = dict(list(queries.items())[:25])
    align.search(first, reference, mmseqs, 2, index_dir=index_dir)
    align._recent.clear()
    twin = {"copy_of_first": next(iter(first.values()))}  # another id, a sequence searched before
    both = align.search({**queries, **twin}, reference, mmseqs, 2, index_dir=index_dir)
    assert aligned == [25, 35]  # only the 35 new sequences went to the aligner
    assert by_query(both, queries) == by_query(at_once, queries)  # the same hits, each query's in the same order
    first_id = next(iter(first))
    assert by_query(both, twin)["copy_of_first"] == by_query(at_once, queries)[first_id]

    align._recent.clear()
    assert by_query(align.search(queries, reference, mmseqs, 2, index_dir=index_dir), queries) == \
        by_query(at_once, queries)
    assert aligned == [25, 35]  # nothing aligned: all kept
    assert [p.name for p in index_dir.glob("hits-*.sqlite")] and list(index_dir.glob("mmseqs-*"))

    monkeypatch.setenv("GEMFLUX_KEEP_HITS", "0")  # what the benchmarks set: cold builds, every protein aligned
    align._recent.clear()
    assert by_query(align.search(queries, reference, mmseqs, 2, index_dir=index_dir), queries) == \
        by_query(at_once, queries)
    assert aligned == [25, 35, 60]


@pytest.mark.slow
def test_a_near_best_search_keeps_what_the_full_search_finds(data_dir: Path, tmp_path: Path) -> None:
    """The build's search (two MMseqs2 passes: every candidate scored, the near-best aligned in
    full) keeps exactly the hits a full search finds near each query's best: same targets,
    identities, E-values and bits, in the same order; the targets set apart keep their own best."""
    proteins = read_proteins_file(data_dir / "genomes" / "ecoli_k12_mg1655.faa", "proteins").proteins[:120]
    others = read_proteins_file(data_dir / "genomes" / "bsubtilis_168.faa", "proteins").proteins[:1500]
    reference = tmp_path / "reference.faa"
    reference.write_text("".join(f">ref.{p.id}\n{p.sequence[:30]}{p.sequence[31:]}\n" for p in proteins[::2])
                         + "".join(f">bsu.{p.id}\n{p.sequence}\n" for p in others))
    queries = {p.id: p.sequence for p in proteins} | {"no_homolog": "MKVLAAGIVGLLLAPQQQ"}
    mmseqs = align.choose_aligner("mmseqs")
    index_dir = tmp_path / "index"
    everything = align._align(queries, reference, mmseqs, 2, index_dir)
    apart = align.NearBest(0.9, frozenset(f"bsu.{p.id}" for p in others))
    kept = align._align(queries, reference, mmseqs, 2, index_dir, apart)
    assert by_query(kept, queries) == by_query(apart.keeps(everything), queries)
    # the selection keeps fewer hits than there are, and apart targets have a best of their own
    together = align.NearBest(0.9).keeps(everything)
    assert len(together) < len(kept) < len(everything)
    best = {q: max(h.bits for h in everything if h.query == q) for q in {h.query for h in everything}}
    assert any(h.target.startswith("bsu.") and h.bits < 0.9 * best[h.query] for h in kept)
    assert not by_query(kept, queries)["no_homolog"]
    # through search(): the same answer, kept per sequence apart from the full search's
    align._recent.clear()
    assert by_query(align.search(queries, reference, mmseqs, 2, index_dir=index_dir, near_best=apart), queries) == \
        by_query(kept, queries)
    assert len(list(index_dir.glob("hits-*.sqlite"))) == 1


@pytest.mark.slow
def test_a_changed_reference_is_searched_again(data_dir: Path, tmp_path: Path) -> None:
    queries, reference = small_reference(data_dir, tmp_path)
    mmseqs = align.choose_aligner("mmseqs")
    before = align._search_keeping_hits(queries, reference, mmseqs, 2, tmp_path / "index")
    reference.write_text(reference.read_text().replace(">ref.", ">renamed.", 5))
    after = align._search_keeping_hits(queries, reference, mmseqs, 2, tmp_path / "index")
    assert {h.target for h in after} != {h.target for h in before}
    assert any(h.target.startswith("renamed.") for h in after)
    assert len(list((tmp_path / "index").glob("hits-*.sqlite"))) == 2


def test_the_kept_file_round_trips_and_stays_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = HitCache(tmp_path / "hits.sqlite")
    assert cache.lookup(["MKV"]) == {}
    cache.store({"MKV": [("iML1515.b0001", 98.5, 1.5e-120, 402.25), ("other.x", 40.0, 3e-11, 55.0)], "MAAA": []})
    assert cache.lookup(["MKV", "MAAA", "MQQQ"]) == {
        "MKV": [("iML1515.b0001", 98.5, 1.5e-120, 402.25), ("other.x", 40.0, 3e-11, 55.0)], "MAAA": []}
    monkeypatch.setattr(hit_cache, "MAX_SEQUENCES", 10)
    cache.store({f"M{'A' * i}W": [] for i in range(12)})  # 14 kept > 10: the oldest half goes
    kept = cache.lookup(["MKV", "MAAA", *(f"M{'A' * i}W" for i in range(12))])
    assert len(kept) == 5 and "MKV" not in kept and f"M{'A' * 11}W" in kept


def test_a_damaged_file_is_searched_around(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Only a cache: a file that is not a database costs a search, never a build."""
    path = tmp_path / "hits.sqlite"
    path.write_bytes(b"not a database" * 100)
    cache = HitCache(path)
    assert cache.lookup(["MKV"]) == {}
    cache.store({"MKV": []})
    assert "not read" in caplog.text and "not kept" in caplog.text
