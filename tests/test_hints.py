"""The boundary table of recovery hints (server/hints.py): every hint renders, examples are filled
from the error's details or left out when a detail is missing, and the errors clients meet most
come with what to call next."""

from __future__ import annotations

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import NotFoundError, ValidationError
from gem_flux_mcp.server.hints import HINTS, add_hints


def test_every_hint_renders_with_and_without_details() -> None:
    details = {"model_id": "E_coli.draft", "media_id": "glucose_minimal_aerobic", "name": "E_coli",
               "existing_model_id": "E_coli.draft", "existing_media_id": "m", "query": "glucose",
               "argument": "compound_id", "example_id": "cpd00027", "kind": "compound", "provided": "glucose"}
    for code in HINTS:
        full = add_hints(ValidationError(code, "x", details=dict(details)), "build_media")
        bare = add_hints(ValidationError(code, "x", details={}), "build_media")
        assert all("{" not in s for s in full.suggestions + bare.suggestions), code
        assert full.example_call is None or isinstance(full.example_call["arguments"], dict), code


def test_hints_keep_the_raise_sites_own_advice_first() -> None:
    error = NotFoundError(ErrorCode.MODEL_NOT_FOUND, "no such model", details={"model_id": "x"},
                          suggestions=["Did you mean 'x.draft'?"])
    add_hints(error, "get_model")
    assert error.suggestions[0] == "Did you mean 'x.draft'?"
    assert any("list_models" in s for s in error.suggestions[1:])
    assert error.valid_next_steps[0] == "list_models" and error.example_call == {"tool": "list_models",
                                                                                 "arguments": {}}


def test_examples_are_filled_from_details_or_left_out() -> None:
    infeasible = add_hints(ValidationError(ErrorCode.MODEL_INFEASIBLE, "x",
                                           details={"model_id": "a.draft", "media_id": "m1"}), "run_fba")
    assert infeasible.example_call == {"tool": "gapfill_model", "arguments": {"model_id": "a.draft", "media_id": "m1"}}
    assert add_hints(ValidationError(ErrorCode.MODEL_INFEASIBLE, "x", details={}), "run_fba").example_call is None
    empty_id = add_hints(ValidationError(ErrorCode.EMPTY_ID, "x", details={"argument": "reaction_id",
                                                                          "example_id": "rxn00148"}),
                         "get_reaction_name")
    assert empty_id.example_call == {"tool": "get_reaction_name", "arguments": {"reaction_id": "rxn00148"}}
    limit = add_hints(ValidationError(ErrorCode.INVALID_LIMIT, "x", details={"query": "kinase"}), "search_reactions")
    assert limit.example_call == {"tool": "search_reactions", "arguments": {"query": "kinase", "limit": 10}}
    # a medium example only where a medium is being built
    bounds = ValidationError(ErrorCode.INVALID_BOUNDS_FORMAT, "x", details={})
    assert add_hints(bounds, "revise_model").example_call is None
    assert add_hints(ValidationError(ErrorCode.INVALID_BOUNDS_FORMAT, "x", details={}),
                     "build_media").example_call["tool"] == "build_media"  # type: ignore[index]
