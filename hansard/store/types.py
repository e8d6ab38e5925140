"""Value types that cross the store boundary, the same for every engine: what a search is
narrowed to (:class:`SearchFilters`), a parsed query (:class:`Query`, :class:`Term`), what a
row promises (:class:`Row`) and what a keyword look-up returns (:class:`Candidate`); and
``split_at``, the rule by which the team store and the team view split edit lines by path for
``EvidenceIndex.edit_lines_at``.

They hold store terms (repository rows, session rows, stored-time text), never SQL; each
engine turns a ``SearchFilters`` into its own conditions.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # what unicode61 keeps as a token (roughly)

INTENT_CHARS = 1000  # of an intent text, embedded (the encoder reads 128 tokens at most)


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
    since: str | None = None                  # stored >= since (hansard.timebounds.since_text)
    until: str | None = None                  # stored < until (hansard.timebounds.until_text)
    roles: tuple[str, ...] | None = None
    tool_names: list[str] | None = None       # resolved `tool` filter (any of these names)
    shell_tools: list[str] = field(default_factory=list)  # the names of shell tools, for `command`
    command: str | None = None
    file_sessions: set[int] | None = None     # resolved `file` filter
    commit_sessions: set[int] | None = None   # resolved `commit` filter
    include_subagents: bool = False
    include_web_chats: bool = False
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


def split_at(lines: Iterable[dict[str, Any]], paths: Collection[str], *, others: bool = True
             ) -> tuple[list[dict[str, Any]], list[tuple[int, str | None, str | None]]]:
    """``edit_lines`` rows split as ``EvidenceIndex.edit_lines_at`` answers: the rows of the
    edits of ``paths``, and (hash, rel_path, timestamp) of the other edits' non-trivial lines,
    once per edit and hash (a trivial line is evidence only within its own file); without
    ``others``, none of the latter."""
    wanted = set(paths)
    rows: list[dict[str, Any]] = []
    elsewhere: list[tuple[int, str | None, str | None]] = []
    placed: set[tuple[int, int]] = set()
    for d in lines:
        if d["rel_path"] in wanted:
            rows.append(d)
        elif others and not d["trivial"] and (d["hash"], d["id"]) not in placed:
            placed.add((d["hash"], d["id"]))
            elsewhere.append((d["hash"], d["rel_path"], d["timestamp"]))
    return rows, elsewhere
