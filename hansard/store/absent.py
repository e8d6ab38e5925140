"""Facets of a store that keeps none of their data: the team store (PostgreSQL, or the offline
copy of `hansard team pull`) has no raw archive, no parsers' item sink, no caches and no link
state, because a push sends parsed, redacted sessions and everything else stays on each
machine. Each class here implements its protocol of :mod:`hansard.store.interfaces` as an empty
store would answer it: reads find nothing; a cache remembers nothing (as a busy store's best
effort does); a write is refused with ``StoreReadOnly``, since only `hansard team push` writes a
team store. :func:`keeps` tells a caller that may skip work when a facet keeps nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from hansard.errors import StoreReadOnly

if TYPE_CHECKING:
    from hansard.models import Item, RawRecord
    from hansard.store.interfaces import ItemWriter, Redactor
    from hansard.store.types import Row


class Absent:
    """Marks a facet whose store keeps none of its data."""

    what = "this store"

    def _refuse(self) -> StoreReadOnly:
        return StoreReadOnly(f"{self.what} is written by `hansard team push` only")


def keeps(facet: object) -> bool:
    """Does the store behind ``facet`` keep that facet's data (False: an :class:`Absent` one)?"""
    return not isinstance(facet, Absent)


# What a store with no team beside it says when asked for a team's sessions.
NO_TEAM = ("this store holds no team sessions (no team store is configured, or its server did not answer and"
           " there is no offline copy: `hansard team pull` keeps one)")


def no_shared_hits() -> tuple[list[dict[str, Any]], str | None]:
    """``SearchIndex.shared_hits`` of a store with no team's sessions beside its own."""
    return [], NO_TEAM


def _same(data: bytes) -> bytes:
    return data


class NoArchive(Absent):
    """No raw records: the archive stays on each member's machine."""

    def transaction(self) -> AbstractContextManager[None]:
        raise self._refuse()

    def savepoint(self) -> AbstractContextManager[None]:
        raise self._refuse()

    def index_lock(self, wait: bool = True, timeout: float = 600.0) -> AbstractContextManager[bool]:
        raise self._refuse()

    def building(self, name: str) -> bool:
        return False

    def index_running(self) -> bool:
        return False

    def bulk(self) -> AbstractContextManager[None]:
        return contextlib.nullcontext()

    def file_stats(self) -> dict[str, tuple[int | None, int | None, int | None]]:
        return {}

    def sources(self) -> Mapping[str, Row]:
        return {}

    def source(self, path: str) -> Row | None:
        return None

    def parser_state(self, source_id: int) -> dict[str, Any] | None:
        return None

    def add_source(self, path: str, provider: str | None) -> int:
        raise self._refuse()

    def note_foreign(self, path: str, source_id: int | None, inode: int, size: int, mtime_ns: int) -> None:
        raise self._refuse()

    def restart(self, source_id: int, provider: str) -> None:
        raise self._refuse()

    def mark_missing(self, path: str) -> None:
        raise self._refuse()

    def advance(self, source_id: int, *, offset: int, parser_state: dict[str, Any] | None, redactions: int,
                generation: int | None = None, stat: tuple[int, int, int] | None = None,
                head_hash: str | None = None) -> None:
        raise self._refuse()

    def rebuilt(self, source_id: int, *, parser_state: dict[str, Any] | None, redactions: int) -> None:
        raise self._refuse()

    def readable_sources(self) -> Sequence[Row]:
        return []

    def needs_rebuild(self) -> bool:
        return False

    def append(self, source_id: int, generation: int, rec: RawRecord) -> None:
        raise self._refuse()

    def packer(self) -> Callable[[bytes], bytes]:
        return _same

    def append_packed(self, source_id: int, generation: int, rows: Iterable[tuple[int, int, bytes]]) -> None:
        raise self._refuse()

    def unpacker(self) -> Callable[[bytes], bytes]:
        return _same

    def packed_records(self, source_id: int, generation: int) -> Iterator[tuple[int, bytes]]:
        return iter(())

    def records(self, source_id: int, generation: int, path: str) -> Iterator[RawRecord]:
        return iter(())

    def has_runs(self) -> bool:
        return False

    def record_run(self, run: Mapping[str, Any]) -> None:
        raise self._refuse()


def _no_ops(items: list[Item], redactor: Redactor) -> list[tuple[Any, ...]]:
    return []


class NoItems(Absent):
    """No item sink: sessions arrive whole from a push, never from the parsers."""

    def writer(self, source_id: int, provider: str, redactor: Redactor) -> ItemWriter:
        raise self._refuse()

    def preparer(self) -> Callable[[list[Item], Redactor], list[tuple[Any, ...]]]:
        return _no_ops

    def index_text(self) -> None:
        raise self._refuse()

    def clear_source(self, source_id: int) -> None:
        raise self._refuse()

    def clear_all(self) -> None:
        raise self._refuse()

    def rebuilding(self) -> AbstractContextManager[None]:
        raise self._refuse()

    def empty(self) -> bool:
        return True

    def drop_indexes(self) -> None:
        raise self._refuse()

    def restore_indexes(self) -> int:
        raise self._refuse()

    def message_index(self, provider: str, key: str) -> int | None:
        return None


class NoCommitDiffs(Absent):
    """No commit-diff cache: diffs come from the asking machine's git, and are never remembered."""

    def get(self, sha: str, path: str) -> tuple[str | None, list[Any] | None] | None:
        return None

    def get_many(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], list[Any] | None]:
        return {}

    def put_many(self, rows: Iterable[tuple[str, str, str | None, list[Any] | None]]) -> None:
        return None


