"""The provider interface and the small helpers every provider parser shares.

A provider is one module that knows one agent's on-disk format. It answers two questions:
``sniff`` (is this file mine? decided from content, never from the file name) and
``new_parser`` (a stateful parser that turns raw records into items, see hansard.values.models).

A parser must never raise on input: every record it cannot use becomes a ``Skip`` with a
reason. Its ``state()`` is small and JSON-serialisable, so the scanner can stop after any
record and resume at the next byte offset in a later run, doing work in proportion to the
new bytes only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import orjson

from hansard.agents.edits import diff_texts, hunks_from_structured_patch, lines_of, parse_unified_diff  # noqa: F401 - shared by parsers
from hansard.agents.record import Agent, McpConfig, MemoryFile  # noqa: F401 - the record every agent exports
from hansard.values.models import Item, RawRecord, Skip


class Parser(Protocol):
    def feed(self, record: RawRecord) -> list[Item]:
        """Items for one record. Never raises; unusable input yields a Skip."""

    def finish(self) -> list[Item]:
        """Called when the readable data ends for now (not necessarily the session)."""

    def state(self) -> dict[str, Any]:
        """JSON-serialisable state from which ``new_parser`` resumes at the next record."""


class Provider(Protocol):
    name: str  # "claude_code", "codex", "gemini"
    # True when the file is one JSON document rewritten in place: the scanner then hands the
    # whole file as one record and re-parses it from scratch whenever it changes.
    whole_file: bool

    def sniff(self, path: Path, head: bytes) -> bool:
        """Decide from the first bytes (up to 64 KiB) whether this provider reads the file."""

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> Parser: ...


class ContainerProvider(Provider, Protocol):
    """A provider whose sources are not line files (a SQLite database, a folder, an export, a
    compressed file): hansard.ingest.containers reads them through ``records``."""

    container: str  # "sqlite", "dir", "export", "zst"

    def records(self, path: str, cursor: dict[str, Any] | None) -> tuple[list[RawRecord], dict[str, Any]] | None:
        """The records changed since ``cursor`` and the new cursor; None when the source cannot
        be read now (locked, mid-write)."""


def load_json(record: RawRecord) -> tuple[Any, Skip | None]:
    """Decode one record. Bad UTF-8 and bad JSON become Skips, never exceptions."""
    data = record.data
    try:
        return orjson.loads(data), None
    except orjson.JSONDecodeError as exc:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None, Skip("invalid_utf8", record.offset)
        if not data.strip():
            return None, Skip("blank_line", record.offset)
        return None, Skip("malformed_json", record.offset, str(exc)[:200])


def glued_records(record: RawRecord) -> list[RawRecord] | None:
    """The records of a line that holds several JSON objects glued together (``…}{"type":…``,
    as a copy of a transcript can have, where a write lost its newline), each with the offset
    of its first byte; None when the line is not such a run of complete objects."""
    data = record.data
    if b"}{" not in data:
        return None
    import json

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    decoder = json.JSONDecoder()
    out: list[RawRecord] = []
    pos = start = 0  # the object's first character, and its first byte
    while pos < len(text):
        try:
            obj, end = decoder.raw_decode(text, pos)
        except ValueError:
            return None
        if not isinstance(obj, dict):
            return None
        part = text[pos:end].encode("utf-8")
        out.append(RawRecord(record.source_path, record.offset + start, part))
        pos, start = end, start + len(part)  # the objects are contiguous: no re-encoding of what came before
    return out if len(out) > 1 else None


def nonempty_str(v: Any) -> str | None:
    """``v`` when it is a non-empty string, else None: a field a record may omit, null or blank."""
    return v if isinstance(v, str) and v else None


def dict_of(v: Any) -> dict[str, Any]:
    """``v`` when a JSON object, else an empty one (a field of the wrong type reads as absent)."""
    return v if isinstance(v, dict) else {}


def list_of(v: Any) -> list[Any]:
    """``v`` when a JSON array, else an empty one."""
    return v if isinstance(v, list) else []


def str_of(v: Any) -> str:
    """``v`` when a string, else the empty string."""
    return v if isinstance(v, str) else ""


def iso_from_epoch_ms(v: Any) -> str | None:
    """Milliseconds since the epoch as UTC ISO-8601 to the millisecond (``…T12:00:00.250Z``);
    None for anything that is not a number or is out of range."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    try:
        return datetime.fromtimestamp(v / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(v) % 1000:03d}Z"
    except (OverflowError, OSError, ValueError):
        return None


