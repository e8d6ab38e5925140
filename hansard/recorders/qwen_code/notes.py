"""qwen-code's commit attribution notes, as its writer makes them: one JSON object per commit,
attached with ``git notes --ref=refs/notes/ai-attribution add -f -m <json> <commit>``.

The format is ``CommitAttributionNote`` of QwenLM/qwen-code
``packages/core/src/services/commitAttribution.ts`` (written by ``buildGitNotesCommand`` in
``packages/core/src/services/attributionTrailer.ts``, capped at 30 KB)::

    {"version": 1, "generator": "Qwen-Coder",
     "files": {"src/a.ts": {"aiChars": 120, "humanChars": 30, "percent": 80, "surface": "cli"}},
     "summary": {"aiPercent": 80, "aiChars": 120, "humanChars": 30, "totalFilesTouched": 1,
                 "surfaces": ["cli"]},
     "surfaceBreakdown": {...}, "excludedGenerated": [...], "promptCount": 2}

File paths are relative to the repository's top, with ``/``. ``generator`` is the model's name
as qwen-code sanitised it (internal Qwen model names all read ``Qwen-Coder``). There is no
session id and no line range. Parsing never raises: a note that is not such an object is None,
a file entry without whole-number counts is left out.
"""

from __future__ import annotations

from typing import Any, NamedTuple

# A note larger than this is not one qwen-code wrote (it caps its own at 30 KB).
MAX_NOTE_BYTES = 1 << 20


class FileShare(NamedTuple):
    ai_chars: int
    human_chars: int
    percent: int


class Note(NamedTuple):
    generator: str | None
    files: dict[str, FileShare]
    prompt_count: int | None

    def share(self, path: str) -> FileShare | None:
        return self.files.get(path)


def _count(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 53 else None


def parse_note(data: bytes) -> Note | None:
    """A qwen-code attribution note, or None when ``data`` is not one. Never raises."""
    if not data or len(data) > MAX_NOTE_BYTES:
        return None
    import orjson

    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("files"), dict) or "version" not in obj:
        return None
    files: dict[str, FileShare] = {}
    for path, rec in obj["files"].items():
        if not isinstance(path, str) or not path or not isinstance(rec, dict):
            continue
        ai, human = _count(rec.get("aiChars")), _count(rec.get("humanChars"))
        if ai is None or human is None:
            continue
        total = ai + human
        files[path.replace("\\", "/")] = FileShare(ai, human, round(100 * ai / total) if total else 0)
    gen = obj.get("generator")
    return Note(gen[:200] if isinstance(gen, str) and gen else None, files, _count(obj.get("promptCount")))
