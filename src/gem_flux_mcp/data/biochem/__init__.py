"""ModelSEED biochemistry index: O(1) look-ups and ranked search over compounds and reactions.

The TSVs (67 MB) are parsed once into a SQLite file in the cache folder, named after the sha256
of their contents; later starts open that file read-only in milliseconds. Search uses an FTS5
trigram index (substring matching, like the reference implementation) and ranks in SQL, so a
query touches only the rows that match.

Modules: `queries` (ids and search arguments), `build` (the index from the TSVs), `index`
(`BiochemIndex`: look-ups and search).
"""

from gem_flux_mcp.data.biochem.build import build_index
from gem_flux_mcp.data.biochem.index import BiochemIndex
from gem_flux_mcp.data.biochem.queries import (
    COMPOUND_ID,
    INDEX_SCHEMA_VERSION,
    MAX_QUERY_LENGTH,
    REACTION_ID,
    normalize_id,
    validate_search_args,
)

__all__ = ["COMPOUND_ID", "INDEX_SCHEMA_VERSION", "MAX_QUERY_LENGTH", "REACTION_ID", "BiochemIndex",
           "build_index", "normalize_id", "validate_search_args"]
