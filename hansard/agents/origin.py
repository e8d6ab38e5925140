"""Where a session's records were read (its provenance), told from its source's key alone, and
the key space of what a repository carries.

Kinds:

* ``local``: this machine recorded it (an agent home, or a file or folder given to `hansard
  index`);
* ``repository``: a repository's git refs keep it (Entire's checkpoint branch or refs): source
  keys ``git:<root commit>:<ref store>:<tool>/<session>``; ``repo`` is the root commit, ``ref``
  the store of refs read;
* ``repository_file``: a history file in a repository's work tree (SpecStory's
  ``.specstory/history/*.md``, Aider's history at the top): ``repo`` is the work tree's folder,
  ``ref`` the file's path in it;
* ``import``: an export given to `hansard import`; ``ref`` the file.

(A teammate's session, read from a team store, is ``member``: hansard.team says so.)

Always true of what a repository carries: anyone who can push to the repository wrote it, and
the ids inside it can be any (an id is no secret: trailers and URLs carry them). So the sessions,
messages, tool calls and edits read from such a source are keyed apart: every id the parser
gives is stored as ``<id>@<ns>``, where ``ns`` names the source (a repository's root commit, or
a work tree's folder), and can never meet an id of this machine's records or of another
repository's. The id a record claims stays readable as ``claimed``. Aider's histories are left
as their ids are: the reader makes them from the file's own path, so they are apart already.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

try:  # the C module directly: importing hashlib loads OpenSSL too, on `why`'s path
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - non-CPython
    from hashlib import blake2b

if TYPE_CHECKING:
    from hansard.agents.base import Parser, Provider
    from hansard.values.models import Item, RawRecord

LOCAL = "local"
REPOSITORY = "repository"
REPOSITORY_FILE = "repository_file"
IMPORT = "import"
MEMBER = "member"
CARRIED = (REPOSITORY, REPOSITORY_FILE)
SEP = "@"


class Origin(NamedTuple):
    kind: str
    repo: str | None = None
    ref: str | None = None
    ns: str | None = None  # the key space of the source's ids (see the module docstring)

    @property
    def carried(self) -> bool:
        """Read from what a repository carries: its ids are keyed apart, its records belong to
        that repository alone."""
        return self.kind in CARRIED


def of_source(path: str, provider: str | None = None) -> Origin:
    """The origin of the source archived under ``path`` (read by ``provider``)."""
    from hansard import agents

    if path.startswith("git:"):
        bits = path.split(":", 3)
        if len(bits) == 4 and bits[1]:
            return Origin(REPOSITORY, bits[1], bits[2], bits[1][:12])
    agent = agents.by_name(provider)
    if agent is not None and agent.web:
        return Origin(IMPORT, None, path)
    if "://" in path:
        return Origin(LOCAL)
    folder, name = os.path.split(path)
    for d in agents.repo_dirs():
        tail = os.sep + d.replace("/", os.sep)
        if folder.endswith(tail) and name.endswith(".md"):
            top = folder[: -len(tail)]
            return Origin(REPOSITORY_FILE, top, f"{d}/{name}", _folder_ns(top))
    if name in agents.repo_files() and os.path.exists(os.path.join(folder, ".git")):
        return Origin(REPOSITORY_FILE, folder, name)
    return Origin(LOCAL)


def _folder_ns(folder: str) -> str:
    return "f" + blake2b(folder.encode("utf-8", "surrogateescape"), digest_size=5).hexdigest()


def keyed(ident: str, ns: str | None) -> str:
    return f"{ident}{SEP}{ns}" if ns else ident


def claimed(ident: str, ns: str | None) -> str:
    """The id a carried record claims, from the id it is stored under."""
    tail = f"{SEP}{ns}" if ns else ""
    return ident[: -len(tail)] if tail and ident.endswith(tail) else ident


def source_of(row: Any) -> dict[str, Any]:
    """A session's provenance as answers show it (the why contract's ``sessions[id].source``),
    from a sessions row (a mapping with the origin columns; a team row names its ``member``):
    ``{"kind": "local"}``; ``{"kind": "repository", "repository": <root commit>, "ref":
    <refs read>, "claimed_id"}``; ``{"kind": "repository_file", "work_tree", "path",
    "claimed_id"}``; ``{"kind": "import", "path"}``; ``{"kind": "member", "member",
    "member_name", "origin": <the member's own source of it>}``."""
    keys = row.keys()

    def get(k: str) -> Any:
        return row[k] if k in keys else None

    kind = get("origin") or LOCAL
    if kind == REPOSITORY:
        src: dict[str, Any] = {"kind": kind, "repository": get("origin_repo") or get("root_commit"),
                               "ref": get("origin_ref")}
    elif kind == REPOSITORY_FILE:
        src = {"kind": kind, "work_tree": get("origin_repo"), "path": get("origin_ref")}
    elif kind == IMPORT:
        src = {"kind": kind, "path": get("origin_ref")}
    else:
        src = {"kind": LOCAL}
    if kind in CARRIED and get("claimed_id"):
        src["claimed_id"] = get("claimed_id")
    if get("member"):
        return {"kind": MEMBER, "member": get("member"), "member_name": get("member_name"), "origin": src}
    return src


def parser_for(provider: Provider, path: str, state: dict[str, Any] | None = None) -> Parser:
    """``provider``'s parser for the source at ``path``, its ids keyed apart when the source is
    carried by a repository."""
    parser = provider.new_parser(path, state)
    ns = of_source(path, provider.name).ns
    return Namespaced(parser, ns) if ns else parser


class Namespaced:
    """A parser whose items' ids (sessions, messages, tool calls, the sessions they name as
    parent or resumed, the leaves a title names) are stored under ``ns``."""

    def __init__(self, parser: Parser, ns: str) -> None:
        self.parser = parser
        self.ns = ns

    def feed(self, record: RawRecord) -> list[Item]:
        return [self._keyed(it) for it in self.parser.feed(record)]

    def finish(self) -> list[Item]:
        return [self._keyed(it) for it in self.parser.finish()]

    def state(self) -> dict[str, Any]:
        return self.parser.state()

    def _keyed(self, it: Item) -> Item:
        cls = type(it)
        names = _NAMES.get(cls)
        if names is None:
            from dataclasses import fields

            names = _NAMES[cls] = tuple(f.name for f in fields(it) if f.name in _ID_FIELDS)
        values = it.__dict__
        changes = {n: keyed(v, self.ns) for n in names if isinstance(v := values[n], str) and v}
        if not changes:
            return it
        # A copy with the ids changed: the items are frozen values, and their __init__ (what
        # dataclasses.replace calls) would cost as much again as the parsing.
        new = object.__new__(cls)
        new.__dict__.update(values, **changes)
        return new


# Per item class, its fields that are ids (filled on first use).
_NAMES: dict[type, tuple[str, ...]] = {}
# Every item field that holds an id of the source's own (never a path, a text or a time).
_ID_FIELDS = frozenset({"session_id", "key", "call_id", "message_key", "parent_session_id", "resumed_from",
                        "spawn_call_id", "leaf_uuid"})
