"""Each argument rule is declared once (gem_flux_mcp/rules) and both doors refuse a bad value with
its code: the MCP tool (through a real in-process client, the server's middleware and envelope)
and the `gem-flux` command line (its options read through the same rules)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from gem_flux_mcp.cli.main import main
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.rules import RULE_ERROR
from gem_flux_mcp.rules.catalog import (
    COMPOUNDS,
    DEFAULT_UPTAKE,
    REASON,
    TARGET_GROWTH_RATE,
    TRANSLATION_TABLE,
    TargetGrowthRateArg,
    UptakeRateArg,
)
from mcp_client import call, in_process_client

MODEL = "no_such_model.draft"
MEDIUM = "glucose_minimal_aerobic"

# (rule family, tool, its arguments, the same value on the command line, the code both give)
BOTH_DOORS: list[tuple[str, str, dict[str, Any], list[str], str]] = [
    ("number", "gapfill_model", {"model_id": MODEL, "media_id": MEDIUM, "target_growth_rate": -1},
     ["gapfill", "m.json", "--media", MEDIUM, "--out", "o.json", "--target-growth", "-1"],
     "INVALID_TARGET_GROWTH_RATE"),
    ("number", "run_fva", {"model_id": MODEL, "media_id": MEDIUM, "fraction_of_optimum": 1.5},
     ["fva", "m.json", "--medium", MEDIUM, "--fraction", "1.5"], "INVALID_THRESHOLD"),
    ("number", "predict_gene_essentiality", {"model_id": MODEL, "media_id": MEDIUM, "threshold": 1},
     ["essentiality", "m.json", "--medium", MEDIUM, "--threshold", "1"], "INVALID_THRESHOLD"),
    ("number", "predict_fermentation_products", {"model_id": MODEL, "media_id": MEDIUM, "min_ratio": 0},
     ["fermentation", "m.json", "--medium", MEDIUM, "--min-ratio", "0"], "INVALID_THRESHOLD"),
    ("number", "predict_growth_phenotypes", {"model_id": MODEL, "base_media_id": MEDIUM, "panel": "carbon",
                                             "growth_threshold": 11},
     ["phenotypes", "m.json", "--medium", MEDIUM, "--panel", "carbon", "--growth-threshold", "11"],
     "INVALID_THRESHOLD"),
    ("number", "predict_growth_phenotypes", {"model_id": MODEL, "base_media_id": MEDIUM, "panel": "carbon",
                                             "uptake_rate": 0},
     ["phenotypes", "m.json", "--medium", MEDIUM, "--panel", "carbon", "--uptake-rate", "0"], "INVALID_ARGUMENTS"),
    ("number", "run_community", {"community_id": "c", "media_id": MEDIUM, "tradeoff": 1.5},
     ["community", "m.json", "--medium", MEDIUM, "--tradeoff", "1.5"], "INVALID_TRADEOFF"),
    ("number", "build_models_batch", {"inputs": ["x.faa"], "out_dir": "out", "workers": 0},
     ["batch", "x.faa", "--out", "out", "--workers", "0"], "INVALID_WORKERS"),
    ("number", "reconcile_phenotypes", {"model_id": MODEL, "base_media_id": MEDIUM, "observed": {"cpd00027": True},
                                        "holdout_fraction": 1.5},
     ["reconcile", "m.json", "--medium", MEDIUM, "--plate", "p.tsv", "--out", "o.xml", "--holdout-fraction", "1.5"],
     "INVALID_HOLDOUT_FRACTION"),
    ("number", "reconcile_phenotypes", {"model_id": MODEL, "base_media_id": MEDIUM, "essential_genes": ["b0720"],
                                        "fitness_threshold": 1e9},
     ["reconcile", "m.json", "--medium", MEDIUM, "--genes", "g.tsv", "--out", "o.xml", "--fitness-threshold", "1e9"],
     "INVALID_THRESHOLD"),
    ("choice", "gapfill_model", {"model_id": MODEL, "media_id": MEDIUM, "gapfill_mode": "genome"},
     ["gapfill", "m.json", "--media", MEDIUM, "--out", "o.json", "--mode", "genome"], "INVALID_GAPFILL_MODE"),
    ("choice", "build_model", {"protein_sequences": {"p": "MKV"}, "translation_table": 7},
     ["build", "g.fna", "--out", "o.xml", "--translation-table", "7"], "INVALID_TRANSLATION_TABLE"),
    ("choice", "build_model", {"protein_sequences": {"p": "MKV"}, "gene_calling": "fast"},
     ["build", "g.fna", "--out", "o.xml", "--gene-calling", "fast"], "INVALID_GENE_CALLING"),
    ("choice", "build_model", {"protein_sequences": {"p": "MKV"}, "template": "GramNeg"},
     ["build", "g.fna", "--out", "o.xml", "--template", "GramNeg"], "INVALID_TEMPLATE"),
    ("choice", "predict_growth_phenotypes", {"model_id": MODEL, "base_media_id": MEDIUM, "panel": "vitamins"},
     ["phenotypes", "m.json", "--medium", MEDIUM, "--panel", "vitamins"], "INVALID_ARGUMENTS"),
    ("choice", "predict_gene_essentiality", {"model_id": MODEL, "media_id": MEDIUM, "target": "metabolites"},
     ["essentiality", "m.json", "--medium", MEDIUM, "--target", "metabolites"], "INVALID_TARGET"),
    ("choice", "build_models_batch", {"inputs": ["x.faa"], "out_dir": "out", "template": "Core"},
     ["batch", "x.faa", "--out", "out", "--template", "Core"], "INVALID_TEMPLATE"),
]


@pytest.mark.anyio
async def test_the_tools_and_the_command_line_refuse_alike(server_env: dict[str, str],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    async with in_process_client(server_env) as client:  # refused before any model or medium is looked up
        for _family, tool, arguments, argv, code in BOTH_DOORS:
            tool_error = await call(client, tool, arguments, error=code)
            capsys.readouterr()
            assert main(argv) == 1, argv  # refused while reading the options: nothing runs
            said = capsys.readouterr().err
            assert f": {code}: " in said and "Traceback" not in said, said
            assert tool_error["message"].split(";")[0] in said, (tool_error["message"], said)


@pytest.mark.parametrize("value", [0, -1, 10.5, float("nan"), True, "fast"])
def test_a_number_rule_refuses_with_its_code(value: object) -> None:
    with pytest.raises(ValidationError) as refused:
        TARGET_GROWTH_RATE.check(value, model_id="mine.draft")
    assert refused.value.code == "INVALID_TARGET_GROWTH_RATE"
    assert refused.value.details["valid_range"] == [0, 10.0] and refused.value.details["minimum_exclusive"]
    assert refused.value.example_call is not None
    assert refused.value.example_call["arguments"]["model_id"] == "mine.draft"
    assert TARGET_GROWTH_RATE.check(10) == 10.0 and TARGET_GROWTH_RATE.parse("0.5") == 0.5


def test_a_number_below_its_range_can_have_its_own_code() -> None:
    codes = []
    for bad in (-5, 0, 5000):
        with pytest.raises(ValidationError) as refused:
            DEFAULT_UPTAKE.check(bad)
        codes.append(refused.value.code)
    assert codes == ["NEGATIVE_UPTAKE", "NEGATIVE_UPTAKE", "INVALID_DEFAULT_UPTAKE"]


def test_text_and_list_rules() -> None:
    assert REASON.check("  why  ") == "why"
    for bad, code in (("   ", "MISSING_REASON"), (None, "MISSING_REASON"), ("x" * 2001, "REASON_TOO_LONG"),
                      ("a\x00b", "MISSING_REASON")):
        with pytest.raises(ValidationError) as refused:
            REASON.check(bad)
        assert refused.value.code == code, bad
    with pytest.raises(ValidationError) as empty:
        COMPOUNDS.check([])
    assert empty.value.code == "EMPTY_COMPOUNDS_LIST"
    assert TRANSLATION_TABLE.check("11") == 11 and TRANSLATION_TABLE.parse("auto") == "auto"


def test_a_rule_publishes_its_range_and_is_what_pydantic_refuses_with() -> None:
    schema = TypeAdapter(Annotated[TargetGrowthRateArg, "doc"]).json_schema()
    assert schema == {"type": "number", "exclusiveMinimum": 0, "maximum": 10.0}
    nullable = TypeAdapter(UptakeRateArg).json_schema()
    assert nullable == {"anyOf": [{"type": "number", "exclusiveMinimum": 0, "maximum": 1000}, {"type": "null"}]}
    with pytest.raises(PydanticValidationError) as out_of_range:
        TypeAdapter(TargetGrowthRateArg).validate_python(11)
    (error,) = out_of_range.value.errors()
    assert error["type"] == RULE_ERROR and error["ctx"]["rule"] is TARGET_GROWTH_RATE
    with pytest.raises(PydanticValidationError) as wrong_type:  # a wrong type stays pydantic's own refusal
        TypeAdapter(TargetGrowthRateArg).validate_python("fast")
    assert wrong_type.value.errors()[0]["type"] == "float_parsing"
    assert TypeAdapter(UptakeRateArg).validate_python(None) is None


def test_no_hand_written_checks_remain() -> None:
    """The copies the rules replaced stay gone: no `check_*` function of an argument's range or
    values outside rules/ (the checks left test what a rule cannot: ids against the database,
    files, model content)."""
    source = Path(__file__).resolve().parents[1] / "src" / "gem_flux_mcp"
    gone = ("check_target_growth_rate", "check_gapfill_mode", "check_threshold", "check_flux_threshold",
            "check_growth_threshold", "check_uptake_rate", "check_panel", "check_min_ratio", "check_fraction",
            "check_default_uptake", "check_compounds_list", "check_search_limit", "check_gene_calling",
            "check_translation_table", "check_reason", "check_name_filter", "check_compound_filter",
            "check_build_template", "check_template_choice", "check_limit", "check_gapfill_offset", "check_workers",
            "ARGUMENT_CHECKS")
    found = [f"{path.name}: {name}" for path in source.rglob("*.py") for name in gone
             if f"def {name}(" in (text := path.read_text(encoding="utf-8")) or f"{name}:" in text]
    assert found == []
