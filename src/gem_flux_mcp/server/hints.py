"""Recovery hints in MCP terms, added at the boundary: lower layers (data, modeling, store) raise
an error with a code and structured details and never name a tool; this table says, per code,
what a client should try next (suggestions, the tools to call, an example call), filled in from
the error's details. The way httpx maps transport exceptions in one place.

An error keeps what its raise site said (domain advice such as "did you mean ..."); the hint's
suggestions are added after it, and its next steps and example call fill what was left empty.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError

Example = Callable[[Mapping[str, Any], str | None], dict[str, Any] | None]  # (details, tool) -> call


@dataclass(frozen=True)
class Hint:
    suggestions: tuple[str, ...] = ()  # may name details as {field}; a line whose field is missing is left out
    next_steps: tuple[str, ...] = ()
    example: Example | None = None


def _call(tool: str, **arguments: Any) -> Example:
    """An example call whose arguments may name details as '{field}'."""

    def build(details: Mapping[str, Any], tool_name: str | None) -> dict[str, Any] | None:
        filled = {_fill(k, details): _fill(v, details) if isinstance(v, str) else v for k, v in arguments.items()}
        if None in filled or any(v is None for v in filled.values()):
            return None  # a detail the example needs is missing
        return {"tool": tool, "arguments": filled}

    return build


def _same_tool(**arguments: Any) -> Example:
    """An example call of the tool that failed (arguments may name details as '{field}')."""

    def build(details: Mapping[str, Any], tool_name: str | None) -> dict[str, Any] | None:
        return _call(tool_name, **arguments)(details, tool_name) if tool_name else None

    return build


def _only_for(tool: str, example: Example) -> Example:
    def build(details: Mapping[str, Any], tool_name: str | None) -> dict[str, Any] | None:
        return example(details, tool_name) if tool_name == tool else None

    return build


def _objective_example(details: Mapping[str, Any], tool_name: str | None) -> dict[str, Any] | None:
    suggested = details.get("suggested_objectives") or ["bio1"]
    return {"tool": "run_fba", "arguments": {"model_id": details.get("model_id"), "objective": suggested[0]}}


def _search_instead(details: Mapping[str, Any], tool_name: str | None) -> dict[str, Any] | None:
    kind, provided = details.get("kind"), details.get("provided")
    if kind not in ("compound", "reaction") or not isinstance(provided, str):
        return None
    return {"tool": f"search_{kind}s", "arguments": {"query": provided.strip()[:60], "limit": 5}}


_MEDIUM_EXAMPLE = _only_for("build_media", _call(
    "build_media", compounds=["cpd00027", "cpd00007", "cpd00001", "cpd00009", "cpd00013"], default_uptake=10.0,
    custom_bounds={"cpd00027": [-5, 100]}))
_MEDIUM_CODES = (ErrorCode.EMPTY_COMPOUNDS_LIST, ErrorCode.DUPLICATE_COMPOUND_IDS, ErrorCode.COMPOUND_NOT_IN_LIST,
                 ErrorCode.INVALID_BOUNDS_FORMAT, ErrorCode.BOUNDS_OUT_OF_ORDER, ErrorCode.NEGATIVE_UPTAKE,
                 ErrorCode.INVALID_DEFAULT_UPTAKE)
_SEARCH_ARGUMENT_CODES = (ErrorCode.EMPTY_QUERY, ErrorCode.INVALID_QUERY, ErrorCode.QUERY_TOO_LONG,
                          ErrorCode.INVALID_LIMIT)

HINTS: dict[ErrorCode, Hint] = {
    **{code: Hint((), (), _MEDIUM_EXAMPLE) for code in _MEDIUM_CODES},
    ErrorCode.EMPTY_COMPOUNDS_LIST: Hint(("Use search_compounds to find ids by name.",),
                                         ("search_compounds", "build_media"), _MEDIUM_EXAMPLE),
    ErrorCode.INVALID_COMPOUND_IDS: Hint(
        ("Use search_compounds to turn names into ids (e.g. 'glucose' -> cpd00027); get_compound_name checks one.",),
        ("search_compounds", "get_compound_name"), _MEDIUM_EXAMPLE),
    **{code: Hint((), (), _same_tool(query="{query}", limit=10)) for code in _SEARCH_ARGUMENT_CODES},
    ErrorCode.EMPTY_ID: Hint((), (), _same_tool(**{"{argument}": "{example_id}"})),
    ErrorCode.INVALID_ID_FORMAT: Hint(
        ("search_compounds and search_reactions find ids by name, formula, EC number or external id.",),
        ("search_compounds", "search_reactions"), _search_instead),
    ErrorCode.INVALID_REACTION: Hint(
        ("Find database reaction ids with search_reactions; get_model shows the model.",),
        ("search_reactions", "get_model", "revise_model")),
    ErrorCode.UNKNOWN_PLATE_LAYOUT: Hint(
        ("A plate file is CSV or TSV with a header: a compound column (ModelSEED id or name) or a well column "
         "(PM1-A2), and a growth column (yes/no, 1/0, +/-, or a number with threshold).",),
        ("reconcile_phenotypes",), _same_tool(observed={"cpd00027": True, "cpd00029": False})),
    ErrorCode.UNKNOWN_GENE_TABLE_LAYOUT: Hint(
        ("A gene table is CSV or TSV with a header: a gene column (gene, locus_tag) and an essential column "
         "(yes/no, 1/0, essential/non-essential) or a fitness column with fitness_threshold.",),
        ("reconcile_phenotypes", "get_model"), _same_tool(essential_genes=["b0720"], nonessential_genes=["b0002"])),
    ErrorCode.NO_OBSERVATIONS: Hint(
        ("Give observed growth as {compound id: true/false}, or a plate file; unmapped rows are listed in the "
         "details.",), ("search_compounds", "reconcile_phenotypes")),
    ErrorCode.INVALID_GENE: Hint(("get_model lists a preview of the model's genes.",), ("get_model",)),
    ErrorCode.WOULD_EMPTY: Hint(("To discard the model, use delete_model.",), ("delete_model",)),
    ErrorCode.INVALID_OBJECTIVE: Hint(("get_model shows the model's objective.",), ("run_fba", "get_model"),
                                      _objective_example),
    ErrorCode.MODEL_INFEASIBLE: Hint(
        ("gapfill_model adds the reactions a model needs to grow on a medium.",),
        ("gapfill_model", "list_media", "build_media"), _call("gapfill_model", model_id="{model_id}",
                                                              media_id="{media_id}")),
    ErrorCode.MODEL_UNBOUNDED: Hint(("build_media's custom_bounds sets finite uptake bounds.",),
                                    ("build_media", "run_fba")),
    ErrorCode.GAPFILL_TIMEOUT: Hint(("gapfill_model(gapfill_mode='genomescale_only') skips ATP correction.",)),
    ErrorCode.GAPFILL_INFEASIBLE: Hint((), ("build_media", "gapfill_model", "list_media")),
    ErrorCode.NO_BIOMASS_OBJECTIVE: Hint(("revise_model can set bounds; import a model with a bio1 reaction.",)),
    ErrorCode.RAST_ANNOTATION_ERROR: Hint((), (), _call("build_model", annotate_with_rast=False)),
    ErrorCode.MODEL_NOT_FOUND: Hint(
        ("Call list_models to see the model ids of this workspace.",
         "Model ids are case-sensitive and include the state suffix, e.g. 'E_coli.draft.gf'."),
        ("list_models", "build_model", "import_model"), _call("list_models")),
    ErrorCode.INVALID_MEDIA_FILTER: Hint((), ("list_media", "search_compounds")),
    ErrorCode.COMMUNITY_NOT_FOUND: Hint(
        ("Call list_communities to see the community ids of this workspace.",
         "build_community(model_ids=[...]) stores a community and answers its id."),
        ("list_communities", "build_community"), _call("list_communities")),
    ErrorCode.COMMUNITY_MEMBER_CHANGED: Hint(
        ("Build the community again from the models stored now (build_community).",), ("build_community",)),
    ErrorCode.MEDIA_NOT_FOUND: Hint(
        ("Call list_media to see the media of this workspace (predefined media included).",),
        ("list_media", "build_media"), _call("list_media")),
    ErrorCode.MODEL_ID_EXISTS: Hint(
        ("Or delete the existing model first with delete_model(model_id='{model_id}').",),
        ("list_models", "delete_model")),
    ErrorCode.MODEL_FILE_CORRUPT: Hint(
        ("The model cannot be loaded. Delete it with delete_model and rebuild or re-import it.",),
        ("delete_model", "build_model", "import_model"), _call("delete_model", model_id="{model_id}")),
    ErrorCode.MODEL_EXPORT_LOST_CONTENT: Hint(
        ("export_model(format='json') keeps everything COBRApy holds; details.problems lists what SBML lost.",
         "Objects named in details.problems can be changed with revise_model before exporting again."),
        ("export_model", "revise_model", "get_model")),
    ErrorCode.DUPLICATE_NAME: Hint(
        ("Or delete the existing model first with delete_model(model_id='{existing_model_id}').",
         "Or delete the existing medium first with delete_media(media_id='{existing_media_id}')."),
        ("list_models", "list_media")),
    ErrorCode.INVALID_MODEL_NAME: Hint(
        (), (), _call("build_model", model_name="E_coli_K12")),
    ErrorCode.INVALID_MODEL_ID: Hint(("Call list_models to see valid model ids.",), ("list_models",)),
    ErrorCode.COMPOUND_NOT_FOUND: Hint(
        ("Check the id, or search by name with search_compounds.",),
        ("search_compounds",), _call("search_compounds", query="glucose")),
    ErrorCode.REACTION_NOT_FOUND: Hint(
        ("Check the id, or search by name or EC number with search_reactions.",),
        ("search_reactions",), _call("search_reactions", query="pyruvate kinase")),
}


def add_hints(error: GemFluxError, tool_name: str | None = None) -> GemFluxError:
    """Add the hint's suggestions after the error's own; fill empty next steps and example call
    (`tool_name`: the tool that failed, for examples that call it again)."""
    hint = HINTS.get(error.code)
    if hint is None:
        return error
    added = [text for line in hint.suggestions if (text := _fill(line, error.details)) is not None]
    error.suggestions = list(dict.fromkeys([*error.suggestions, *added]))
    if not error.valid_next_steps:
        error.valid_next_steps = list(hint.next_steps)
    if error.example_call is None and hint.example is not None:
        error.example_call = hint.example(error.details, tool_name)
    return error


def _fill(template: str, details: Mapping[str, Any]) -> str | None:
    """`template` with its {fields} from `details`, or None when one of them is missing."""
    fields = [name for _, name, _, _ in string.Formatter().parse(template) if name]
    if any(details.get(name) in (None, "") for name in fields):
        return None
    return template.format(**{name: _show(details[name]) for name in fields})


def _show(value: Any) -> str:
    return ", ".join(repr(v) for v in value) if isinstance(value, list | tuple) else str(value)
