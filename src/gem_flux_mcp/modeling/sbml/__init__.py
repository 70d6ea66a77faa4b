"""Model export that loses nothing: SBML that libsbml validates and COBRApy reads back whole,
with identifiers.org annotations and SBO terms.

Modules:
- `annotations`: identifiers.org cross-references (ModelSEED database aliases) and SBO terms,
  computed for a model from a `CrossReferenceSource` (the biochemistry index);
- `sanitize`: the export copy, with what SBML cannot hold made valid (ids, formulas, notes);
- `notes`: XML escaping of notes on the way out, and its undoing on the way in;
- `document`: writing through COBRApy (identifiers.org URIs compacted in its text), reading back
  through COBRApy;
- `content`: a model's content in comparable form, and the differences between two;
- `validate`: the checks run on every written file, and the error when they fail.

`model_io.write_model` puts these together; `model_io.read_model` reads SBML with `document.read_sbml`.
"""
