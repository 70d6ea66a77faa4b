"""What recording a call's arguments costs the server's writer thread, by argument size:
`capped_arguments` (store/argument_caps.py) against one `json.dumps` of the whole arguments,
the least a recorder that measures by serialising pays (the one before 2026-11-28 paid two).

    .venv/bin/python benchmarks/argument_caps.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from gem_flux_mcp.store.activity import DEFAULT_MAX_ARGUMENT_CHARS
from gem_flux_mcp.store.argument_caps import capped_arguments


def cases() -> dict[str, dict[str, Any]]:
    proteins = "".join(f">p{i}\n{'M' + 'A' * 299}\n" for i in range(20_000))
    return {
        "a look-up (compound_id)": {"compound_id": "cpd00027"},
        "a medium of 40 compounds with bounds": {"compounds": [f"cpd{i:05d}" for i in range(40)],
                                                 "custom_bounds": {f"cpd{i:05d}": [-5.0, 100.0] for i in range(40)}},
        "100,000 compound ids": {"compounds": [f"cpd{i:05d}" for i in range(100_000)]},
        f"a proteome inline ({len(proteins) / 1e6:.1f} MB of FASTA)": {"protein_content": proteins},
    }


def per_call_ms(function: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        n = 1
        while True:
            started = time.perf_counter()
            for _ in range(n):
                function()
            took = time.perf_counter() - started
            if took > 0.05:
                break
            n *= 4
        best = min(best, took / n * 1000)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print("| arguments | capped_arguments ms | json.dumps of the whole ms | ratio |")
    print("|---|---|---|---|")
    for name, value in cases().items():
        capped = per_call_ms(lambda v=value: capped_arguments(v, DEFAULT_MAX_ARGUMENT_CHARS), args.repeat)
        whole = per_call_ms(lambda v=value: json.dumps(v), args.repeat)
        print(f"| {name} | {capped:.4f} | {whole:.4f} | {capped / whole:.3g}x |")


if __name__ == "__main__":
    main()
