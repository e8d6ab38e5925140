"""`hansard why`: for each line of a file, the archived edit that wrote it. The rooms:

* ``target``: what a question names and the file's text (typed errors for a bad question);
* ``engine`` and ``unmatched``: the attribution rules, as named steps;
* ``line``: one line's answer; ``contract``: the JSON document; ``cache``: the why-result cache;
* ``explain``: the question answered, start to end: every question about a file is cut from
  the one answer of the whole file;
* ``agreement``: every way of asking a file, compared line by line with the whole file's answer.
"""

from __future__ import annotations

from hansard.answers.why.explain import blame_early, cached_json, drop_early, explain, explain_json
from hansard.answers.why.target import parse_target, resolve_target

__all__ = ["blame_early", "cached_json", "drop_early", "explain", "explain_json", "parse_target", "resolve_target"]
