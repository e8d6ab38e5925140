"""Unified-diff hunks, parsed without heavy imports (the `why` path uses this).

A hunk's ``lines`` keep their one-character prefix (' ', '-', '+'). ``new_start`` is the
post-edit line number of the hunk's first line when known, else None.
"""

from __future__ import annotations

import re
from collections import namedtuple

# old_start, old_lines, new_start, new_lines: int | None; lines: tuple[str, ...].
# A namedtuple, not typing.NamedTuple or a dataclass: this module is on `why`'s start-up path.
Hunk = namedtuple("Hunk", "old_start old_lines new_start new_lines lines")


_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def parse_unified_diff(diff: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[Hunk, ...]]:
    """Added lines, removed lines and hunks of a unified diff (file headers ignored)."""
    added: list[str] = []
    removed: list[str] = []
    hunks: list[Hunk] = []
    cur: list[str] | None = None
    header: tuple[int, int, int, int] | None = None

    def close() -> None:
        if cur is not None and header is not None:
            hunks.append(Hunk(header[0], header[1], header[2], header[3], tuple(cur)))

    for line in diff.split("\n"):
        m = _HUNK_HEADER.match(line)
        if m:
            close()
            header = (int(m[1]), int(m[2] or 1), int(m[3]), int(m[4] or 1))
            cur = []
            continue
        if cur is None or line.startswith(("--- ", "+++ ", "\\")):
            continue
        if line.startswith("+"):
            added.append(line[1:])
        elif line.startswith("-"):
            removed.append(line[1:])
        elif not line.startswith(" ") and line != "":
            continue
        cur.append(line)
    close()
    return tuple(added), tuple(removed), tuple(hunks)


def hunks_to_json(hunks: tuple[Hunk, ...] | list[Hunk]) -> list[list[object]]:
    return [[h.old_start, h.old_lines, h.new_start, h.new_lines, list(h.lines)] for h in hunks]


def hunks_from_json(rows: list[list[object]]) -> list[Hunk]:
    return [Hunk(h[0], h[1], h[2], h[3], tuple(h[4])) for h in rows]  # type: ignore[arg-type]