class NoWhyCache(Absent):
    """No why-result cache (generation None): an answer with teammates' rows is never
    remembered, since their rows change without any generation of this machine changing."""

    def __init__(self, schema: int = 0) -> None:
        self._schema = schema

    def generation(self) -> int | None:
        return None

    def schema(self) -> int:
        return self._schema

    def get(self, key: str) -> bytes | None:
        return None

    def put(self, key: str, generation: int, document: bytes) -> None:
        return None


class NoStats(Absent):
    """No per-file summaries and no repository funnel: `hansard stats` runs on a local store."""

    def get_many(self, keys: Sequence[str], generation: int) -> dict[str, bytes]:
        return {}

    def put_many(self, rows: Iterable[tuple[str, str, str, bytes]], generation: int) -> int:
        return 0

    def cached_paths(self) -> list[tuple[str, str]]:
        return []

    def funnel(self, repo_id: int, *, since: str | None = None, until: str | None = None,
               paths: Sequence[str] = ()) -> dict[str, Any]:
        return {"sessions": 0, "tied_commits": [], "lines_added": 0, "lines_added_at": []}

    def models(self, pairs: Iterable[tuple[str, int]]) -> dict[tuple[str, int], str]:
        return {}


class NoCommitFacts(Absent):
    """No kept commit facts: ties are worked out per question from the shell calls (the link
    step keeps them only for one machine's own sessions)."""

    def state(self, repo_id: int) -> dict[str, Any] | None:
        return None

    def shell_key(self, repo_id: int, tools: Collection[str]) -> tuple[int, int]:
        return (0, 0)

    def shell_calls(self, repo_id: int, tools: Collection[str], after: int = 0
                    ) -> list[tuple[int, str, str | None, str | None, str | None]]:
        return []

    def prints(self, repo_id: int) -> list[tuple[str, float | None, str, str, str]]:
        return []

    def ties(self, repo_id: int, shas: Collection[str]) -> dict[str, set[str]]:
        return {}

    def patch_ids(self, shas: Collection[str]) -> dict[str, str | None]:
        return {}

    def save(self, repo_id: int, state: dict[str, Any], prints: Iterable[tuple[int, str, float | None, str, str, str]],
             ties: Iterable[tuple[str, str, str]], patch_ids: Iterable[tuple[str, str | None]], *,
             keep_prints: bool, wait_ms: int | None = None) -> bool:
        return False

    def generation(self) -> int | None:
        return None

    def set_generation(self, repo_id: int, wait_ms: int | None = None) -> None:
        return None

    def set_diffs_head(self, repo_id: int, head: str) -> None:
        return None

    def shell_write_state(self, repo_id: int) -> dict[str, Any] | None:
        return None

    def all_shell_key(self, repo_id: int, tools: Collection[str]) -> tuple[int, int]:
        return (0, 0)

    def all_shell_calls(self, repo_id: int, tools: Collection[str], after: int = 0
                        ) -> list[tuple[int, str | None, str | None]]:
        return []

    def shell_writes(self, repo_id: int, name: str) -> list[tuple[float, str, bool]]:
        return []

    def save_shell_writes(self, repo_id: int, upto: int, count: int, rows: Iterable[tuple[int, float, str, bool]], *,
                          replace: bool, wait_ms: int | None = None) -> bool:
        return False

    def forget(self, repo_ids: Sequence[int] | None = None) -> None:
        return None


class NoAudit(Absent):
    """No audit log: MCP calls are logged in the serving machine's store."""

    def record(self, *, at: str, tool: str, caller: str | None, outcome: str, error_code: str | None,
               duration_ms: float, result_count: int | None, query: str | None, wait_ms: int = 500) -> None:
        raise self._refuse()

    def recent(self, limit: int) -> list[dict[str, Any]]:
        return []


class NoSymbols(Absent):
    """No symbol cache: symbols are read from the asking machine's checkout."""

    def get(self, blob_id: str, lang: str, version: int) -> tuple[list[Any], list[Any], str | None] | None:
        return None

    def put(self, blob_id: str, lang: str, version: int, symbols: list[Any], imports: list[Any],
            reason: str | None) -> None:
        return None

    def prune(self, version: int) -> int:
        return 0


class NoOwnCommits(Absent):
    """No own-commit dating: the link step dates each machine's own edits before a push."""

    def undated_edits(self, providers: Sequence[str]) -> list[dict[str, Any]]:
        return []

    def named_commits(self, session_row: int) -> list[tuple[int, str]]:
        return []

    def set_edit_time(self, edit_id: int, timestamp: str) -> None:
        raise self._refuse()


class NoWebChats(Absent):
    """No web chats: they are never pushed (they belong to no repository)."""

    def any(self, providers: Sequence[str]) -> bool:
        return False

    def code_messages(self, providers: Sequence[str]) -> list[dict[str, Any]]:
        return []


class NoGitSources(Absent):
    """No sessions kept in git: each machine's index reads Entire's checkpoint refs itself."""

    def tips(self, repo_root: str) -> dict[str, str]:
        return {}

    def set_tips(self, repo_root: str, store: str, tips: str) -> None:
        raise self._refuse()

    def add_checkpoint_sessions(self, repo_root: str, pairs: Iterable[tuple[str, str]]) -> None:
        raise self._refuse()

    def checkpoint_sessions(self, repo_root: str, checkpoints: Collection[str] | None = None) -> dict[str, set[str]]:
        return {}

    def local_twins(self, session_ids: Collection[str]) -> dict[str, str]:
        return {}

    def key(self, repo_root: str) -> tuple[int, str]:
        return (0, "")

    def repos_of(self, repo_root: str) -> list[int]:
        return []

    def root_of(self, repo_id: int) -> str | None:
        return None
