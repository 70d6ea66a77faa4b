"""Analysis tools: the questions a model is built for, one call each (predict_gene_essentiality,
predict_growth_phenotypes, predict_fermentation_products, run_fva, compare_models, diagnose_model,
explain_essentiality)."""

from __future__ import annotations

from typing import Annotated

from fastmcp import Context, FastMCP
from fastmcp.dependencies import Depends
from pydantic import Field

from gem_flux_mcp.rules.catalog import (
    DeletionTargetArg,
    EssentialityThresholdArg,
    FractionOfOptimumArg,
    GrowthThresholdArg,
    MinRatioArg,
    OffsetArg,
    PanelArg,
    UptakeRateArg,
)
from gem_flux_mcp.server.dependencies import Caller, current_caller, current_workspace
from gem_flux_mcp.server.tools.common import CREATES, READ_ONLY, MediaId, ModelId, OutputPath, output_target, tool
from gem_flux_mcp.server.tools.running import run_job
from gem_flux_mcp.services import (
    compare,
    diagnose,
    essentiality,
    explain,
    fermentation,
    phenotypes,
    results,
    variability,
)
from gem_flux_mcp.services.workspace import Workspace


def register(mcp: FastMCP) -> None:
    # Not read-only: the result is recorded with the model (get_model include_predictions).
    @tool(mcp, "predict_gene_essentiality", results.EssentialityResult,
          {"title": "Predict gene essentiality", **CREATES})
    async def predict_gene_essentiality(
        ctx: Context,
        model_id: ModelId,
        media_id: MediaId,
        genes: Annotated[list[str] | None, Field(description="Ids to test; default every gene (or reaction) "
                                                             "of the model")] = None,
        threshold: Annotated[EssentialityThresholdArg, Field(description="Growth ratio below which a deletion is "
                                                                  "lethal (essential)")] = 0.1,
        observed: Annotated[dict[str, bool] | None, Field(
            description="Known essentiality {id: true if essential in vivo}: adds TP/FP/TN/FN, accuracy, "
                        "MCC and the mismatches")] = None,
        target: Annotated[DeletionTargetArg, Field(
            description="'genes' (single-gene deletions) or 'reactions' (single-reaction deletions)")] = "genes",
        objective: Annotated[str, Field(description="Reaction whose optimum is growth (default 'bio1')")] = "bio1",
        offset: Annotated[OffsetArg, Field(description="First row of the table to return (paging)")] = 0,
        output_path: OutputPath = None,
        caller: Caller = Depends(current_caller),
    ) -> results.EssentialityResult:
        """Which genes (or reactions) the model cannot grow without on a medium: single deletions
        (a gene closes the reactions whose rule turns false), growth ratio to the wild type,
        essential (ratio < threshold) and slowed ones; with `observed`, the confusion numbers.
        Runs in a worker process with progress; the answer pages the full table (offset)."""
        path = output_target(caller.files, output_path)
        return await run_job(
            ctx, caller,
            lambda ws: essentiality.prepare_essentiality(ws, model_id, media_id, target, genes, objective, threshold),
            lambda ws, job, outcome: essentiality.store_essentiality(ws, job, outcome, observed, offset,
                                                                     output_path=path))

    @tool(mcp, "explain_essentiality", results.ExplainEssentialityResult,
          {"title": "Explain a deletion", **CREATES})
    async def explain_essentiality(
        ctx: Context,
        model_id: ModelId,
        media_id: MediaId,
        gene: Annotated[str | None, Field(description="The gene to delete (or give reaction)")] = None,
        reaction: Annotated[str | None, Field(description="The reaction to delete (or give gene)")] = None,
        threshold: Annotated[EssentialityThresholdArg, Field(description="Growth ratio below which the deletion "
                                                                  "is lethal (essential)")] = 0.1,
        objective: Annotated[str, Field(description="Reaction whose optimum is growth (default 'bio1')")] = "bio1",
        caller: Caller = Depends(current_caller),
    ) -> results.ExplainEssentialityResult:
        """Why one deletion does or does not stop growth, when a screen and the model disagree. If
        the model survives it: the route that carries the flux instead (reactions whose flux
        appears, reverses or doubles against the wild type's minimal-total-flux solution), each
        with direction, genes, how it entered the model (homology, template, gapfill, ...), its
        evidence and its Gibbs energy where known. If not: the biomass components it no longer
        makes. Runs in a worker process."""
        return await run_job(
            ctx, caller,
            lambda ws: explain.prepare_explanation(ws, model_id, media_id, gene, reaction, objective, threshold),
            explain.store_explanation)

    @tool(mcp, "predict_growth_phenotypes", results.PhenotypeResult,
          {"title": "Predict growth phenotypes", **CREATES})
    async def predict_growth_phenotypes(
        ctx: Context,
        model_id: ModelId,
        base_media_id: Annotated[MediaId, Field(description="The base medium (e.g. a minimal medium); the panel's "
                                                           "reference sources are taken out of it")],
        panel: Annotated[PanelArg, Field(
            description="A predefined Biolog panel (PM1/PM2 carbon, PM3 nitrogen, PM4 phosphorus and sulfur)")] = None,
        compounds: Annotated[list[str] | None, Field(description="ModelSEED compound ids to test (besides the "
                                                                 "panel's)")] = None,
        observed: Annotated[dict[str, bool] | None, Field(
            description="Known growth {compound id: true if it grows}: adds TP/FP/TN/FN, accuracy, MCC and the "
                        "mismatches; these compounds are tested too")] = None,
        growth_threshold: Annotated[GrowthThresholdArg, Field(description="Growth (1/h) above which a compound "
                                                                  "counts as a growth substrate")] = 0.1,
        uptake_rate: Annotated[UptakeRateArg, Field(
            description="Uptake (mmol/gDW/h) each tested compound is opened at; default the "
                        "removed reference source's rate in the base medium, else 10")] = None,
        objective: Annotated[str, Field(description="Reaction whose optimum is growth (default 'bio1')")] = "bio1",
        offset: Annotated[OffsetArg, Field(description="First row of the array to return (paging)")] = 0,
        output_path: OutputPath = None,
        caller: Caller = Depends(current_caller),
    ) -> results.PhenotypeResult:
        """What the model grows on: for each compound of a panel (or list), growth on the base medium
        minus the panel's reference source plus that compound (the Biolog convention). Compounds the
        model cannot take up are reported as such. With `observed`, the confusion numbers. A
        panel of up to 400 compounds is answered at once; a longer list runs in a worker process."""
        path = output_target(caller.files, output_path)
        return await run_job(
            ctx, caller,
            lambda ws: phenotypes.prepare_phenotypes(ws, model_id, base_media_id, panel, compounds, observed,
                                                     objective, uptake_rate),
            lambda ws, job, outcome: phenotypes.store_phenotypes(ws, job, outcome, observed, growth_threshold,
                                                                 offset, path),
            here=phenotypes.run_here)

    @tool(mcp, "predict_fermentation_products", results.FermentationResult,
          {"title": "Predict fermentation products", **CREATES})
    async def predict_fermentation_products(
        ctx: Context,
        model_id: ModelId,
        media_id: Annotated[MediaId, Field(description="The medium (e.g. an anaerobic rich medium)")],
        observed: Annotated[list[str] | dict[str, bool] | None, Field(
            description="Known products: a list of those secreted in vivo (the other scored products count as not "
                        "secreted) or {product: true/false}; names (acetate, formate, ethanol, butyrate, propionate, "
                        "lactate, succinate, acetone, H2) or compound ids. Adds TP/FP/TN/FN, accuracy, MCC")] = None,
        min_ratio: Annotated[MinRatioArg, Field(description="A compound is a product when its secretion "
                                                                    "is at least this times the growth rate")] = 0.25,
        objective: Annotated[str, Field(description="Reaction whose optimum is growth (default 'bio1')")] = "bio1",
        offset: Annotated[OffsetArg, Field(description="First product to return (paging)")] = 0,
        output_path: OutputPath = None,
        caller: Caller = Depends(current_caller),
    ) -> results.FermentationResult:
        """What the organism secretes at optimal growth on a medium (the gapseq paper's protocol):
        the minimal-total-flux solution at the growth optimum, a compound counting as a product
        when its secretion is at least min_ratio x the growth rate; each with its flux, flux per
        growth, flux range at the optimum (FVA), the pathway that makes it, and whether the
        medium offers it too. Runs in a worker process; recorded with the model."""
        path = output_target(caller.files, output_path)
        return await run_job(
            ctx, caller,
            lambda ws: fermentation.prepare_fermentation(ws, model_id, media_id, objective, min_ratio, observed),
            lambda ws, job, outcome: fermentation.store_fermentation(ws, job, outcome, observed, offset, path))

    @tool(mcp, "compare_models", results.CompareModelsResult, {"title": "Compare two models", **READ_ONLY})
    def compare_models(
        model_a: Annotated[ModelId, Field(description="First model (A)")],
        model_b: Annotated[ModelId, Field(description="Second model (B)")],
        media_ids: Annotated[list[MediaId] | None, Field(
            max_length=20, description="Media to grow both on; default the media each was last run on")] = None,
        offset: Annotated[OffsetArg, Field(description="First item of every id list to return (paging)")] = 0,
        workspace: Workspace = Depends(current_workspace),
    ) -> results.CompareModelsResult:
        """How two models differ: reactions, genes and metabolites only in A, only in B, and shared
        (counts, then the ids page by page); shared reactions whose bounds or gene rule changed; and
        growth of both on each medium. For a draft and its gapfilled model, reactions_only_b is what
        gapfilling added."""
        return compare.compare_models(workspace, model_a, model_b, media_ids, offset)

    @tool(mcp, "run_fva", results.VariabilityResult, {"title": "Flux variability analysis", **CREATES})
    async def run_fva(
        ctx: Context,
        model_id: ModelId,
        media_id: MediaId,
        reactions: Annotated[list[str] | None, Field(description="Reaction ids; default every reaction")] = None,
        fraction_of_optimum: Annotated[FractionOfOptimumArg, Field(description="The objective is held at least at "
                                                                           "this fraction of its optimum")] = 0.9,
        loopless: Annotated[bool, Field(description="Exclude flux around internal loops (slower)")] = False,
        objective: Annotated[str, Field(description="Reaction whose optimum is held (default 'bio1')")] = "bio1",
        offset: Annotated[OffsetArg, Field(description="First row of the table to return (paging)")] = 0,
        output_path: OutputPath = None,
        caller: Caller = Depends(current_caller),
    ) -> results.VariabilityResult:
        """Which reactions are flexible: the smallest and largest flux of each reaction while the
        objective stays at least at a fraction of its optimum; blocked reactions and reactions that
        must carry flux in one direction. Runs in a worker process with progress; pages the table."""
        path = output_target(caller.files, output_path)
        return await run_job(
            ctx, caller,
            lambda ws: variability.prepare_variability(ws, model_id, media_id, reactions, fraction_of_optimum,
                                                       loopless, objective),
            lambda ws, job, outcome: variability.store_variability(ws, job, outcome, offset, path))

    @tool(mcp, "diagnose_model", results.DiagnosisResult, {"title": "Diagnose a model", **CREATES})
    async def diagnose_model(
        ctx: Context,
        model_id: ModelId,
        media_id: Annotated[MediaId | None, Field(description="Medium to check growth on; without it the "
                                                              "model's stored bounds are used")] = None,
        biomass: Annotated[str, Field(description="Biomass reaction (default 'bio1')")] = "bio1",
        offset: Annotated[OffsetArg, Field(description="First item of every list to return (paging)")] = 0,
        output_path: OutputPath = None,
        caller: Caller = Depends(current_caller),
    ) -> results.DiagnosisResult:
        """A quality report, and "why doesn't it grow?" in one call: mass- and charge-imbalanced
        reactions, blocked reactions, dead-end metabolites, energy-generating cycles (ATP, GTP,
        NADH, NADPH from nothing), reactions without genes; on a medium where the model does not
        grow, the biomass components it cannot make and the template reactions a gapfill would
        add. Runs in a worker process; lists are paged together (offset)."""
        path = output_target(caller.files, output_path)
        return await run_job(
            ctx, caller, lambda ws: diagnose.prepare_diagnosis(ws, model_id, media_id, biomass),
            lambda ws, job, outcome: diagnose.store_diagnosis(ws, job, outcome, offset, path))
