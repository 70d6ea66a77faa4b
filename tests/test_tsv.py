from gem_flux_mcp.data import tsv


def test_clean_turns_null_marker_into_empty() -> None:
    assert tsv.clean("null") == ""
    assert tsv.clean(" NULL ") == ""
    assert tsv.clean(None) == ""
    assert tsv.clean("x") == "x"


def test_numbers_treat_unknown_marker_and_null_as_missing() -> None:
    assert tsv.to_float("10000000") is None
    assert tsv.to_float("null") is None
    assert tsv.to_float("-2.5") == -2.5
    assert tsv.to_float("nan") is None


def test_aliases_are_grouped_by_source() -> None:
    parsed = tsv.parse_aliases("Name: D-Glc; Glucose|BiGG: glc__D|KEGG: C00031; C00293")
    assert parsed == {"Name": ["D-Glc", "Glucose"], "BiGG": ["glc__D"], "KEGG": ["C00031", "C00293"]}
    assert tsv.parse_aliases("null") == {}


def test_pathways_keep_every_entry_with_nested_parentheses() -> None:
    parsed = tsv.parse_pathways(
        "MetaCyc: PWY-7805 ((aminomethyl)phosphonate degradation); Degradation (Degradation/Utilization)"
        "|KEGG: rn00010 (Glycolysis / Gluconeogenesis)"
    )
    assert parsed == [
        {"source": "MetaCyc", "id": "PWY-7805", "name": "(aminomethyl)phosphonate degradation"},
        {"source": "MetaCyc", "id": "Degradation", "name": "Degradation/Utilization"},
        {"source": "KEGG", "id": "rn00010", "name": "Glycolysis / Gluconeogenesis"},
    ]


def test_readable_equation_drops_unit_coefficients_and_marks_transport_compartments() -> None:
    assert tsv.readable_equation("(1) ATP[0] + (2) H2O[0] <=> (1) ADP[0]", False) == "ATP + 2 H2O <=> ADP"
    assert tsv.readable_equation("(1) H+[1] + (1) Glc[1] => (1) H+[0] + (1) Glc[0]", True) == (
        "H+[e0] + Glc[e0] => H+[c0] + Glc[c0]"
    )


def test_split_list_handles_both_separators() -> None:
    assert tsv.split_list("1.1.1.1|2.7.1.40") == ["1.1.1.1", "2.7.1.40"]
    assert tsv.split_list("null") == []
