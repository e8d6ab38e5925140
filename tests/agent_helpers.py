"""Driving a provider's parser over records, shared by the tests of the agents read beside Claude Code, Codex and Gemini."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from hansard.ingest.reader import iter_jsonl
from hansard.values.models import EditItem, RawRecord, Skip

AGENT_SAMPLES = Path(__file__).resolve().parent / "agent_samples"


def parse_lines(provider: Any, path: Path | str, state: dict | None = None, start: int = 0) -> tuple[list[Any], dict]:
    parser = provider.new_parser(str(path), state)
    items: list[Any] = []
    for rec in iter_jsonl(str(path), start):
        items += parser.feed(rec)
    return items + parser.finish(), parser.state()


def parse_records(provider: Any, path: str, records: list[RawRecord], state: dict | None = None) -> tuple[list[Any], dict]:
    parser = provider.new_parser(path, state)
    items: list[Any] = []
    for rec in records:
        items += parser.feed(rec)
    return items + parser.finish(), parser.state()


def kinds(items: list[Any]) -> Counter:
    return Counter(type(i).__name__ for i in items)


def edits(items: list[Any], status: str | None = None) -> list[EditItem]:
    return [i for i in items if isinstance(i, EditItem) and (status is None or i.status == status)]


def skips(items: list[Any]) -> Counter:
    return Counter(i.reason for i in items if isinstance(i, Skip))
