"""What hansard knows about one coding agent, as one frozen record.

A record is cheap to import: it names its readers (the parser objects) as ``"module:attr"``
strings and loads them on first use, so answering a question (`hansard why`) never imports a
parser; records are NamedTuples (immutable, and no dataclasses import on that path). Tool
names are spelled exactly as the agent records them in its transcripts. Paths are strings,
built without pathlib, for the same start-up reason.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from hansard.agents.base import Provider


def user_home() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def env_home(var: str, default: str) -> Callable[[], str]:
    """A home folder that ``$var`` moves, else ``~/<default>``."""

    def home() -> str:
        return os.path.expanduser(os.environ.get(var) or os.path.join(user_home(), default))

    return home


class MemoryFile(NamedTuple):
    """One kind of guidance file an agent reads.

    ``home_globs`` are relative to the agent's home (global scope). ``project_names`` are file
    names read anywhere in a project tree; ``project_paths`` are paths read only at the project
    root; ``project_globs`` are ``dir/*.md`` patterns read at any depth. ``session_folder_globs``
    are relative to the home and name files kept per transcript folder (two levels above the
    file), so they belong to the project whose sessions were read from that folder.
    """

    kind: str
    home_globs: tuple[str, ...] = ()
    project_names: tuple[str, ...] = ()
    project_paths: tuple[str, ...] = ()
    project_globs: tuple[str, ...] = ()
    session_folder_globs: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


class McpConfig(NamedTuple):
    """Where `hansard mcp install` writes the server entry, and in which format."""

    path: Callable[[], str]
    format: str  # "json" (an ``mcpServers`` object) or "toml" (a ``[mcp_servers.hansard]`` table)


class Agent(NamedTuple):
    name: str  # as stored in sessions.provider
    display: str  # as shown to people
    home: Callable[[], str]  # the agent's data folder, honouring its environment variable(s)
    transcript_dirs: tuple[str, ...]  # under home: the folders a bare `hansard index` scans
    readers: tuple[str, ...]  # "module:attr" of its Provider objects, loaded on first use
    aliases: tuple[str, ...] = ()  # other names people type for it
    install_name: str | None = None  # the AGENT argument of `hansard mcp install`
    mcp: McpConfig | None = None
    shell_tools: frozenset[str] = frozenset()  # run a command line (the `why` shell rule, test runs)
    shell_output_tools: frozenset[str] = frozenset()  # read a running command's output
    edit_tools: frozenset[str] = frozenset()
    read_tools: frozenset[str] = frozenset()
    search_tools: frozenset[str] = frozenset()
    web_tools: frozenset[str] = frozenset()
    task_tools: frozenset[str] = frozenset()  # start a subagent
    plan_tools: frozenset[str] = frozenset()  # write a todo list or plan
    memory_files: tuple[MemoryFile, ...] = ()
    # The key a session records instead of its working directory, from a project root (Gemini
    # legacy files keep only sha256 of the root), and the sessions.extra field holding it.
    project_key: Callable[[str], str] | None = None
    project_key_field: str | None = None
    web: bool = False  # a web chat export, not a coding agent on this machine
    # Under home: folders read as one source each, through the reader's ``records()`` (OpenCode's
    # storage/ of JSON files), never walked file by file.
    source_dirs: tuple[str, ...] = ()
    # Roots outside home a bare `hansard index` also scans (Cursor's editor storage, a history
    # file named by an environment variable), honouring their environment variables.
    other_roots: Callable[[], list[str]] | None = None
    # Transcript file names the agent keeps at the top of the repository it works in (Aider's
    # history): looked for in every repository hansard knows.
    repo_files: tuple[str, ...] = ()
    # Folders the agent keeps its transcripts in inside the repositories it works in, every
    # ``.md`` file directly in them one transcript (SpecStory's ``.specstory/history``): looked
    # for in every repository hansard knows, and in a folder given to `hansard index`.
    repo_dirs: tuple[str, ...] = ()
    # False: its sessions are copies that stay out of search and session lists unless asked
    # for, as web chats do (SpecStory).
    searched: bool = True
    # The agent commits each edit itself and names the commit in its transcript (Aider), so the
    # link step dates its edits by those commits.
    commits_own_edits: bool = False
    # Environment variables in which the agent names its running session to the commands (and
    # MCP servers) it starts, first found wins.
    session_env: tuple[str, ...] = ()
    # Environment variables that move the agent's home or other roots (besides HOME and the
    # XDG folders): what a sandbox such as `hansard demo` or a test must point elsewhere.
    home_env: tuple[str, ...] = ()
    # The session id of a transcript file the agent keeps open while the session runs (Codex's
    # rollout), from the file's path; None for any other file. Read from the open files of the
    # processes above an MCP server the agent started (hansard.agents.caller).
    session_file: Callable[[str], str | None] | None = None

    def homes(self) -> list[str]:
        """The folders (or files) holding its transcripts, as a bare `hansard index` scans them."""
        home = self.home()
        out = [os.path.join(home, d) for d in self.transcript_dirs + self.source_dirs]
        return out + (self.other_roots() if self.other_roots else [])

    def whole_dirs(self) -> list[str]:
        home = self.home()
        return [os.path.join(home, d) for d in self.source_dirs]

    def providers(self) -> tuple[Provider, ...]:
        out = []
        for ref in self.readers:
            mod, _, attr = ref.partition(":")
            out.append(getattr(importlib.import_module(mod), attr))
        return tuple(out)


class GitSource(NamedTuple):
    """A tool that keeps agent sessions inside git (Entire's checkpoints): read from the refs of
    every repository hansard knows, never from a folder. ``scan`` is ``"module:attr"`` of
    ``scan(scanner, top)``, loaded on first use."""

    name: str  # the source's name in keys (``git:<root>:<store>:<name>/...``) and reports
    display: str
    ref_patterns: tuple[str, ...]  # for-each-ref prefixes it reads
    scan: str

    def scanner(self) -> Callable[..., object]:
        mod, _, attr = self.scan.partition(":")
        scan: Callable[..., object] = getattr(importlib.import_module(mod), attr)
        return scan


class Recorder(NamedTuple):
    """A tool that records in git who wrote a commit or which of its lines (not whole sessions):
    git-ai's and qwen-code's notes, agents' commit trailers. What it records is shown beside
    hansard's answer (`recorded.by` names it), never decides one. Its notes ref (or the commit
    messages) is read, never written or fetched."""

    name: str  # as `recorded.by` names it in the why contract
    display: str
    notes_ref: str | None = None  # the notes ref it writes, if any
    reader: str | None = None  # "module:attr" of what reads it, loaded on first use
