"""git-ai's authorship logs (the Git AI Standard, schema ``authorship/3.0.0``, and the earlier
logs with 7-hex session hashes), as git-ai attaches them to commits in ``refs/notes/ai``.

A log is an attestation section (a file path at the start of a line, then two-space indented
``<session hash> <line ranges>`` lines), a line ``---``, and a JSON object whose ``prompts`` map
each session hash to its ``agent_id`` (tool, conversation id, model). Line numbers are those of
the file in the commit the note is attached to. Parsing never raises: what cannot be read is
left out.
"""

from __future__ import annotations

import re
from typing import Any

from hansard.agents.base import dict_of

_ENTRY = re.compile(r"^  ([0-9a-f]{7,64}) ([0-9,\-]+)\s*$")


class Note:
    """One authorship log: per file, (session hash, its lines); per hash, its agent."""

    def __init__(self) -> None:
        self.files: dict[str, list[tuple[str, list[tuple[int, int]]]]] = {}
        self.prompts: dict[str, dict[str, Any]] = {}

    def who(self, path: str, line: int) -> str | None:
        """The session hash the note names for ``line`` of ``path``; None when none does."""
        for h, ranges in self.files.get(path, ()):
            if any(a <= line <= b for a, b in ranges):
                return h
        return None


def parse_note(data: bytes) -> Note | None:
    """An authorship log, or None when the text is not one. Never raises."""
    import orjson

    text = data.decode("utf-8", "replace")
    head, sep, meta = text.partition("\n---\n")
    if not sep:
        if text.startswith("---\n"):
            head, meta = "", text[4:]
        else:
            return None
    note = Note()
    current: str | None = None
    for line in head.split("\n"):
        if not line.strip():
            continue
        if not line.startswith(" "):
            current = line[1:-1] if len(line) >= 2 and line[0] == line[-1] == '"' else line
            note.files.setdefault(current, [])
            continue
        m = _ENTRY.match(line)
        if m is None or current is None:
            continue
        ranges = []
        for part in m.group(2).split(","):
            a, _, b = part.partition("-")
            if a.isdigit() and (not b or b.isdigit()):
                ranges.append((int(a), int(b or a)))
        note.files[current].append((m.group(1), ranges))
    try:
        obj = orjson.loads(meta)
    except orjson.JSONDecodeError:
        obj = None
    prompts = obj.get("prompts") if isinstance(obj, dict) else None
    if isinstance(prompts, dict):
        for h, rec in prompts.items():
            if isinstance(h, str) and isinstance(rec, dict):
                agent = dict_of(rec.get("agent_id"))
                note.prompts[h] = {k: v for k, v in (("agent", agent.get("tool")), ("session_id", agent.get("id")),
                                                     ("model", agent.get("model"))) if isinstance(v, str) and v}
    return note
