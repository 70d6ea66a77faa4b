"""Checks of a written model file: nothing may be lost between the model and what reading the
file gives back.

SBML (`sbml_file_problems`):
1. libsbml reads the file with no error or warning;
2. libsbml's consistency checks (`checkConsistency`) report no error or warning, units and
   modelling-practice checks left out (COBRApy does not write species units or initial amounts,
   which FBA has no use for; COBRApy's own `validate_sbml_model` leaves them out by default);
3. COBRApy reads the file without logging a warning or error;
4. the model read back has the same content as the one written (content.py).
COBRApy JSON (`json_file_problems`): COBRApy reads it back with the same content.

Each problem is one line of text; `lost_content_error` turns a list of them into the error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import LibraryError
from gem_flux_mcp.modeling.sbml.content import content_differences, model_content
from gem_flux_mcp.modeling.sbml.document import read_sbml

if TYPE_CHECKING:
    import cobra

_NO_OBJECTIVE = "No objective coefficients in model"
MAX_LISTED = 20


def libsbml_problems(path: Path) -> list[str]:
    """Errors and warnings libsbml finds reading `path` and checking its consistency."""
    import libsbml

    document = libsbml.readSBMLFromFile(str(path))
    problems = [_describe(document.getError(i), "reading") for i in range(document.getNumErrors())
                if document.getError(i).getSeverity() >= libsbml.LIBSBML_SEV_WARNING]
    if document.getModel() is None:
        return [*problems, "libsbml: the file holds no SBML model"]
    document.setConsistencyChecks(libsbml.LIBSBML_CAT_UNITS_CONSISTENCY, False)
    document.setConsistencyChecks(libsbml.LIBSBML_CAT_MODELING_PRACTICE, False)
    document.checkConsistency()
    problems += [_describe(document.getError(i), "consistency") for i in range(document.getNumErrors())
                 if document.getError(i).getSeverity() >= libsbml.LIBSBML_SEV_WARNING]
    return problems


def _describe(error: object, stage: str) -> str:
    severity = error.getSeverityAsString()  # type: ignore[attr-defined]
    message = " ".join(error.getMessage().split())  # type: ignore[attr-defined]
    return f"libsbml {stage} {severity.lower()} {error.getErrorId()} (line {error.getLine()}): {message[:400]}"  # type: ignore[attr-defined]


def sbml_file_problems(path: Path, written: cobra.Model) -> list[str]:
    """Everything lost or invalid in the SBML file `path` written from `written`."""
    from gem_flux_mcp.modeling.solver_memory import release_model

    problems = libsbml_problems(path)
    try:
        found, messages = read_sbml(path)
    except Exception as exc:  # COBRApy wraps libsbml's many failures
        return [*problems, f"COBRApy cannot read the file: {type(exc).__name__}: {str(exc)[:300]}"]
    try:
        expected = model_content(written, sbml=True, escaped_notes=True)
        has_objective = bool(expected["model"]["model"]["objective"])
        problems += [f"COBRApy reading: {m}" for m in messages if has_objective or _NO_OBJECTIVE not in m]
        problems += content_differences(expected, model_content(found, sbml=True))
    finally:
        release_model(found)
    return problems


def json_file_problems(path: Path, written: cobra.Model) -> list[str]:
    """What reading the COBRApy JSON file `path` does not give back of `written`."""
    from cobra.io import load_json_model

    from gem_flux_mcp.modeling.solver_memory import release_model

    try:
        found = load_json_model(str(path))
    except Exception as exc:
        return [f"COBRApy cannot read the file: {type(exc).__name__}: {str(exc)[:300]}"]
    try:
        return content_differences(model_content(written, sbml=False), model_content(found, sbml=False))
    finally:
        release_model(found)


def lost_content_error(problems: list[str], path: Path, fmt: str) -> LibraryError:
    shown = problems[:MAX_LISTED]
    return LibraryError(
        ErrorCode.MODEL_EXPORT_LOST_CONTENT,
        f"Exporting as {fmt.upper()} would lose or corrupt part of the model ({len(problems)} problem(s); first: "
        f"{problems[0][:300]}). Nothing was written.",
        details={"path": str(path), "format": fmt, "num_problems": len(problems), "problems": shown,
                 "problems_truncated": len(problems) > len(shown)},
        suggestions=["COBRApy JSON keeps everything COBRApy holds; `problems` lists what this export would lose."],
    )
