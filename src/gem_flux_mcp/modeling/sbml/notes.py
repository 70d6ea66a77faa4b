"""Notes as SBML holds them: text inside XHTML `<p>key: value</p>` paragraphs.

COBRApy writes each note as `<p>{key}: {value}</p>` without escaping, so a value holding `<` or
`&` makes libsbml refuse the whole notes element (`LibSBML error code -3`) and every note of that
object is lost. On reading, COBRApy takes the paragraph text from the serialised XML, so the
characters XML escapes come back as entity references (`&lt;`, `&quot;`). `escape_notes` is
applied before writing and `decode_notes` after reading; together they make notes round-trip.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

_XML_TEXT_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))
_ENTITY = re.compile(r"&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def note_text(value: object) -> str:
    """A note value as SBML can hold it: text, without surrounding white space (COBRApy strips
    both key and value on reading and drops empty values)."""
    return str(value).strip()


def escape_text(text: str) -> str:
    for raw, escaped in _XML_TEXT_ESCAPES:
        text = text.replace(raw, escaped)
    return text


def _entity(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _NAMED:
        return _NAMED[name]
    code = int(name[2:], 16) if name.startswith("#x") else int(name[1:])
    return chr(code)


def unescape_text(text: str) -> str:
    """The inverse of XML escaping (named and numeric character references only)."""
    return _ENTITY.sub(_entity, text) if "&" in text else text


def escape_notes(notes: Mapping[str, Any]) -> dict[str, str]:
    """Notes ready for COBRApy's SBML writer: text values, XML-escaped; empty ones left out."""
    escaped: dict[str, str] = {}
    for key, value in notes.items():
        text = note_text(value)
        if text and note_text(key):
            escaped[escape_text(note_text(key))] = escape_text(text)
    return escaped


def normalized_notes(notes: Mapping[str, Any]) -> dict[str, str]:
    """Notes as they come back from SBML: text keys and values, stripped, empty ones dropped."""
    return {note_text(k): note_text(v) for k, v in notes.items() if note_text(v) and note_text(k)}


def decoded_notes(notes: Mapping[str, Any]) -> dict[str, Any]:
    """Notes with the XML escaping of their keys and text values undone."""
    return {unescape_text(str(k)): unescape_text(v) if isinstance(v, str) else v for k, v in notes.items()}


def decode_notes(objects: Iterable[Any]) -> None:
    """Undo XML escaping in the notes COBRApy read from SBML (each object's `notes` dict)."""
    for obj in objects:
        notes = getattr(obj, "notes", None)
        if isinstance(notes, dict) and any("&" in str(k) or "&" in str(v) for k, v in notes.items()):
            obj.notes = decoded_notes(notes)
