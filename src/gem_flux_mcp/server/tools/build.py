"""build_model (contract: docs/tools.md): a long job run by the worker process, with progress and cancellation."""

from __future__ import annotations

from typing import Annotated, Literal

import anyio.to_thread
from fastmcp import Context, FastMCP
from fastmcp.dependencies import Depends
from pydantic import Field

from gem_flux_mcp.config import Settings
from gem_flux_mcp.rules.catalog import BuildTemplateArg, GeneCallingArg, TranslationTableArg
from gem_flux_mcp.server.dependencies import Caller, current_caller, current_settings
from gem_flux_mcp.server.tools.common import tool
from gem_flux_mcp.server.tools.running import run_job
from gem_flux_mcp.services import build, results

BUILD_ANNOTATIONS = {"title": "Build draft model", "readOnlyHint": False, "destructiveHint": False,
                     "idempotentHint": False, "openWorldHint": True}  # RAST (opt-in) is on the internet


def register(mcp: FastMCP) -> None:
    @tool(mcp, "build_model", results.BuildModelResult, BUILD_ANNOTATIONS)
    async def build_model(
        ctx: Context,
        protein_sequences: Annotated[dict[str, str] | None, Field(
            description="Protein sequences {id: amino acids}; or use fasta_file_path or genome_file_path")] = None,
        fasta_file_path: Annotated[str | None, Field(
            description="Protein FASTA file (.faa, .gz) inside the server's allowed folders; header text after "
                        "the id (NCBI/RefSeq/Prokka/Bakta product names) is used as function evidence. "
                        "Trailing '*' and ambiguity codes are fine; proteins with internal stops are skipped "
                        "and listed")] = None,
        template: Annotated[BuildTemplateArg, Field(
            description="GramNegative (default), GramPositive, Core, or 'auto': from the cell envelope, i.e. "
                        "outer-membrane proteins named in the headers (BamA, LptD, TonB, porins) and "
                        "lipopolysaccharide genes (LpxA/C/D/H/B/K, KdsB, WaaA: 3 or more); the answer's "
                        "interpretation.template_choice says why and when it is unsure")] = "GramNegative",
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
        genome_file_path: Annotated[str | None, Field(
            description="A genome instead of proteins: contigs as nucleotide FASTA (genes called with "
                        "Prodigal), or an annotated GenBank (.gbk/.gbff) or GFF3 with ##FASTA (CDS "
                        "translations and /product names used); plain or .gz")] = None,
        fasta_content: Annotated[str | None, Field(
            description="A protein FASTA sent inline instead of a path (for a client on another machine); "
                        "text, or base64 with content_encoding='base64' (gzip allowed)")] = None,
        genome_content: Annotated[str | None, Field(
            description="A genome (FASTA, GenBank or GFF3) sent inline instead of genome_file_path; text or "
                        "base64")] = None,
        content_encoding: Annotated[Literal["text", "base64"], Field(
            description="How fasta_content/genome_content is sent")] = "text",
        gene_calling: Annotated[GeneCallingArg, Field(
            description="Prodigal mode for a genome: 'single' trains on the genome, 'meta' uses pre-trained "
                        "profiles; 'auto' (default) is single for 100 kb or more")] = "auto",
        translation_table: Annotated[TranslationTableArg, Field(
            description="Genetic code for a genome's genes: 11 (most bacteria), 4 (Mycoplasma, Spiroplasma, "
                        "Ureaplasma: TGA is tryptophan), 25 (TGA is glycine), or 'auto' (default): 11 or 4 "
                        "from the genome; input.translation_table_reason says why. Proteins given as "
                        "proteins are unaffected")] = "auto",
        caller: Caller = Depends(current_caller),
        settings: Settings = Depends(current_settings),
    ) -> results.BuildModelResult:
        """Build a draft genome-scale model from protein sequences or a genome with a ModelSEED
        template, offline: genes of a genome are called with Prodigal; proteins are annotated from
        their header or GenBank/GFF product names and by homology to BiGG reference proteins (RAST
        optional). Each reaction records its evidence. Takes about 10 s for a
        bacterial proteome and reports progress; the draft needs gapfill_model before it grows."""
        template_name, excluded = build.check_build_options(template, exclude_reference_models,
                                                            settings.data_dir)
        await ctx.report_progress(0, 100, "parse: reading the sequences (calling genes of a genome)")
        inputs = build.BuildInputs(protein_sequences, fasta_file_path, genome_file_path, fasta_content, genome_content,
                                   content_encoding)
        found = await anyio.to_thread.run_sync(
            build.read_proteins, inputs, gene_calling,
            lambda raw, param: caller.files.resolve(raw, param=param, must_exist=False), translation_table)
        return await run_job(
            ctx, caller, lambda ws: build.prepare_build(
                ws, found.proteins, model_name, template_name, excluded,
                use_header_functions=bool(use_header_functions), use_homology=bool(use_homology),
                annotate_with_rast=bool(annotate_with_rast)),
            lambda ws, job, built: build.store_draft(ws, job, built, found),
            done=lambda result: f"{result.num_reactions} reactions, {result.num_genes} genes")
