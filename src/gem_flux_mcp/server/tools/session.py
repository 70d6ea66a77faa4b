"""Media, model and FBA tools (CONTRACTS.md §3, §6, §11; seeds 000 and 004)."""

from __future__ import annotations

from typing import Annotated, Any

from fastmcp import FastMCP
from pydantic import Field

from gem_flux_mcp.server import schemas
from gem_flux_mcp.server.envelope import enveloped
from gem_flux_mcp.server.resources import get_file_area, get_workspace

READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
CREATES = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}
DELETES = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}

ModelId = Annotated[str, Field(description="Id of a stored model, e.g. 'E_coli.draft' (see list_models)")]
MediaId = Annotated[str, Field(description="Id of a medium, predefined (e.g. 'glucose_minimal_aerobic') or built")]


def register(mcp: FastMCP) -> None:
    @mcp.tool(name="build_media", annotations={"title": "Build medium", **CREATES},
              output_schema=schemas.output_schema(schemas.BuildMediaResult))
    @enveloped("build_media")
    def build_media(
        compounds: Annotated[list[str], Field(description="ModelSEED compound ids, e.g. ['cpd00027', 'cpd00007']")],
        default_uptake: Annotated[float, Field(description="Uptake limit for compounds without custom bounds, "
                                               "mmol/gDW/h, > 0 and <= 1000; bounds become (-uptake, 100)")] = 100.0,
        custom_bounds: Annotated[dict[str, list[float]] | None, Field(
            description="Per-compound [lower, upper] exchange bounds; lower < 0 = uptake, upper > 0 = secretion, "
                        "e.g. {'cpd00027': [-5, 100]}")] = None,
        media_name: Annotated[str | None, Field(description="Optional id for the medium ([A-Za-z0-9_-], "
                                                "not starting with 'media_'); default an automatic id")] = None,
    ) -> dict[str, Any]:
        """Create a growth medium from ModelSEED compound ids (all-or-nothing; every invalid id is
        reported at once). When applied to a model both bounds hold: uptake limits and secretion
        limits; exchanges of compounds not in the medium are closed for uptake."""
        return get_workspace().build_media(compounds, default_uptake, custom_bounds, media_name)

    @mcp.tool(name="list_media", annotations={"title": "List media", **READ_ONLY},
              output_schema=schemas.output_schema(schemas.ListMediaResult))
    @enveloped("list_media")
    def list_media() -> dict[str, Any]:
        """All media usable with run_fba and gapfill_model: the predefined library and the
        media you built, oldest first, with a preview of their compounds."""
        return get_workspace().list_media()

    @mcp.tool(name="delete_media", annotations={"title": "Delete medium", **DELETES},
              output_schema=schemas.output_schema(schemas.DeleteMediaResult))
    @enveloped("delete_media")
    def delete_media(media_id: MediaId) -> dict[str, Any]:
        """Delete a medium you built (permanent). Predefined media cannot be deleted."""
        return get_workspace().delete_media(media_id)

    @mcp.tool(name="list_models", annotations={"title": "List models", **READ_ONLY},
              output_schema=schemas.output_schema(schemas.ListModelsResult))
    @enveloped("list_models")
    def list_models(
        filter_state: Annotated[str, Field(description="all, draft or gapfilled (case-insensitive)")] = "all",
    ) -> dict[str, Any]:
        """Stored models, oldest first, with counts, template, creation time and lineage parent;
        models_by_state counts all models before filtering."""
        return get_workspace().list_models(filter_state)

    @mcp.tool(name="delete_model", annotations={"title": "Delete model", **DELETES},
              output_schema=schemas.output_schema(schemas.DeleteModelResult))
    @enveloped("delete_model")
    def delete_model(model_id: ModelId) -> dict[str, Any]:
        """Delete a stored model permanently (exact id, with its suffix). Other versions of the
        same lineage (draft vs .gf) are kept."""
        return get_workspace().delete_model(model_id)

    @mcp.tool(name="get_model", annotations={"title": "Get model", **READ_ONLY},
              output_schema=schemas.output_schema(schemas.GetModelResult))
    @enveloped("get_model")
    def get_model(
        model_id: ModelId,
        include_predictions: Annotated[bool, Field(description="Add the recorded FBA/gapfill results, "
                                                   "newest first")] = False,
        include_revisions: Annotated[bool, Field(description="Add the revision history")] = False,
        limit: Annotated[int, Field(description="Maximum predictions returned, 1-100")] = 20,
        gapfill_reactions_offset: Annotated[int | None, Field(
            description="For a gapfilled model: return the page of added reactions starting here")] = None,
    ) -> dict[str, Any]:
        """Details of one stored model: counts, compartments, objective, genes, template,
        lineage, creation time; optionally its recorded results and revision history."""
        return get_workspace().get_model(model_id, include_predictions, include_revisions, limit,
                                         gapfill_reactions_offset)

    @mcp.tool(name="import_model", annotations={"title": "Import model", **CREATES},
              output_schema=schemas.output_schema(schemas.ImportModelResult))
    @enveloped("import_model")
    def import_model(
        file_path: Annotated[str, Field(description="SBML (.xml/.sbml) or COBRApy JSON (.json) file inside "
                                        "the server's allowed folders")],
        model_name: Annotated[str | None, Field(description="Name for the stored model "
                                                "([A-Za-z0-9_-]); default an automatic id")] = None,
        format: Annotated[str | None, Field(description="'sbml' or 'json'; default from the extension")] = None,
    ) -> dict[str, Any]:
        """Load a model file into the workspace (ModelSEED or any other namespace; media are
        matched to exchanges through ModelSEED ids and BiGG ids)."""
        area = get_file_area()
        path = area.resolve(file_path, param="file_path", must_exist=True)
        return area.scrub_payload(get_workspace().import_model(path, model_name, format))

    @mcp.tool(name="export_model", annotations={"title": "Export model", **CREATES, "destructiveHint": True,
                                                            "idempotentHint": True},
              output_schema=schemas.output_schema(schemas.ExportModelResult))
    @enveloped("export_model")
    def export_model(
        model_id: ModelId,
        file_path: Annotated[str, Field(description="Target file inside the server's allowed folders; "
                                        "an existing file is replaced atomically")],
        format: Annotated[str | None, Field(description="'sbml' (level 3, FBC) or 'json'; "
                                            "default from the extension")] = None,
    ) -> dict[str, Any]:
        """Write a stored model to a file as SBML level 3 with FBC, or COBRApy JSON."""
        area = get_file_area()
        path = area.resolve(file_path, param="file_path", must_exist=False, for_write=True)
        return area.scrub_payload(get_workspace().export_model(model_id, path, format))

    @mcp.tool(name="revise_model", annotations={"title": "Revise model", **CREATES},
              output_schema=schemas.output_schema(schemas.ReviseModelResult))
    @enveloped("revise_model")
    def revise_model(
        model_id: ModelId,
        reason: Annotated[str, Field(description="Why the model changes; kept in its revision history")],
        add_reactions: Annotated[list[str] | None, Field(
            description="ModelSEED reactions to add, with compartment, e.g. ['rxn00148_c0']")] = None,
        remove_reactions: Annotated[list[str] | None, Field(description="Reaction ids of the model to remove")] = None,
        reaction_bounds: Annotated[dict[str, list[float]] | None, Field(
            description="New [lower, upper] bounds per reaction id, e.g. {'ATPM_c0': [8.4, 1000]}")] = None,
        knockout_genes: Annotated[list[str] | None, Field(
            description="Genes to knock out (reactions whose rule becomes false are blocked)")] = None,
        media_id: Annotated[str | None, Field(description="Medium for growth before/after; default the "
                                              "model's last-used medium")] = None,
        revision_name: Annotated[str | None, Field(description="Name for the new model; default "
                                                   "'<model_id>.rev'")] = None,
    ) -> dict[str, Any]:
        """Make a new revision of a model (a new id in the same lineage; the source is kept):
        add database reactions, remove reactions, set bounds, knock out genes. All changes are
        validated first (every bad id reported at once) and applied together; the reason, the
        changes and the growth before and after are recorded."""
        return get_workspace().revise_model(model_id, reason, add_reactions, remove_reactions, reaction_bounds,
                                            knockout_genes, media_id, revision_name)

    # Not read-only: every run is recorded with the model (a prediction) and sets its last medium.
    @mcp.tool(name="run_fba", annotations={"title": "Run FBA", **CREATES},
              output_schema=schemas.output_schema(schemas.FbaResult))
    @enveloped("run_fba")
    def run_fba(
        model_id: ModelId,
        media_id: MediaId,
        objective: Annotated[str, Field(description="Reaction to optimise (default biomass 'bio1')")] = "bio1",
        maximize: Annotated[bool, Field(description="false to minimise")] = True,
        flux_threshold: Annotated[float, Field(description="Drop fluxes with |v| <= this (>= 0)")] = 1e-6,
        pfba: Annotated[bool, Field(description="Parsimonious FBA: same optimum, minimal total flux")] = False,
    ) -> dict[str, Any]:
        """Flux balance analysis of a stored model on a medium: optimum (growth in 1/h for a
        biomass objective), uptake and secretion with compound names, top fluxes. The run is
        recorded with the model (get_model include_predictions)."""
        return get_workspace().run_fba(model_id, media_id, objective, maximize, flux_threshold, pfba)
