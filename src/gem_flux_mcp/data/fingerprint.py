"""Content checksums of data files, remembered by (size, mtime) so a warm start need not rehash.

The cache key of every derived index is the sha256 of the source files' contents; hashing 67 MB
costs ~0.2 s, so the hash is recomputed only when a file's size or modification time changes.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from gem_flux_mcp.fsutil import atomic_write_text


def sha256_file(path: str | os.PathLike[str], chunk_size: int = 1 << 20) -> str:
    """Hex sha256, read in chunks so memory stays flat for large files."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


class FingerprintCache:
    """sha256 per file, reused while the file's size and mtime are unchanged."""

    def __init__(self, cache_file: Path) -> None:
        self.cache_file = cache_file
        try:
            self._entries: dict[str, dict[str, object]] = json.loads(cache_file.read_text())
        except (OSError, ValueError):
            self._entries = {}

    def sha256(self, path: Path) -> str:
        stat = path.stat()
        key = str(path.resolve())
        entry = self._entries.get(key)
        if entry and entry.get("size") == stat.st_size and entry.get("mtime_ns") == stat.st_mtime_ns:
            return str(entry["sha256"])
        digest = sha256_file(path)
        self._entries[key] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest}
        try:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.cache_file, json.dumps(self._entries, indent=1))
        except OSError:
            pass  # a read-only cache folder only costs a rehash next time
        return digest


def fingerprint_paths(paths: list[Path], cache_dir: Path) -> list[str]:
    cache = FingerprintCache(cache_dir / "fingerprints.json")
    return [cache.sha256(p) for p in paths]
