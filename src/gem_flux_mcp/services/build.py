"""Draft models from proteins: the request checked and turned into a BuildJob, the built draft
stored with its annotation evidence."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.templates import check_template_name
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling.inputs import (
    Protein,
    ProteinInput,
    proteins_from_sequences,
    proteins_from_text,
    read_proteins_file,
    text_of_content,
)
from gem_flux_mcp.rules.catalog import GENE_CALLING, TRANSLATION_TABLE
from gem_flux_mcp.services import gapfill_ahead, results
from gem_flux_mcp.services.job_base import Progress, worker_biochem
from gem_flux_mcp.services.workspace import Workspace, model_info
from gem_flux_mcp.store.serialization import SerializedModel


@dataclass(frozen=True)
class BuiltDraft:
    data: bytes  # COBRApy JSON
    stats: dict[str, Any]
    summary: dict[str, Any]
    timings: dict[str, float]


@dataclass(frozen=True)
class BuildJob:
    kind: ClassVar[str] = "build"
    model_id: str
    template: str
    proteins: tuple[tuple[str, str, str], ...]  # (id, sequence, header description)
    use_header_functions: bool = True
    use_homology: bool = True
    annotate_with_rast: bool = False
    exclude_reference_models: tuple[str, ...] = ()
    model_name: str | None = None  # the name the caller gave, cleaned (stored with the model)

    def run(self, settings: Settings, progress: Progress) -> BuiltDraft:
        from gem_flux_mcp.modeling.build import BuildOptions, describe_draft
        from gem_flux_mcp.modeling.inputs import Protein
        from gem_flux_mcp.modeling.reconstruct import build_with_template
        from gem_flux_mcp.store.serialization import serialize_model

        proteins = [Protein(pid, seq, desc) for pid, seq, desc in self.proteins]
        options = BuildOptions(
            use_header_functions=self.use_header_functions, use_homology=self.use_homology,
            use_rast=self.annotate_with_rast, exclude_reference_models=self.exclude_reference_models,
        )
        result, call = build_with_template(self.model_id, proteins, self.template, options, settings.data_dir,
                                           settings.cache_dir, worker_biochem(settings), progress=progress)
        progress("store", 0.92, "serializing the model")
        serialized = serialize_model(result.model, self.model_id)
        summary = describe_draft(result.model, call.template if call else self.template, result.annotation)
        if call is not None:  # template 'auto': what was chosen and why
            summary["interpretation"]["template_choice"] = call.reason
        # while the answer is read; the work takes the model over (and releases it)
        gapfill_ahead.start(serialized.data, summary["template_used"], settings, built=result.model)
        return BuiltDraft(serialized.data, serialized.stats, summary, result.timings)



@dataclass(frozen=True)
class BuildInputs:
    """The ways build_model is given its sequences; exactly one is used."""

    protein_sequences: object = None
    fasta_file_path: object = None
    genome_file_path: object = None
    fasta_content: object = None  # a protein FASTA sent inline (a client on another machine)
    genome_content: object = None
    content_encoding: object = "text"

    def given(self) -> list[str]:
        return [name for name in ("protein_sequences", "fasta_file_path", "genome_file_path", "fasta_content",
                                  "genome_content") if getattr(self, name) is not None]


def read_proteins(inputs: BuildInputs, gene_calling: object, resolve: Callable[[object, str], Path],
                  translation_table: object = "auto") -> ProteinInput:
    """Proteins from exactly one input: inline sequences, a protein FASTA, or a genome (contigs,
    GenBank, GFF3; genes called with Prodigal when it has no CDS features), as a path or as inline
    content. `resolve(path, param)` turns the user's path into an allowed one (the caller's file
    area). Sequences that cannot be a protein are skipped and listed, not refused. Can take seconds
    (gene calling): call it off the event loop."""
    given = inputs.given()
    if len(given) > 1:
        raise ValidationError(
            ErrorCode.BOTH_INPUTS_PROVIDED, f"Give one input, not {' and '.join(given)}.",
            details={"given": given}, suggestions=["Keep one of the arguments and drop the others."],
        )
    if not given:
        raise ValidationError(
            ErrorCode.NO_INPUT_PROVIDED,
            "No input given: pass protein_sequences, fasta_file_path or fasta_content (proteins), or "
            "genome_file_path or genome_content (a genome).",
            example_call={"tool": "build_model", "arguments": {"fasta_file_path": "genome.faa"}},
        )
    mode, table = GENE_CALLING.check(gene_calling), TRANSLATION_TABLE.check(translation_table)
    if inputs.fasta_file_path is not None:
        return read_proteins_file(resolve(inputs.fasta_file_path, "fasta_file_path"), "proteins", mode,
                                  "fasta_file_path", table)
    if inputs.genome_file_path is not None:
        return read_proteins_file(resolve(inputs.genome_file_path, "genome_file_path"), "genome", mode,
                                  "genome_file_path", table)
    for name, expected in (("fasta_content", "proteins"), ("genome_content", "genome")):
        content = getattr(inputs, name)
        if content is not None:
            text = text_of_content(content, str(inputs.content_encoding), name)
            found = proteins_from_text(text, name, expected, mode, name, table)  # type: ignore[arg-type]
            found.report["inline"] = True
            return found
    protein_sequences = inputs.protein_sequences
    if not isinstance(protein_sequences, dict):
        raise ValidationError(ErrorCode.INVALID_PROTEIN_SEQUENCES,
                              "protein_sequences must be an object {id: sequence}.",
                              details={"provided_type": type(protein_sequences).__name__})
    if any(not isinstance(k, str) or not k.strip() or any(c.isspace() for c in k) for k in protein_sequences):
        raise ValidationError(ErrorCode.INVALID_PROTEIN_SEQUENCES, "Sequence ids must be non-empty and without spaces.")
    proteins = [Protein(k, v if isinstance(v, str) else "", "") for k, v in protein_sequences.items()]
    return proteins_from_sequences(proteins, "protein_sequences")


def check_build_options(template: object, exclude_reference_models: object,
                        data_dir: Path) -> tuple[str, tuple[str, ...]]:
    """(template name, excluded BiGG models), checked before any work starts."""
    template_name = check_template_name(template, data_dir, allow_auto=True)
    excluded = exclude_reference_models or []
    if not isinstance(excluded, list) or not all(isinstance(m, str) and m for m in excluded):
        raise ValidationError(ErrorCode.INVALID_EXCLUDE_REFERENCE_MODELS,
                              "exclude_reference_models must be a list of BiGG model ids.")
    return template_name, tuple(excluded)


def prepare_build(ws: Workspace, proteins: list[Protein], model_name: object, template: str,
                  excluded: tuple[str, ...], *, use_header_functions: bool, use_homology: bool,
                  annotate_with_rast: bool) -> BuildJob:
    """The job for a worker, with the cleaned model name. The id is taken now, so a taken name
    fails in milliseconds, not after the work."""
    if model_name is not None and not isinstance(model_name, str):
        raise ValidationError(ErrorCode.INVALID_MODEL_NAME, "model_name must be a string.",
                              details={"provided_type": type(model_name).__name__})
    name = model_name.strip() if isinstance(model_name, str) and model_name.strip() else None
    model_id = ws.store.new_model_id(ws.workspace_id, name, "draft")
    job = BuildJob(
        model_id=model_id, template=template, proteins=tuple((p.id, p.sequence, p.description) for p in proteins),
        use_header_functions=use_header_functions, use_homology=use_homology,
        annotate_with_rast=annotate_with_rast, exclude_reference_models=excluded, model_name=name,
    )
    return job


def store_draft(ws: Workspace, job: BuildJob, built: BuiltDraft, found: ProteinInput) -> results.BuildModelResult:
    """Store a draft a worker built (already serialized) and shape build_model's answer."""
    annotation = built.summary["annotation"]
    row = ws.store.add_model(
        ws.workspace_id, job.model_id, SerializedModel(built.data, built.stats),
        model_name=job.model_name, source="built", template=built.summary["template_used"], derived_from=None,
        extra={"annotation": {k: annotation[k] for k in ("sources_used", "reactions_by_source",
                                                         "gene_associated_reactions") if k in annotation},
               **({"homology": annotation["homology"]} if "homology" in annotation else {}),
               **({"genome_completeness": built.summary["genome_completeness"]}
                  if built.summary.get("genome_completeness") else {})},
    )
    return results.BuildModelResult.model_validate({
        "success": True, **model_info(row), "model_name": job.model_name, "annotated_with_rast": job.annotate_with_rast,
        **built.summary, "input": found.report, "warnings": found.warnings,
        "atp_correction": {"atp_correction_applied": False,
                           "warning": "ATP correction runs in gapfill_model (modes full and atp_only)."},
        "timings_s": built.timings,
        "next_steps": [
            f"Gapfill it so it can grow: gapfill_model(model_id='{row.model_id}', "
            "media_id='glucose_minimal_aerobic').",
            f"Inspect it: get_model(model_id='{row.model_id}').",
        ],
    })
