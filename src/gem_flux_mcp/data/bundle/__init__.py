"""The reference data bundle: its manifest, verification (`data check`) and download (`data fetch`).

The packaged ``manifest.json`` lists every bundle file with its size, its sha256 and how to rebuild
it from the upstream ModelSEED repositories. A fetch writes ``.gemflux-fetch.json`` into the data
folder; a later check reads it to accept files that are knowingly the newer upstream version.

Modules: `manifest`, `record` (the fetch record), `check` (`data check`), `fetch` (`data fetch`),
`download` (its HTTP downloads), `fetch_report` (what a fetch reports).
"""

from gem_flux_mcp.data.bundle.check import CheckReport, FileCheck, FileStatus, check_bundle
from gem_flux_mcp.data.bundle.fetch import fetch_bundle
from gem_flux_mcp.data.bundle.fetch_report import FetchAction, FetchReport, FileFetch, ProgressEvent
from gem_flux_mcp.data.bundle.manifest import FETCH_RECORD_NAME, Manifest, ManifestEntry, load_manifest
from gem_flux_mcp.data.bundle.record import FetchRecord, RecordedFile, read_fetch_record

__all__ = ["FETCH_RECORD_NAME", "CheckReport", "FetchAction", "FetchRecord", "FetchReport", "FileCheck", "FileFetch",
           "FileStatus", "Manifest", "ManifestEntry", "ProgressEvent", "RecordedFile", "check_bundle", "fetch_bundle",
           "load_manifest", "read_fetch_record"]
