"""Reading and writing model files (SBML level 3 FBC, COBRApy JSON) and summarising models."""

from __future__ import annotations

import logging
import os
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError, LibraryError, ValidationError
from gem_flux_mcp.fsutil import fsync_dir
from gem_flux_mcp.modeling.media import exchange_reactions
from gem_flux_mcp.modeling.solver_memory import release_model

if TYPE_CHECKING:  # COBRApy takes ~2 s to import; modules import it where first used
    import cobra

    from gem_flux_mcp.modeling.sbml.annotations import ModelAnnotations

log = logging.getLogger(__name__)

FORMATS = ("sbml", "json")
_SUFFIX_FORMAT = {".xml": "sbml", ".sbml": "sbml", ".json": "json"}


def detect_format(path: Path, requested: str | None) -> str:
    if requested:
        fmt = requested.strip().lower()
        if fmt not in FORMATS:
            raise ValidationError(
                ErrorCode.UNSUPPORTED_FORMAT, f"Unknown model format '{requested}'; use 'sbml' or 'json'.",
                details={"provided": requested, "valid_formats": list(FORMATS)},
            )
        return fmt
    suffixes = [s.lower() for s in path.suffixes]
    for suffix in reversed(suffixes):
        if suffix in _SUFFIX_FORMAT:
            return _SUFFIX_FORMAT[suffix]
    raise ValidationError(
        ErrorCode.UNSUPPORTED_FORMAT,
        f"Cannot tell the format of '{path.name}' from its extension; pass format='sbml' or 'json'.",
        details={"path": str(path), "valid_formats": list(FORMATS), "known_extensions": sorted(_SUFFIX_FORMAT)},
    )


def read_model(path: Path, fmt: str) -> cobra.Model:
    """Load an SBML or COBRApy JSON model; any parse failure becomes MODEL_PARSE_ERROR."""
    from gem_flux_mcp.modeling.gene_rules import parse_one_thread_at_a_time
    from gem_flux_mcp.modeling.json_model import load_json_model
    from gem_flux_mcp.modeling.sbml.document import read_sbml

    parse_one_thread_at_a_time()  # models are loaded in the server's threads
    try:
        model = read_sbml(path)[0] if fmt == "sbml" else load_json_model(str(path))
    except Exception as exc:  # libsbml and json raise many kinds of errors
        raise ValidationError(
            ErrorCode.MODEL_PARSE_ERROR,
            f"Could not read {path.name} as {fmt.upper()}: {type(exc).__name__}: {str(exc)[:300]}",
            details={"path": str(path), "format": fmt},
            suggestions=["Check that the file is a valid SBML (level 2/3, FBC) or COBRApy JSON model."],
        ) from exc
    if len(model.reactions) == 0:
        raise ValidationError(ErrorCode.MODEL_EMPTY, f"{path.name} contains no reactions.", details={"path": str(path)})
    return model


EXPORT_FILE_MODE = 0o644


@dataclass(frozen=True)
class WrittenModel:
    size_bytes: int
    warnings: list[str]  # what was changed so that the format can hold it (e.g. formulas left out)


def write_model(model: cobra.Model, path: Path, fmt: str, annotations: ModelAnnotations | None = None) -> int:
    """`export_model_file` for callers that only need the size in bytes."""
    return export_model_file(model, path, fmt, annotations).size_bytes


def export_model_file(model: cobra.Model, path: Path, fmt: str,
                      annotations: ModelAnnotations | None = None) -> WrittenModel:
    """Write `model` (unchanged itself) with `annotations` merged in, atomically: a temp file
    beside the target, checked (modeling/sbml/validate.py: libsbml finds no error or warning and
    reading the file back gives the same model), then renamed. A check that fails is
    MODEL_EXPORT_LOST_CONTENT and nothing is written."""
    from cobra.io import save_json_model

    from gem_flux_mcp.modeling.sbml import validate
    from gem_flux_mcp.modeling.sbml.document import write_sbml
    from gem_flux_mcp.modeling.sbml.sanitize import export_copy

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.fchmod(fd, EXPORT_FILE_MODE)  # mkstemp makes 0600; an exported model is for others to read
    os.close(fd)
    tmp = Path(tmp_name)
    copy = None
    warnings: list[str] = []
    try:
        copy = export_copy(model, annotations, sbml=fmt == "sbml")
        warnings = copy.warnings
        if fmt == "sbml":
            problems = [f"COBRApy writing: {m}" for m in write_sbml(copy.model, tmp)]
            problems += validate.sbml_file_problems(tmp, copy.model)
        else:
            save_json_model(copy.model, str(tmp))
            problems = validate.json_file_problems(tmp, copy.model)
        if problems:
            raise validate.lost_content_error(problems, path, fmt)
        with tmp.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except GemFluxError:
        tmp.unlink(missing_ok=True)
        raise
    except Exception as exc:
        tmp.unlink(missing_ok=True)
        raise LibraryError(
            ErrorCode.MODEL_EXPORT_ERROR, f"Could not write the model as {fmt.upper()}: {str(exc)[:300]}",
            details={"path": str(path), "format": fmt},
        ) from exc
    finally:
        if copy is not None:
            release_model(copy.model)
    return WrittenModel(path.stat().st_size, warnings)


def summarize(model: cobra.Model) -> dict[str, Any]:
    """Counts and structure used by build/import/get_model responses."""
    reactions_by_compartment: Counter[str] = Counter()
    transport = reversible = 0
    for reaction in model.reactions:
        compartments = {m.compartment for m in reaction.metabolites}
        if len(compartments) > 1:
            transport += 1
        reactions_by_compartment[next(iter(compartments)) if len(compartments) == 1 else "multi"] += 1
        if reaction.lower_bound < 0 < reaction.upper_bound:
            reversible += 1
    objective = objective_reaction_ids(model)
    return {
        "num_reactions": len(model.reactions),
        "num_metabolites": len(model.metabolites),
        "num_genes": len(model.genes),
        "num_exchange_reactions": len(exchange_reactions(model)),
        "compartments": sorted(model.compartments),
        "objective": objective,
        "statistics": {
            "reactions_by_compartment": dict(sorted(reactions_by_compartment.items())),
            "metabolites_by_compartment": dict(sorted(Counter(m.compartment for m in model.metabolites).items())),
            "reversible_reactions": reversible,
            "irreversible_reactions": len(model.reactions) - reversible,
            "transport_reactions": transport,
        },
    }


def objective_reaction_ids(model: cobra.Model) -> list[str]:
    """Reactions in the objective, read from the solver's linear coefficients.

    `Reaction.objective_coefficient` builds sympy expressions that land in sympy's global caches
    and keep the whole optlang problem of a discarded model alive (measured in
    benchmarks/store_fba.py); the solver's coefficients do not.
    """
    coefficients = model.solver.objective.get_linear_coefficients(model.variables)
    forward = {r.id for r in model.reactions}
    return [v.name for v, c in coefficients.items() if c != 0 and v.name in forward]


