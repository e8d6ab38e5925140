"""The known providers, and sniffing a file to find the one that reads it.

Adding an agent means adding one module with a ``PROVIDER`` object and naming it here.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path

from hansard.agents.base import Provider

# (module, attribute). Order matters only when two providers could both claim a file.
PROVIDERS = (
    ("hansard.agents.claude_code", "PROVIDER"),
    ("hansard.agents.codex", "PROVIDER"),
    ("hansard.agents.gemini", "PROVIDER"),
    ("hansard.agents.gemini", "PROVIDER_JSON"),
    ("hansard.agents.cursor", "PROVIDER"),  # agent transcripts; state.vscdb needs the record-source hook
    ("hansard.agents.copilot", "PROVIDER"),
    ("hansard.agents.aider", "PROVIDER"),  # Markdown: found only when named (`hansard index FILE`)
    ("hansard.agents.capture", "PROVIDER"),  # never sniffs: written by capture_subagent_messages
)
HEAD_BYTES = 64 * 1024


@cache
def providers() -> tuple[Provider, ...]:
    out = []
    for mod, attr in PROVIDERS:
        out.append(getattr(importlib.import_module(mod), attr))
    return tuple(out)


def by_name(name: str, whole_file: bool | None = None) -> Provider | None:
    for p in providers():
        if p.name == name and (whole_file is None or p.whole_file == whole_file):
            return p
    return None


def sniff(path: Path, head: bytes | None = None) -> Provider | None:
    if head is None:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    for p in providers():
        try:
            if p.sniff(path, head):
                return p
        except Exception:  # noqa: BLE001 - a sniffer bug must not stop the scan
            continue
    return None


def provider_key(p: Provider) -> str:
    """How a source row names its provider: whole-file variants are distinct readers."""
    return p.name + (":json" if p.whole_file else "")


def from_key(key: str) -> Provider | None:
    name, _, variant = key.partition(":")
    return by_name(name, whole_file=(variant == "json"))
