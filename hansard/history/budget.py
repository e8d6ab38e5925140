"""Fitting an answer into a token budget (estimated at 4 characters a token).

Entries are kept in the order given, which the callers make newest and strongest first;
entries are dropped from the end until the answer fits, and ``truncated`` says how many.
The short ``tree`` for people is rendered from what is kept, and counts toward the budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

CHARS_PER_TOKEN = 4


def estimate_tokens(obj: Any) -> int:
    return len(json.dumps(obj, ensure_ascii=False, default=str)) // CHARS_PER_TOKEN + 1


def fit_budget(result: dict[str, Any], token_budget: int, render: Callable[[dict[str, Any]], str],
               key: str = "entries") -> dict[str, Any]:
    if token_budget < 100:
        from hansard.errors import InvalidArgument

        raise InvalidArgument("token_budget must be at least 100")
    entries = list(result[key])
    for e in entries:
        e.pop("sort_time", None)
    kept = len(entries)
    while True:
        out = dict(result)
        out[key] = entries[:kept]
        out["truncated"] = len(entries) - kept
        out["tree"] = render(out)
        if estimate_tokens(out) <= token_budget or kept == 0:
            return out
        # Drop about a tenth at a time: a long history fits in a few passes.
        kept -= max(1, kept // 10)
