"""Checks of a written model file: nothing may be lost between the model and what reading the
file gives back.

SBML (`sbml_file_problems`):
1. libsbml reads the file with no error or warning;
2. libsbml's consistency checks (`checkConsistency`) report no error or warning, units and
   modelling-practice checks left out (COBRApy does not write species units or initial amounts,
   which FBA has no use for; COBRApy's own `validate_sbml_model` leaves them out by default);
   the groups' members are checked from one index of the model's ids (group_checks.py), not by
   libsbml's walk of the whole model for each member;
3. COBRApy reads the file without logging a warning or error;
4. the model read back has the same content as the one written (content.py).
COBRApy JSON (`json_file_problems`): COBRApy reads it back with the same content.

Each problem is one line of text; `lost_content_error` turns a list of them into the error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import LibraryError
from gem_flux_mcp.modeling.sbml.content import content_differences, model_content
from gem_flux_mcp.modeling.sbml.document import read_sbml
from gem_flux_mcp.modeling.sbml.group_checks import group_member_problems, group_references_checked_here

if TYPE_CHECKING:
    import cobra

_NO_OBJECTIVE = "No objective coefficients in model"
MAX_LISTED = 20
# libsbml's check categories run on an exported file (units and modelling practice left out)
_CHECKED_CATEGORIES = ("LIBSBML_CAT_GENERAL_CONSISTENCY", "LIBSBML_CAT_IDENTIFIER_CONSISTENCY",
                       "LIBSBML_CAT_MATHML_CONSISTENCY", "LIBSBML_CAT_SBO_CONSISTENCY",
                       "LIBSBML_CAT_OVERDETERMINED_MODEL")


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
    if not group_references_checked_here(document.getModel()):
        return problems + _consistency_problems(document)
    # everything but the general checks on the whole file (the groups' identifiers included);
    # the general checks on the model without its groups, whose members group_checks checks
    document.setConsistencyChecks(libsbml.LIBSBML_CAT_GENERAL_CONSISTENCY, False)
    problems += _consistency_problems(document)
    problems += group_member_problems(document.getModel())
    document.getModel().getPlugin("groups").getListOfGroups().clear()
    for category in _CHECKED_CATEGORIES:
        document.setConsistencyChecks(getattr(libsbml, category), category == "LIBSBML_CAT_GENERAL_CONSISTENCY")
    return problems + _consistency_problems(document)


def _consistency_problems(document: Any) -> list[str]:
    import libsbml

    document.getErrorLog().clearLog()
    document.checkConsistency()
    return [_describe(document.getError(i), "consistency") for i in range(document.getNumErrors())
            if document.getError(i).getSeverity() >= libsbml.LIBSBML_SEV_WARNING]


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
