"""Value types that cross the store boundary: what a search is narrowed to
(:class:`SearchFilters`), a parsed query (:class:`Query`, :class:`Term`), what a row promises
(:class:`Row`), what a keyword look-up returns (:class:`Candidate`), what a pull from the team
brings (:class:`TeamPull`), and ``text_hash``, the key a text's vector is kept under.

They hold store terms (repository rows, session rows, stored-time text), never SQL; each
engine turns a ``SearchFilters`` into its own conditions.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # what unicode61 keeps as a token (roughly)

INTENT_CHARS = 1000  # of an intent text, embedded (the encoder reads 128 tokens at most)
MAX_EMBED_CHARS = 2000  # longest text one vector stands for


def text_hash(text: str) -> bytes:
    """The key a text's vector is kept under (``vectors.text_hash``): the same text embedded by
    the same model is embedded once, on this machine or a teammate's."""
    return hashlib.blake2b(text[:MAX_EMBED_CHARS].encode("utf-8", "surrogatepass"), digest_size=16).digest()


def intent_key(model: str) -> str:
    """The intent encoder's mark among the vector marks (``skip_vectors_to``), apart from any
    passage embedder's."""
    return "intent:" + model


class Row(Protocol):
    """A result row, indexable by column name: a ``sqlite3.Row``, a psycopg dict row, a dict.
    Only indexing and ``keys()`` are promised (``sqlite3.Row`` has no ``get``); ``dict(row)``
    makes a plain dict of any of them."""

    def __getitem__(self, key: str, /) -> Any: ...
    def keys(self) -> Iterable[str]: ...


@dataclass
class SearchFilters:
    """What a search is narrowed to, resolved to store terms (repository rows, session rows,
    tool names, stored-time bounds) by the answer code."""

    repo_ids: list[int] | None = None
    provider: str | None = None
    since: str | None = None                  # stored >= since (hansard.values.timebounds.since_text)
    until: str | None = None                  # stored < until (hansard.values.timebounds.until_text)
    roles: tuple[str, ...] | None = None
    tool_names: list[str] | None = None       # resolved `tool` filter (any of these names)
    shell_tools: list[str] = field(default_factory=list)  # the names of shell tools, for `command`
    command: str | None = None
    file_sessions: set[int] | None = None     # resolved `file` filter
    commit_sessions: set[int] | None = None   # resolved `commit` filter
    include_subagents: bool = False
    include_web_chats: bool = False
    include_team: bool = False                # teammates' sessions too (hansard team), else this machine's alone
    web_providers: list[str] = field(default_factory=list)  # left out unless include_web_chats
    exclude_session_ids: list[str] = field(default_factory=list)

    @property
    def impossible(self) -> bool:
        return (self.repo_ids == [] or self.file_sessions == set() or self.commit_sessions == set())


@dataclass
class Candidate:
    id: int                      # the message's row id
    bm25: float = 0.0            # negative; lower is better; 0 = unknown
    coverage: int = 0
    via: set[str] = field(default_factory=set)  # text | tool_input | trigram
    score: float = 0.0


# --- a parsed search query (hansard.answers.search.query.parse makes one) ---


@dataclass(frozen=True)
class Term:
    text: str               # as the user wrote it, trimmed
    phrase: bool = False    # came from quotes
    prefix: bool = False    # trailing *
    identifier: bool = False

    @property
    def words(self) -> list[str]:
        return _WORD.findall(self.text)

    def substring(self) -> str | None:
        """The term's longest stretch without ``%`` or ``_`` (wildcards of SQL's LIKE) of at
        least 3 characters (one trigram): what a substring index can look up, or None. Rows
        found through it still have to contain the whole term (:meth:`occurs_in`)."""
        pieces = [p for p in self.text.replace("%", "_").split("_") if len(p) >= 3]
        return max(pieces, key=len) if pieces else None

    def occurs_in(self, text: str) -> bool:
        return self.text.casefold() in text.casefold()


@dataclass
class Query:
    raw: str
    groups: list[list[Term]] = field(default_factory=list)  # AND of ORs
    exclude: list[Term] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)        # stopwords left out

    @property
    def empty(self) -> bool:
        return not self.groups

    def terms(self) -> list[Term]:
        return [t for g in self.groups for t in g]

    def identifiers(self) -> list[tuple[int, Term]]:
        """(group index, term) for every term worth a substring look-up."""
        return [(i, t) for i, g in enumerate(self.groups) for t in g if t.identifier and t.substring()]

    def highlight_words(self) -> list[str]:
        """Lower-cased words to mark in excerpts."""
        out: list[str] = []
        for t in self.terms():
            if t.identifier:
                out.append(t.text.casefold())
            out.extend(w.casefold() for w in t.words)
        return sorted(set(out), key=len, reverse=True)


@dataclass
class TeamPull:
    """What one pull from the team store brings, in the team store's terms (its row ids, which
    the store negates; its repositories by root commit), for ``TeamRows.apply``."""

    team: str | None                          # the team's name
    url: str                                  # the server (no password), member and machine the rows come from
    member: str
    machine: str
    at: str                                   # when (UTC)
    # Every session the team shares now: team row -> (session id, digest, member, member name).
    seen: dict[int, tuple[str, str, str, str | None]]
    # The sessions fetched (those ``TeamRows.wanted`` named) and their rows: sessions (with
    # root_commit, member, member_name), messages, tool_calls, edits, edit_lines, passages, repos.
    rows: dict[str, list[dict[str, Any]]]
    memories: list[dict[str, Any]]            # every project memory the team shares now (with root_commit, member)
    repos: dict[str, int]                     # root commit -> this store's repository row
    paths: dict[str, str]                     # root commit -> this member's checkout of it