def guarded(feed: Callable[[RawRecord], list[Item]], record: RawRecord) -> list[Item]:
    """``feed(record)``, or one ``parser_error`` Skip naming the exception when it raises:
    a parser bug costs one record, never the file (``Parser.feed`` never raises)."""
    try:
        return feed(record)
    except Exception as exc:  # a parser never raises on input
        return [Skip("parser_error", record.offset, repr(exc)[:200])]


class JsonParser:
    """The skeleton of a parser whose every record is one JSON document: ``feed`` decodes it
    (bad bytes or JSON become its Skip) and hands the value to ``_parse`` under ``guarded``;
    ``finish`` has nothing held back."""

    def finish(self) -> list[Item]:
        return []

    def feed(self, record: RawRecord) -> list[Item]:
        return guarded(self._feed, record)

    def _feed(self, record: RawRecord) -> list[Item]:
        obj, skip = load_json(record)
        return [skip] if skip else self._parse(obj, record)

    def _parse(self, obj: Any, record: RawRecord) -> list[Item]:
        raise NotImplementedError


def record_key(record: RawRecord) -> str:
    """A stable id for a record whose provider gives none: the hash of its exact bytes.
    Identical lines copied into another file (a continued rollout) get the same key."""
    return "h:" + hashlib.blake2b(record.data, digest_size=12).hexdigest()


def first_json_lines(head: bytes, limit: int = 5) -> list[dict[str, Any]]:
    """The first few complete JSON-object lines of a file head, for sniffing."""
    out: list[dict[str, Any]] = []
    for line in head.split(b"\n")[:-1] if b"\n" in head else [head]:
        line = line.strip()
        if not line:
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
        if len(out) >= limit:
            break
    return out


def as_text(value: Any) -> str:
    """Flatten tool output or message content (str, list of blocks, dict) into text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for block in value:
            if isinstance(block, dict):
                if "text" in block and isinstance(block["text"], str):
                    parts.append(block["text"])
                elif block.get("type") == "image" or block.get("type") == "input_image":
                    parts.append("[image]")
                elif "content" in block:
                    parts.append(as_text(block["content"]))
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(p for p in parts if p)
    if isinstance(value, dict):
        for k in ("text", "output", "content", "message"):
            if isinstance(value.get(k), str):
                return value[k]
        try:
            return orjson.dumps(value).decode()
        except orjson.JSONEncodeError:
            # Nested deeper than orjson writes (254 levels): the archive keeps the record
            # whole; the searchable text says what it is rather than dropping the record.
            return "[output nested too deeply to show as text]"
    return str(value)


STEP_STATUSES = frozenset({"pending", "in_progress", "completed", "cancelled"})


def snapshot_steps(items: Any, text_keys: tuple[str, ...]) -> tuple[dict[str, Any], ...] | None:
    """A todo list or plan (Codex update_plan, Gemini write_todos) as StepsItem steps: the
    first non-empty string among ``text_keys`` is the text; an unknown status is pending.
    None when ``items`` is not a list."""
    if not isinstance(items, list):
        return None
    steps = []
    for item in items:
        if not isinstance(item, dict):
            continue
        text = next((v for k in text_keys if isinstance(v := item.get(k), str) and v), "")
        status = item.get("status")
        steps.append({"text": text, "status": status if isinstance(status, str) and status in STEP_STATUSES
                      else "pending"})
    return tuple(steps)
