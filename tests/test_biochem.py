"""The biochemistry index against independent readings of the same TSVs."""

from __future__ import annotations

import csv
import json
from itertools import chain
from pathlib import Path
from typing import Any

import pytest

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.errors import NotFoundError, ValidationError


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


@pytest.fixture(scope="module")
def compound_rows(data_dir: Path) -> list[dict[str, str]]:
    return _rows(data_dir / "modelseed" / "compounds.tsv")


@pytest.fixture(scope="module")
def reaction_rows(data_dir: Path) -> list[dict[str, str]]:
    return _rows(data_dir / "modelseed" / "reactions.tsv")


def test_counts_match_the_files(biochem: BiochemIndex, compound_rows: list[Any], reaction_rows: list[Any]) -> None:
    assert biochem.compound_count == len(compound_rows)
    assert biochem.reaction_count == len(reaction_rows)


def test_warm_open_reuses_the_index(data_dir: Path, cache_dir: Path, biochem: BiochemIndex) -> None:
    again = BiochemIndex.open(data_dir, cache_dir)
    assert again.path == biochem.path
    assert again.meta["compounds_sha256"] == biochem.meta["compounds_sha256"]


def test_compound_record_matches_the_tsv(biochem: BiochemIndex, compound_rows: list[dict[str, str]]) -> None:
    row = next(r for r in compound_rows if r["id"] == "cpd00027")
    record = biochem.get_compound("  CPD00027 ")
    assert record["name"] == row["name"] == "D-Glucose"
    assert record["formula"] == row["formula"]
    assert record["mass"] == float(row["mass"])
    assert record["abbreviation"] == "glc-D"
    assert "glc__D" in record["aliases"]["BiGG"]
    assert "Glucose" in record["aliases"]["Name"]
    assert biochem.get_compound("cpd00027_e0")["id"] == "cpd00027"


def test_null_never_reaches_the_user(biochem: BiochemIndex, compound_rows: list[dict[str, str]],
                                     reaction_rows: list[dict[str, str]]) -> None:
    # entries whose rows hold the literal `null` in many columns
    cpds = [r["id"] for r in compound_rows if r["mass"] == "null" or list(r.values()).count("null") >= 6][:200]
    rxns = [r["id"] for r in reaction_rows if r["ec_numbers"] == "null" and r["pathways"] == "null"][:200]
    assert cpds and rxns
    for record in [biochem.get_compound(c) for c in cpds] + [biochem.get_reaction(r) for r in rxns]:
        text = json.dumps(record)
        assert '"null"' not in text and "null;" not in text and ": null|" not in text, record["id"]
    rxn = biochem.get_reaction(rxns[0])
    assert rxn["ec_numbers"] == [] and rxn["pathways"] == []


def test_glucose_finds_d_glucose_in_top_three(biochem: BiochemIndex) -> None:
    ids = [r["id"] for r in biochem.search_compounds("glucose", 10)["results"]]
    assert "cpd00027" in ids[:3], ids


@pytest.mark.parametrize(
    ("query", "expected", "field"),
    [
        ("Dextrose", "cpd00027", "synonym"),       # a Name: alias
        ("C00031", "cpd00027", "external_id"),     # KEGG
        ("glc__D", "cpd00027", "external_id"),     # BiGG
        ("pyr", "cpd00020", "abbreviation"),
        ("cpd00020", "cpd00020", "id"),
    ],
)
def test_compound_synonyms_and_external_ids(biochem: BiochemIndex, query: str, expected: str, field: str) -> None:
    first = biochem.search_compounds(query, 5)["results"][0]
    assert (first["id"], first["match_field"]) == (expected, field)


def test_metacyc_ids_are_found(biochem: BiochemIndex, compound_rows: list[dict[str, str]]) -> None:
    row = next(r for r in compound_rows if r["id"] == "cpd00020")
    metacyc = next(b for b in row["aliases"].split("|") if b.startswith("MetaCyc:")).split(":", 1)[1].split(";")[0]
    ids = [r["id"] for r in biochem.search_compounds(metacyc.strip(), 10)["results"]]
    assert "cpd00020" in ids


