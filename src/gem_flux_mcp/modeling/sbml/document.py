"""SBML documents: written by COBRApy, finished with libsbml (identifiers.org URIs in compact
form), and read back by COBRApy with notes decoded.

COBRApy writes an annotation as `https://identifiers.org/<collection>/<id>`; identifiers.org's
compact form, `https://identifiers.org/<collection>:<id>` (`https://identifiers.org/CHEBI:15377`
for collections whose ids carry their prefix), is what the MIRIAM guidelines ask for now. Both
resolve, and COBRApy reads both back to the same annotation.

COBRApy reports what it could not write only in its log (`LibSBML error code -3` when notes are
refused, `... is not a valid SBML 'SId'` on reading): `cobra_sbml_log` collects those records,
for this thread only, so a caller can treat them as errors.
"""

from __future__ import annotations

import io
import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.modeling.sbml.notes import decode_notes, decoded_notes

if TYPE_CHECKING:
    import cobra

COBRA_SBML_LOGGER = "cobra.io.sbml"
_LEGACY_URI = re.compile(r"^https?://identifiers\.org/([^/:]+)/(.+)$")


class _ThreadRecords(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.thread = threading.get_ident()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            self.messages.append(f"{record.levelname}: {record.getMessage()}")


@contextmanager
def cobra_sbml_log() -> Iterator[list[str]]:
    """Warnings and errors COBRApy's SBML module logs in this thread during the block (they
    still reach the usual log handlers too)."""
    handler = _ThreadRecords()
    logger = logging.getLogger(COBRA_SBML_LOGGER)
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)


def compact_uri(uri: str) -> str:
    """`https://identifiers.org/chebi/CHEBI:15377` -> `https://identifiers.org/CHEBI:15377`;
    `.../seed.compound/cpd00027` -> `.../seed.compound:cpd00027`. Other URIs are kept."""
    found = _LEGACY_URI.match(uri)
    if not found:
        return uri
    collection, identifier = found.groups()
    if identifier.upper().startswith(f"{collection.upper()}:"):  # namespace embedded in the id
        return f"https://identifiers.org/{identifier}"
    return f"https://identifiers.org/{collection}:{identifier}"


def _compact_cv_terms(sbase: Any) -> None:
    import libsbml

    terms = [sbase.getCVTerm(i) for i in range(sbase.getNumCVTerms())]
    uris = [[t.getResourceURI(k) for k in range(t.getNumResources())] for t in terms]
    if not any(compact_uri(u) != u for group in uris for u in group):
        return
    rebuilt = []
    for term, group in zip(terms, uris, strict=True):
        if term.getNumNestedCVTerms():
            return  # COBRApy writes no nested terms; leave anything else as it is
        qualifier_type = term.getQualifierType()
        new = libsbml.CVTerm(qualifier_type)
        if qualifier_type == libsbml.BIOLOGICAL_QUALIFIER:
            new.setBiologicalQualifierType(term.getBiologicalQualifierType())
        elif qualifier_type == libsbml.MODEL_QUALIFIER:
            new.setModelQualifierType(term.getModelQualifierType())
        for uri in group:
            new.addResource(compact_uri(uri))
        rebuilt.append(new)
    sbase.unsetCVTerms()
    for new in rebuilt:
        if sbase.addCVTerm(new) != libsbml.LIBSBML_OPERATION_SUCCESS:
            raise RuntimeError(f"libsbml refused an annotation of {sbase.getId() or sbase.getElementName()}")


def write_sbml(model: cobra.Model, path: Path) -> list[str]:
    """Write `model` (an export copy, see sanitize.py) as SBML L3 FBC2 to `path`; returns what
    COBRApy logged as warnings or errors while writing."""
    import libsbml
    from cobra.io import write_sbml_model

    buffer = io.StringIO()
    with cobra_sbml_log() as messages:
        write_sbml_model(model, buffer)
    document = libsbml.readSBMLFromString(buffer.getvalue())
    sbml_model = document.getModel()
    elements = [sbml_model, *(sbml_model.getListOfAllElements() or [])]
    for element in elements:
        if element.getNumCVTerms():
            _compact_cv_terms(element)
    if not libsbml.writeSBMLToFile(document, str(path)):
        raise OSError(f"libsbml could not write {path}")
    return list(messages)


def read_sbml(path: Path | str) -> tuple[cobra.Model, list[str]]:
    """COBRApy's reading of an SBML file with the XML escaping of notes undone (COBRApy leaves
    `&lt;` in them); also what COBRApy logged as warnings or errors while reading."""
    from cobra.io import read_sbml_model

    with cobra_sbml_log() as messages:
        model = read_sbml_model(str(path))
    decode_notes([model, *model.metabolites, *model.reactions, *model.genes, *model.groups])
    document = getattr(model, "_sbml", None)
    if isinstance(document, dict) and document.get("notes"):
        document["notes"] = decoded_notes(document["notes"])
    return model, list(messages)
