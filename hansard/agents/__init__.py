"""The registry of coding agents: one record per agent (hansard.agents.record.Agent), one line
each in ``AGENTS``. Everything else asks here for agent names, homes, tool names, memory files
and readers; nothing outside this package spells them.

Adding an agent: a package ``hansard/agents/<name>/`` whose ``__init__`` exports ``AGENT``
(cheap to import: the parser lives in a sibling module named in ``AGENT.readers``), one line
below, and its tests.

Importing this module and reading records never imports a parser; ``providers``, ``sniff``
and ``from_key`` load the readers on first use.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from hansard.agents.base import Provider
    from hansard.agents.record import Agent, GitSource, MemoryFile

# Order matters only when two readers could both claim a file.
AGENTS = (
    "hansard.agents.claude_code",
    "hansard.agents.codex",
    "hansard.agents.gemini",
    "hansard.agents.cursor",
    "hansard.agents.opencode",
    "hansard.agents.aider",
    "hansard.agents.copilot",
    "hansard.agents.webchat.claude_web",
    "hansard.agents.webchat.chatgpt",
    "hansard.agents.specstory",
)
# Tools that keep sessions in git, read from the refs of every repository hansard knows; each
# exports ``SOURCE`` (a hansard.agents.record.GitSource). Their sessions are parsed by the agents' readers.
GIT_SOURCES = ("hansard.agents.entire",)
# Readers of records no agent wrote to disk: deliveries captured by capture_subagent_messages.
OTHER_READERS = ("hansard.agents.capture:PROVIDER",)
TOOL_ROLES = ("shell", "shell_output", "edit", "read", "search", "web", "task", "plan")
HEAD_BYTES = 64 * 1024


@cache
def agents() -> tuple[Agent, ...]:
    return tuple(importlib.import_module(mod).AGENT for mod in AGENTS)


@cache
def git_sources() -> tuple[GitSource, ...]:
    return tuple(importlib.import_module(mod).SOURCE for mod in GIT_SOURCES)


def by_name(name: str | None) -> Agent | None:
    """The agent stored under ``name`` in sessions.provider."""
    return next((a for a in agents() if a.name == name), None)


def resolve(word: str | None) -> str | None:
    """The stored provider name for what a person typed (a name, an alias or the
    `mcp install` name, any case); the word itself when no agent answers to it."""
    if not word:
        return word
    return _names().get(word.lower(), word)


@cache
def _names() -> dict[str, str]:
    out: dict[str, str] = {}
    for a in agents():
        for w in (a.name, a.install_name, *a.aliases):
            if w:
                out.setdefault(w.lower(), a.name)
    return out


def display_name(name: str | None, default: str = "agent") -> str:
    a = by_name(name)
    return a.display if a else (name or default)


def install_names() -> tuple[str, ...]:
    """The choices of `hansard mcp install`."""
    return tuple(a.install_name for a in agents() if a.install_name and a.mcp)


def by_install_name(word: str) -> Agent | None:
    return next((a for a in agents() if a.install_name == word and a.mcp), None)


@cache
def tools(role: str) -> tuple[str, ...]:
    """Every agent's tool names in one role (see TOOL_ROLES), sorted."""
    if role not in TOOL_ROLES:
        raise ValueError(f"unknown tool role {role!r}")
    out: set[str] = set()
    for a in agents():
        out |= getattr(a, f"{role}_tools")
    return tuple(sorted(out))


def transcript_dirs() -> list[str]:
    """The folders a bare `hansard index` scans, every agent's, honouring their env vars."""
    return [d for a in agents() for d in a.homes()]


def whole_dirs() -> set[str]:
    """Folders a scan reads as one source each (never file by file), every agent's."""
    return {d for a in agents() for d in a.whole_dirs()}


def repo_files() -> tuple[str, ...]:
    """Transcript file names agents keep at the top of the repositories they work in."""
    return tuple(dict.fromkeys(n for a in agents() for n in a.repo_files))


def repo_dirs() -> tuple[str, ...]:
    """Folders inside repositories whose ``.md`` files are agents' transcripts (SpecStory)."""
    return tuple(dict.fromkeys(d for a in agents() for d in a.repo_dirs))


def memory_files() -> list[tuple[Agent, MemoryFile]]:
    return [(a, m) for a in agents() for m in a.memory_files]


def web_names() -> tuple[str, ...]:
    return tuple(a.name for a in agents() if a.web)


def unsearched_names() -> tuple[str, ...]:
    """Providers left out of search and session lists unless asked for: web chats, and copies
    of sessions kept in repositories (SpecStory)."""
    return tuple(a.name for a in agents() if a.web or not a.searched)


@cache
def providers() -> tuple[Provider, ...]:
    out: list[Provider] = []
    for a in agents():
        out += a.providers()
    for ref in OTHER_READERS:
        mod, _, attr = ref.partition(":")
        out.append(getattr(importlib.import_module(mod), attr))
    return tuple(out)


def reader(name: str, whole_file: bool | None = None) -> Provider | None:
    for p in providers():
        if p.name == name and (whole_file is None or p.whole_file == whole_file):
            return p
    return None


def sniff(path: Path, head: bytes | None = None) -> Provider | None:
    if head is None:
        from hansard.files import safeopen

        with safeopen.open_file(path, follow=True) as fh:
            head = fh.read(HEAD_BYTES)
    for p in providers():
        try:
            if p.sniff(path, head):
                return p
        except Exception:  # a sniffer bug must not stop the scan
            continue
    return None


def provider_key(p: Provider) -> str:
    """How a source row names its reader, unique among readers: an agent's whole-file variant
    adds ``:json``, a reader of records kept in a container (a database, a folder tree) adds
    ``:<container>``."""
    if p.whole_file:
        return p.name + ":json"
    container = getattr(p, "container", None)
    return f"{p.name}:{container}" if container else p.name


def from_key(key: str) -> Provider | None:
    # The readers of the agent the key names first: a source read again (a transcript grown by
    # a message) loads its own reader, not every agent's.
    name = key.partition(":")[0]
    for a in agents():
        if a.name == name:
            found = next((p for p in a.providers() if provider_key(p) == key), None)
            if found is not None:
                return found
    return next((p for p in providers() if provider_key(p) == key), None)


def folder_readers() -> tuple[Provider, ...]:
    """The readers that may claim a folder as one source: those of the agents that keep one
    (``source_dirs``); no other reader reads a folder (tests/test_agents_registry.py)."""
    return tuple(p for a in agents() if a.source_dirs for p in a.providers())
