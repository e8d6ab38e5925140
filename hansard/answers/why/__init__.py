"""`hansard why`: for each line of a file, the archived edit that wrote it. The rooms:

* ``target``: what a question names and the file's text (typed errors for a bad question);
* ``engine`` and ``unmatched``: the attribution rules, as named steps;
* ``line``: one line's answer; ``contract``: the JSON document; ``cache``: the why-result cache;
* ``question``: the question answered, start to end: every question about a file is cut from
  the one answer of the whole file; ``early``: its blame, started before anything else;
* ``agreement``: every way of asking a file, compared line by line with the whole file's answer;
* ``many`` and ``together``: the answers of many files asked in turn, and what they share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hansard.answers.why.early import blame_early, drop_early
from hansard.answers.why.target import parse_target, resolve_target

if TYPE_CHECKING:
    from hansard.answers.why.question import cached_json, explain, explain_json

_QUESTION = frozenset({"cached_json", "explain", "explain_json"})


def __getattr__(name: str) -> Any:
    # The rules' modules load on first use, so that a question's blame starts before them.
    if name in _QUESTION:
        from hansard.answers.why import question

        return getattr(question, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["blame_early", "cached_json", "drop_early", "explain", "explain_json", "parse_target", "resolve_target"]
