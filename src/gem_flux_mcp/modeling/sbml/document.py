"""SBML documents: written by COBRApy with identifiers.org URIs put in compact form, and read
back by COBRApy with notes decoded.

COBRApy writes an annotation as `https://identifiers.org/<collection>/<id>`; identifiers.org's
compact form, `https://identifiers.org/<collection>:<id>` (`https://identifiers.org/CHEBI:15377`
for collections whose ids carry their prefix), is what the MIRIAM guidelines ask for now. Both
resolve, and COBRApy reads both back to the same annotation.

COBRApy reports what it could not write only in its log (`LibSBML error code -3` when notes are
refused, `... is not a valid SBML 'SId'` on reading): `cobra_sbml_log` collects those records,
for this thread only, so a caller can treat them as errors.
"""

from __future__ import annotations

import html
import io
import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

from gem_flux_mcp.modeling.sbml.notes import decode_notes, decoded_notes

if TYPE_CHECKING:
    import cobra

COBRA_SBML_LOGGER = "cobra.io.sbml"
_LEGACY_URI = re.compile(r"^https?://identifiers\.org/([^/:]+)/(.+)$")
_RESOURCE = re.compile(r'<rdf:li rdf:resource="(https?://identifiers\.org/[^"]*)"')
_QUOTE = {'"': "&quot;"}  # escaped in an attribute value besides & < >


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


def _compact_resource(match: re.Match[str]) -> str:
    uri = compact_uri(html.unescape(match.group(1)))
    return f'<rdf:li rdf:resource="{escape(uri, _QUOTE)}"'


def compact_resources(sbml: str) -> str:
    """The SBML text with every annotation's identifiers.org URI in compact form. COBRApy writes
    each CV term's resource as `<rdf:li rdf:resource="..."/>`; text that merely reads like that
    (a note) has its `<` escaped in the file, so only annotations match. The text is rewritten in
    one pass, with no XML parse."""
    return _RESOURCE.sub(_compact_resource, sbml)


def write_sbml(model: cobra.Model, path: Path) -> list[str]:
    """Write `model` (an export copy, see sanitize.py) as SBML L3 FBC2 to `path`; returns what
    COBRApy logged as warnings or errors while writing."""
    from cobra.io import write_sbml_model

    buffer = io.StringIO()
    with cobra_sbml_log() as messages:
        write_sbml_model(model, buffer)
    path.write_text(compact_resources(buffer.getvalue()), encoding="utf-8")
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
