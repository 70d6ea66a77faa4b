"""What the record keeps of a call's arguments (store/argument_caps.py): the whole when short, a
marked, bounded copy otherwise, and never a full serialisation of a huge argument."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from gem_flux_mcp.store.argument_caps import TRUNCATED_MARK, capped_arguments, json_longer_than

LIMIT = 2_000


def random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(6 if depth < 3 else 3)
    if kind == 0:
        return "".join(rng.choice('ab\u00e9\u4e2d"\\\n') for _ in range(rng.randrange(0, 400)))
    if kind == 1:
        return rng.choice([0, -1, 2.5, True, False, None, 10**12])
    if kind == 2:
        return "cpd" + str(rng.randrange(100_000))
    if kind == 3:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 12))]
    return {f"k{i}": random_value(rng, depth + 1) for i in range(rng.randrange(0, 10))}


def test_the_length_bound_never_overstates() -> None:
    """`json_longer_than` says True only when the JSON is longer: 2,000 random values around the
    limit, texts with characters JSON escapes among them."""
    rng = random.Random(7)
    said_longer = 0
    for _ in range(2_000):
        value = random_value(rng)
        size = len(json.dumps(value))
        for limit in (0, 50, size - 1, size, LIMIT):
            if json_longer_than(value, limit):
                said_longer += 1
                assert size > limit, (value, limit)
            if size <= limit:
                assert not json_longer_than(value, limit)
    assert said_longer > 1_000  # the check decides most oversized values without serialising them


def test_short_arguments_are_kept_whole() -> None:
    args = {"compound_id": "cpd00027", "query": 'gluc"ose\u00e9', "limit": 5, "bounds": [-10.0, 1000.0], "x": None}
    assert capped_arguments(args, LIMIT) == args
    assert capped_arguments({"path": Path("/a/b")}, LIMIT) == {"path": "/a/b"}  # not JSON: its text


def test_an_inline_genome_is_cut_and_marked() -> None:
    proteins = "".join(f">p{i}\n{'M' + 'A' * 299}\n" for i in range(20_000))  # ~6 MB of FASTA
    kept = capped_arguments({"protein_content": proteins, "model_name": "ecoli"}, LIMIT)
    assert len(json.dumps(kept)) <= LIMIT
    assert kept["model_name"] == "ecoli"
    assert kept["protein_content"].startswith(proteins[:100])
    assert f"{TRUNCATED_MARK} ({len(proteins)} chars)" in kept["protein_content"]


def test_long_lists_and_objects_are_shortened_with_their_sizes() -> None:
    kept = capped_arguments({"compounds": [f"cpd{i:05d}" for i in range(100_000)],
                             "custom_bounds": {f"cpd{i:05d}": [-1, 1] for i in range(50_000)}}, LIMIT)
    assert len(json.dumps(kept)) <= LIMIT
    assert kept["compounds"][0] == "cpd00000" and kept["compounds"][-1] == f"{TRUNCATED_MARK} (100000 items)"
    assert kept["custom_bounds"][TRUNCATED_MARK] == "50000 entries"
    too_many = {f"argument_{i}": "x" for i in range(5_000)}  # no shortening fits: a marked note instead
    note = capped_arguments(too_many, 40)
    assert list(note) == [TRUNCATED_MARK] and "more than 40 characters" in note[TRUNCATED_MARK]


def test_deciding_an_oversized_value_reads_only_a_bounded_part_of_it() -> None:
    """10,000 entries against a limit of 20,000 characters: the check stops after about 2,000 of
    them (each at least 5 characters past the 10,001 of braces and commas)."""
    read = 0

    class Key:
        def __init__(self, i: int) -> None:
            self.i = i

        def __str__(self) -> str:
            nonlocal read
            read += 1
            return f"k{self.i:04d}"[:2]

    assert json_longer_than({Key(i): 1 for i in range(10_000)}, 20_000)
    assert 1_000 < read <= 2_100
    assert json_longer_than(list(range(1_000_000)), LIMIT)  # decided by the count of items alone