def test_multi_word_queries_match_all_words(biochem: BiochemIndex) -> None:
    results = biochem.search_compounds("glucose phosphate", 50)["results"]
    assert results
    for hit in results:
        record = biochem.get_compound(hit["id"])
        haystack = " ".join([record["name"], *chain.from_iterable(record["aliases"].values())]).lower()
        assert "glucose" in haystack and "phosphate" in haystack, hit


def test_ec_search_is_exact_per_component(biochem: BiochemIndex, reaction_rows: list[dict[str, str]]) -> None:
    expected = {r["id"] for r in reaction_rows if "2.7.1.1" in r["ec_numbers"].split("|")}
    found = biochem.search_reactions("2.7.1.1", 100)
    assert not found["truncated"]
    assert {r["id"] for r in found["results"]} == expected
    assert all("2.7.1.1" in r["ec_numbers"] for r in found["results"])


def test_ec_class_prefix_returns_only_that_class(biochem: BiochemIndex) -> None:
    results = biochem.search_reactions("EC 2.7.1", 100)["results"]
    assert len(results) == 100
    assert all(any(ec.startswith("2.7.1.") for ec in r["ec_numbers"]) for r in results)


def test_reaction_lookup_by_names_and_external_ids(biochem: BiochemIndex) -> None:
    assert biochem.search_reactions("pyruvate kinase", 5)["results"][0]["id"] == "rxn00148"
    assert biochem.search_reactions("R00200", 5)["results"][0]["id"] == "rxn00148"
    assert biochem.search_reactions("PYK", 5)["results"][0]["id"] == "rxn00148"
    record = biochem.get_reaction("rxn00148")
    assert record["ec_numbers"] == ["2.7.1.40"]
    assert record["equation"] == "ATP + Pyruvate <=> ADP + Phosphoenolpyruvate + H+"
    assert {"source": "KEGG", "id": "rn00010", "name": "Glycolysis / Gluconeogenesis"} in record["pathways"]


def test_obsolete_entries_rank_below_current_and_name_their_replacement(
    biochem: BiochemIndex, reaction_rows: list[dict[str, str]]
) -> None:
    # find an obsolete reaction that shares its exact name with a current one
    current = {r["name"].lower() for r in reaction_rows if r["is_obsolete"] == "0" and r["name"] not in ("", "null")}
    obsolete = next(r for r in reaction_rows if r["is_obsolete"] == "1" and r["name"].lower() in current
                    and r["linked_reaction"] not in ("", "null"))
    results = biochem.search_reactions(obsolete["name"], 100)["results"]
    flags = [r["is_obsolete"] for r in results]
    assert True in flags and False in flags
    assert flags == sorted(flags), "every current entry must come before every obsolete one"
    hit = next(r for r in results if r["id"] == obsolete["id"])
    assert hit["replaced_by"] and all(x.startswith("rxn") for x in hit["replaced_by"])
    assert biochem.get_reaction(obsolete["id"])["replaced_by"] == hit["replaced_by"]


@pytest.mark.parametrize("bad", ["", "   ", "cpd123", "glucose", "rxn00148", "cpd000271"])
def test_malformed_compound_ids_are_validation_errors(biochem: BiochemIndex, bad: str) -> None:
    with pytest.raises(ValidationError) as info:
        biochem.get_compound(bad)
    assert info.value.code in {"EMPTY_ID", "INVALID_ID_FORMAT"}


def test_unknown_ids_are_not_found(biochem: BiochemIndex) -> None:
    with pytest.raises(NotFoundError) as info:
        biochem.get_reaction("rxn99999")
    assert info.value.code == "REACTION_NOT_FOUND"
    assert info.value.envelope("get_reaction_name")["details"]["reaction_id"] == "rxn99999"


