"""build_model (CONTRACTS.md §4): a long job run by the worker process, with progress and cancellation."""

from __future__ import annotations

from typing import Annotated, Any

import anyio.to_thread
from fastmcp import Context, FastMCP
from pydantic import Field

from gem_flux_mcp.data.templates import check_template_name
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling.annotate import Protein, read_fasta_file, validate_proteins
from gem_flux_mcp.server import schemas
from gem_flux_mcp.server.envelope import enveloped_async
from gem_flux_mcp.server.resources import get_file_area, get_jobs, get_settings, get_workspace
from gem_flux_mcp.server.worker import mcp_progress

BUILD_ANNOTATIONS = {"title": "Build draft model", "readOnlyHint": False, "destructiveHint": False,
                     "idempotentHint": False, "openWorldHint": True}  # RAST (opt-in) is on the internet
BUILD_TIMEOUT_S = 1800.0


def read_inputs(protein_sequences: object, fasta_file_path: object) -> list[Protein]:
    """Exactly one input; every bad sequence reported at once (runs in a thread: files can be big)."""
    if protein_sequences is not None and fasta_file_path is not None:
        raise ValidationError(
            "BOTH_INPUTS_PROVIDED", "Give either protein_sequences or fasta_file_path, not both.",
            suggestions=["Drop one of the two arguments."],
        )
    if protein_sequences is None and fasta_file_path is None:
        raise ValidationError(
            "NO_INPUT_PROVIDED", "No proteins given: pass protein_sequences or fasta_file_path.",
            example_call={"tool": "build_model", "arguments": {"fasta_file_path": "genome.faa"}},
        )
    if fasta_file_path is not None:
        path = get_file_area().resolve(fasta_file_path, param="fasta_file_path", must_exist=False)
        return validate_proteins(read_fasta_file(path))
    if not isinstance(protein_sequences, dict):
        raise ValidationError("INVALID_PROTEIN_SEQUENCES", "protein_sequences must be an object {id: sequence}.",
                              details={"provided_type": type(protein_sequences).__name__})
    if any(not isinstance(k, str) or not k.strip() or any(c.isspace() for c in k) for k in protein_sequences):
        raise ValidationError("INVALID_PROTEIN_SEQUENCES", "Sequence ids must be non-empty and without spaces.")
    proteins = [Protein(k, v if isinstance(v, str) else "", "") for k, v in protein_sequences.items()]
    return validate_proteins(proteins)


def register(mcp: FastMCP) -> None:
    @mcp.tool(name="build_model", annotations=BUILD_ANNOTATIONS,
              output_schema=schemas.output_schema(schemas.BuildModelResult))
    @enveloped_async("build_model")
    async def build_model(
        ctx: Context,
        protein_sequences: Annotated[dict[str, str] | None, Field(
            description="Protein sequences {id: amino acids}; or use fasta_file_path")] = None,
        fasta_file_path: Annotated[str | None, Field(
            description="Protein FASTA file inside the server's allowed folders; header text after the id "
                        "(RefSeq/Prokka/Bakta product names) is used as function evidence")] = None,
        template: Annotated[str, Field(description="GramNegative (default), GramPositive or Core")] = "GramNegative",
        model_name: Annotated[str | None, Field(description="Name for the model ([A-Za-z0-9_-]); the id becomes "
                                                "'<name>.draft'. Default an automatic id")] = None,
        annotate_with_rast: Annotated[bool, Field(description="Also send the proteins to the RAST web service "
                                                  "(internet; off by default)")] = False,
        use_header_functions: Annotated[bool, Field(description="Match function names in FASTA headers to "
                                                    "template roles")] = True,
        use_homology: Annotated[bool, Field(description="Align proteins to the BiGG reference proteins with "
                                            "known reactions")] = True,
        exclude_reference_models: Annotated[list[str] | None, Field(
            description="BiGG models to leave out of the homology reference, e.g. ['iML1515']")] = None,
    ) -> dict[str, Any]:
        """Build a draft genome-scale model from protein sequences with a ModelSEED template, offline:
        proteins are annotated from their FASTA header names and by homology to BiGG reference
        proteins (RAST optional). Each reaction records its evidence. Takes about 10 s for a
        bacterial proteome and reports progress; the draft needs gapfill_model before it grows."""
        settings = get_settings()
        template_name = check_template_name(template, settings.data_dir)
        excluded = exclude_reference_models or []
        if not isinstance(excluded, list) or not all(isinstance(m, str) and m for m in excluded):
            raise ValidationError("INVALID_EXCLUDE_REFERENCE_MODELS",
                                  "exclude_reference_models must be a list of BiGG model ids.")
        await ctx.report_progress(0, 100, "parse: reading and checking the sequences")
        proteins = await anyio.to_thread.run_sync(read_inputs, protein_sequences, fasta_file_path)
        workspace = get_workspace()
        model_id, name = await anyio.to_thread.run_sync(workspace.new_draft_id, model_name)

        progress = mcp_progress(ctx)

        payload = {
            "model_id": model_id, "template": template_name, "annotate_with_rast": bool(annotate_with_rast),
            "use_header_functions": bool(use_header_functions), "use_homology": bool(use_homology),
            "exclude_reference_models": excluded,
            "proteins": [(p.id, p.sequence, p.description) for p in proteins],
        }
        built = await get_jobs().run("build", payload, progress, timeout_s=BUILD_TIMEOUT_S,
                                     workspace=workspace.workspace_id)
        await progress("store", 0.95, f"storing {model_id}")
        result = await anyio.to_thread.run_sync(
            lambda: workspace.store_draft(model_id, name, template_name, built, bool(annotate_with_rast)))
        await progress("done", 1.0, f"{result['num_reactions']} reactions, {result['num_genes']} genes")
        return result


