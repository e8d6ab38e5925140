"""Fitting an answer into a token budget (estimated at 4 characters a token).

Entries are kept in the order given, which the callers make newest and strongest first;
entries past the budget are dropped, and ``truncated`` says how many. The short ``tree`` for
people is rendered from what is kept, and counts toward the budget. Expensive details of an
entry (``enrich``) are computed only for entries that are kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

CHARS_PER_TOKEN = 4
# The tree repeats an entry in a few short lines: room kept for it per entry's JSON size.
TREE_SHARE = 0.4
# What makes an answer's tree for people from the kept entries (hansard/render/trees.py).
Render = Callable[[Mapping[str, object]], str]


def _size(obj: Any) -> int:
    return len(json.dumps(obj, ensure_ascii=False, default=str))


def estimate_tokens(obj: Any) -> int:
    return _size(obj) // CHARS_PER_TOKEN + 1


def fit_budget(result: dict[str, Any], token_budget: int, render: Render,
               key: str = "entries", enrich: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    if token_budget < 100:
        from hansard.errors import InvalidArgument

        raise InvalidArgument("token_budget must be at least 100")
    entries = list(result[key])
    limit = token_budget * CHARS_PER_TOKEN
    out = dict(result)
    out[key], out["truncated"], out["tree"] = [], 0, ""
    used = _size(out) + len(render(out))
    kept: list[dict[str, Any]] = []
    for e in entries:
        if enrich is not None:
            enrich(e)
        e.pop("sort_time", None)
        size = int((_size(e) + 2) * (1 + TREE_SHARE))
        if used + size > limit and kept:
            break
        kept.append(e)
        used += size
    while True:
        out[key] = kept
        out["truncated"] = len(entries) - len(kept)
        out["tree"] = render(out)
        if estimate_tokens(out) <= token_budget or not kept:
            return out
        kept = kept[:-1]
