"""What the record keeps of a tool call's arguments: all of them when their JSON is short, else a
shortened copy with each cut marked, so one call's record stays bounded whatever a client sends.

The cost is bounded too. Whether arguments fit is decided by counting a lower bound of their
JSON length (each text at least its characters and quotes) that stops at the limit, and only
what is kept is serialised. Writing the whole value twice to measure it, as this did before,
took ~36 % of the server's CPU under a client sending 1,000 malformed or oversized calls
(py-spy, tests/test_security.py's fuzz test): a multi-megabyte argument, such as a genome's
proteins passed inline, cost the recorder two full serialisations.
"""

from __future__ import annotations

import json
from itertools import islice
from typing import Any

TRUNCATED_MARK = "...truncated"
TEXT_LIMIT, ITEM_LIMIT = 200, 20  # the first shortening; halved until the record fits
LAST_TEXT_LIMIT = 20


def capped_arguments(value: Any, max_chars: int) -> Any:
    """Arguments as recorded: in full when their JSON fits in `max_chars`, otherwise with long
    texts cut and long lists/objects shortened, each cut marked, so the record stays bounded."""
    if not json_longer_than(value, max_chars):
        whole = _jsonable(value)
        if len(json.dumps(whole)) <= max_chars:
            return whole
    text_limit, item_limit = TEXT_LIMIT, ITEM_LIMIT
    while True:
        shortened = _jsonable(_shorten(value, text_limit, item_limit))
        fits = len(json.dumps(shortened)) <= max_chars
        if fits or text_limit <= LAST_TEXT_LIMIT:
            break
        text_limit, item_limit = text_limit // 2, max(item_limit // 2, 2)
    if not fits:  # very many arguments
        return {TRUNCATED_MARK: f"arguments of more than {max_chars} characters not recorded"}
    return shortened


def json_longer_than(value: Any, limit: int) -> bool:
    """Whether `value` written as JSON takes more than `limit` characters, found without writing
    it: a lower bound of its length is counted until it passes `limit` (so a huge value costs
    about `limit` steps). False means "maybe not": the caller measures the (short) text."""
    total = 0
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 1 + len(item)  # braces and commas
            if total > limit:
                return True
            for key, inner in item.items():
                total += len(str(key)) + 3  # quotes and colon
                if total > limit:
                    return True
                pending.append(inner)
        elif isinstance(item, list | tuple):
            total += 1 + len(item)
            if total > limit:
                return True
            pending.extend(item)
        else:
            total += 1
        if total > limit:
            return True
    return False


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return json.loads(json.dumps(value, default=str))


def _shorten(value: Any, text_limit: int, item_limit: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= text_limit else f"{value[:text_limit]}{TRUNCATED_MARK} ({len(value)} chars)"
    if isinstance(value, list | tuple):
        head = [_shorten(v, text_limit, item_limit) for v in value[:item_limit]]
        return head + ([f"{TRUNCATED_MARK} ({len(value)} items)"] if len(value) > item_limit else [])
    if isinstance(value, dict):
        out = {str(k)[:text_limit]: _shorten(v, text_limit, item_limit)
               for k, v in islice(value.items(), item_limit)}
        if len(value) > item_limit:
            out[TRUNCATED_MARK] = f"{len(value)} entries"
        return out
    return value
