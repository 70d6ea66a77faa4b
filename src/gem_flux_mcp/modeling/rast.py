"""RAST annotation over the internet (opt-in: `annotate_with_rast=true`).

Speaks the JSON-RPC 1.1 protocol of the SEED genome-annotation service that ModelSEEDpy's
RastClient uses (`GenomeAnnotation.run_pipeline` with k-mer and similarity stages). The service
URL and timeout can be set with GEMFLUX_RAST_URL and GEMFLUX_RAST_TIMEOUT (seconds).
"""

from __future__ import annotations

import os
import re
import secrets
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode

from ..errors import LibraryError

DEFAULT_URL = "https://tutorial.theseed.org/services/genome_annotation"
DEFAULT_TIMEOUT_S = 600.0
_STAGES = [
    {"name": "annotate_proteins_kmer_v2", "kmer_v2_parameters": {}},
    {"name": "annotate_proteins_similarity", "similarity_parameters": {"annotate_hypothetical_only": 1}},
]
# RAST joins the roles of a multi-functional protein with these separators
_SPLIT = re.compile(r"\s*;\s+|\s+/\s+|\s+@\s+")


def annotate_with_rast(
    proteins: dict[str, str], url: str | None = None, timeout_s: float | None = None
) -> dict[str, list[str]]:
    """gene → RAST role names (genes RAST gives no function are left out)."""
    import httpx

    url = url or os.environ.get("GEMFLUX_RAST_URL") or DEFAULT_URL
    timeout = timeout_s or float(os.environ.get("GEMFLUX_RAST_TIMEOUT") or DEFAULT_TIMEOUT_S)
    body = {
        "method": "GenomeAnnotation.run_pipeline",
        "params": [{"features": [{"id": gid, "protein_translation": seq} for gid, seq in proteins.items()]},
                   {"stages": _STAGES}],
        "version": "1.1",
        "id": secrets.token_hex(8),
    }

    def failure(reason: str, **details: Any) -> LibraryError:
        return LibraryError(
            ErrorCode.RAST_ANNOTATION_ERROR, f"RAST annotation failed: {reason}",
            details={"rast_url": url, **details},
            suggestions=["Build offline instead: annotate_with_rast=false (header names and homology).",
                         "Or retry later; RAST is an internet service."],
        )

    try:
        response = httpx.post(url, json=body, timeout=timeout)
    except httpx.TimeoutException as exc:
        raise failure(f"no answer within {timeout:g} s", timeout_s=timeout) from exc
    except httpx.HTTPError as exc:
        raise failure(f"service unreachable ({type(exc).__name__})") from exc
    try:
        payload = response.json()
    except ValueError as exc:
        raise failure(f"HTTP {response.status_code} with a body that is not JSON",
                      status_code=response.status_code) from exc
    if response.status_code != 200 or payload.get("error"):
        error = payload.get("error") if isinstance(payload, dict) else None
        raise failure(f"HTTP {response.status_code}: {str(error)[:300] if error else 'no result'}",
                      status_code=response.status_code)
    try:
        features = payload["result"][0]["features"]
    except (KeyError, IndexError, TypeError) as exc:
        raise failure("unexpected answer (no result[0].features)") from exc
    functions: dict[str, list[str]] = {}
    for feature in features:
        text = feature.get("function") if isinstance(feature, dict) else None
        gid = feature.get("id") if isinstance(feature, dict) else None
        if isinstance(text, str) and text.strip() and gid in proteins:
            functions[gid] = [part for part in _SPLIT.split(text.strip()) if part]
    return functions