@pytest.mark.parametrize(
    ("query", "limit", "code"),
    [("", 10, "EMPTY_QUERY"), ("x" * 10_000, 10, "QUERY_TOO_LONG"), ("glucose", 0, "INVALID_LIMIT"),
     ("glucose", 10_000, "INVALID_LIMIT"), ("glucose", True, "INVALID_LIMIT")],
)
def test_search_argument_errors(biochem: BiochemIndex, query: str, limit: Any, code: str) -> None:
    with pytest.raises(ValidationError) as info:
        biochem.search_compounds(query, limit)
    assert info.value.code == code


def test_zero_results_is_success(biochem: BiochemIndex) -> None:
    found = biochem.search_compounds("zzqqxxnotacompound", 10)
    assert found["results"] == [] and found["truncated"] is False


def test_short_queries_and_formulas(biochem: BiochemIndex) -> None:
    assert biochem.search_compounds("o2", 5)["results"][0]["id"] == "cpd00007"
    assert biochem.search_compounds("H2O", 5)["results"][0]["id"] == "cpd00001"
    formula_hits = biochem.search_compounds("C6H12O6", 20)["results"]
    assert "cpd00027" in [h["id"] for h in formula_hits]
    assert all(h["formula"] == "C6H12O6" for h in formula_hits if h["match_field"] == "formula")


def test_external_ids_that_differ_only_in_case_each_get_an_answer(biochem: BiochemIndex,
                                                                   compound_rows: list[dict[str, str]]) -> None:
    """BiGG models use both 'ACP' and 'acp' (ModelSEED's aliases have only 'ACP'): asked together,
    in either order, each is answered (the index is case-folded), by a compound carrying the id
    in the same case when one does, else in another case. Before, one of the two was dropped,
    depending on the order of a set."""
    carriers: dict[str, set[str]] = {}
    for row in compound_rows:
        for alias in row["aliases"].split("|"):
            source, _, values = alias.partition(":")
            if source.strip() == "BiGG":
                for value in values.split(";"):
                    carriers.setdefault(value.strip(), set()).add(row["id"])
    folded: dict[str, set[str]] = {}
    for value, ids in carriers.items():
        folded.setdefault(value.lower(), set()).update(ids)
    assert "ACP" in carriers and "acp" not in carriers
    for order in (["ACP", "acp", "glc__D"], ["acp", "glc__D", "ACP"]):
        found = biochem.compound_ids_for_external("BiGG", order)
        assert set(found) == set(order)
        for value in order:
            assert found[value] in carriers.get(value, folded[value.lower()])


def test_reaction_details_are_read_once_and_given_as_copies(biochem: BiochemIndex,
                                                            reaction_rows: list[dict[str, str]]) -> None:
    """A build and its gapfill ask for every template reaction's details: each record is read from
    the index once per process, and what a caller changes in an answer does not reach the next."""
    index = BiochemIndex(biochem.path)
    queries: list[str] = []
    index._connect().set_trace_callback(queries.append)
    ids = ["rxn00001", "rxn00002", "rxn00148"]
    first = index.reaction_details(ids)
    assert len([q for q in queries if "FROM reactions" in q]) == 1
    queries.clear()
    first["rxn00148"]["ec_numbers"].append("9.9.9.9")
    first["rxn00148"]["linked"].clear()
    again = index.reaction_details(["rxn00148", "rxn00001", "rxn99999"])
    asked = [q for q in queries if "FROM reactions" in q]
    assert len(asked) == 1 and "rxn99999" in asked[0]  # only the id not read before is asked for
    assert "rxn00148" not in asked[0] and "rxn00001" not in asked[0]
    assert set(again) == {"rxn00148", "rxn00001"}
    fresh = BiochemIndex(biochem.path).reaction_details(["rxn00148"])["rxn00148"]
    assert again["rxn00148"] == fresh and "9.9.9.9" not in fresh["ec_numbers"]
    row = next(r for r in reaction_rows if r["id"] == "rxn00148")
    assert fresh["name"] == row["name"] and fresh["reversibility"] == row["reversibility"]
