"""Codex rollouts that Codex itself compressed: ``archived_sessions/…/rollout-*.jsonl.zst``.

What the source does (openai/codex ``codex-rs/rollout/src/compression.rs``, read at 3846901e):
a background job compresses rollouts under ``archived_sessions/`` once they are at least
7 days old (by mtime) into ``rollout-….jsonl.zst``, one Zstandard frame at level 3, keeping
the mtime and permissions, then deletes the ``.jsonl``. When Codex needs to append to such a
rollout it decompresses it back to ``.jsonl`` and deletes the ``.zst``: a ``.zst`` is never
appended to. Its reader also accepts several concatenated frames, and so does this one.

So a compressed rollout is read whole, each time it changes (a container source, like an
export): its lines, decompressed as a stream, are the records, numbered 0, 1, 2, … and parsed
by the same :class:`~hansard.agents.codex.rollout.CodexParser` as a plain rollout. The same
session read earlier from its ``.jsonl`` gives no second copy: messages, tool calls and edits
are keyed by provider and their own ids, which compression does not change.

Always true: a frame that stops early or is damaged keeps every line decompressed before the
damage, and its undecodable tail becomes one record that the parser counts as a skip.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hansard.agents.codex.rollout import PROVIDER as ROLLOUT
from hansard.agents.codex.rollout import CodexParser
from hansard.files import safeopen
from hansard.files.zstdlib import MAGIC, zstd
from hansard.values.models import RawRecord

NAME = ROLLOUT.name
SUFFIX = ".jsonl.zst"
# Enough of the first line to see a Codex envelope: the session_meta line starts with its
# timestamp and type; its payload (instructions of many kB) need not be complete.
SNIFF_BYTES = 4096


def _lines(path: str) -> tuple[list[bytes], bytes]:
    """The complete lines of the decompressed file, and what followed the last newline (a
    damaged or cut-off tail, or b"")."""
    mod = zstd()
    out: list[bytes] = []
    tail = b""
    with safeopen.open_file(path, follow=True) as raw, mod.ZstdFile(raw, "rb") as fh:
        try:
            for line in fh:
                if line.endswith(b"\n"):
                    out.append(line[:-1].rstrip(b"\r") if line.endswith(b"\r\n") else line[:-1])
                else:
                    tail = line
        except (mod.ZstdError, EOFError) as exc:
            # Lines before the damage are good; the rest cannot be read.
            tail = tail or f"[compressed rollout damaged: {exc}]".encode()
    return out, tail


class ArchivedRolloutProvider:
    """A compressed Codex rollout, read whole (see the module docstring)."""

    name = NAME
    whole_file = False
    container = "zst"

    def sniff(self, path: Path, head: bytes) -> bool:
        if not str(path).endswith(SUFFIX) or not head.startswith(MAGIC):
            return False
        mod = zstd()
        try:
            start = mod.ZstdDecompressor().decompress(head, max_length=SNIFF_BYTES)
        except mod.ZstdError:
            return False
        return ROLLOUT.sniff(path, start)

    def records(self, path: str, cursor: dict[str, Any] | None) -> tuple[list[RawRecord], dict[str, Any]] | None:
        try:
            lines, tail = _lines(path)
        except OSError:
            return None  # gone or unreadable now: the next scan tries again
        records = [RawRecord(path, i, line) for i, line in enumerate(ln for ln in lines if ln.strip())]
        if tail.strip():
            records.append(RawRecord(path, len(records), tail))
        return records, {"lines": len(records)}

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> CodexParser:
        return CodexParser(path, state)


PROVIDER = ArchivedRolloutProvider()
