"""The store's protocols: what ingest, link and the answers may ask of a store.

A ``Store`` is a bundle of facets. Each facet is one concern with its own small protocol, and
answer code depends on behaviour, never on a connection or on SQL. Every method returns plain
Python values (dicts, tuples, lists, or mapping rows indexable by column name); no cursor or
connection ever leaves the store.

There is one implementation of each question: a teammate's sessions are rows of the same
tables (pulled from the team store, ids below zero: :class:`TeamRows`), so every question
answers them as it answers this machine's. A question that should not see them (a listing,
a search, what this machine indexed) says so in its own terms (``include_team``).
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
    from contextlib import AbstractContextManager

    from hansard.store.types import Row, TeamPull
    from hansard.values.models import Item, RawRecord


# --- archive: raw records, lossless, keyed by (source, generation, byte offset) ---
class Archive(Protocol):
    """The truth every derived row is read from: one source row per transcript file (its
    stat, the offset just past its last complete line, its generation, its parser state) and
    every record verbatim. Writes happen inside ``transaction()``, which also covers the item
    sink's writes: a file's records, items and new offset commit together or not at all."""

    def transaction(self) -> AbstractContextManager[None]: ...
    def savepoint(self) -> AbstractContextManager[None]:
        """Inside ``transaction()``: the block's writes are taken back alone if it raises."""
    def index_lock(self, wait: bool = True, timeout: float = 600.0) -> AbstractContextManager[bool]:
        """One indexer of this store at a time; yields False when ``wait`` is off and another holds it."""
    def complete(self) -> bool:
        """An index run has finished and every archived edit is linked (``building`` is then
        False for every name)."""
    def building(self, name: str) -> bool:
        """An index run elsewhere is still building what answers about files named ``name`` need."""
    def index_running(self) -> bool:
        """Another process holds the indexer lock now."""
    def bulk(self) -> AbstractContextManager[None]:
        """Settings for a run that writes much (an index, a reindex); restored after."""
    def file_stats(self) -> dict[str, tuple[int | None, int | None, int | None]]:
        """path -> (inode, size, mtime_ns) of every known source: the quick change check."""
    def sources(self) -> Mapping[str, Row]:
        """path -> id, path, provider, inode, size, mtime_ns, offset, generation, head_hash, missing."""
    def source(self, path: str) -> Row | None: ...
    def parser_state(self, source_id: int) -> dict[str, Any] | None: ...
    def add_source(self, path: str, provider: str | None) -> int: ...
    def note_foreign(self, path: str, source_id: int | None, inode: int, size: int, mtime_ns: int) -> None:
        """Remember the stat of a file that is not a transcript, so it is not sniffed again."""
    def restart(self, source_id: int, provider: str) -> None:
        """The source is read again from byte 0 (by ``provider``): present, no redactions yet."""
    def mark_missing(self, path: str) -> None: ...
    def advance(self, source_id: int, *, offset: int, parser_state: dict[str, Any] | None, redactions: int,
                generation: int | None = None, stat: tuple[int, int, int] | None = None,
                head_hash: str | None = None) -> None:
        """Records up to ``offset`` are archived and applied; with ``stat``, also the file's
        identity, generation and head hash. ``redactions`` adds to the source's count."""
    def rebuilt(self, source_id: int, *, parser_state: dict[str, Any] | None, redactions: int) -> None: ...
    def readable_sources(self) -> Sequence[Row]:
        """id, path, provider, generation, offset of every source a parser reads, in path order."""
    def needs_rebuild(self) -> bool:
        """Some source's derived rows predate secret redaction."""
    def rebuilt_all(self) -> None:
        """Every derived row was cleared and rebuilt: a source no parser read holds none, so
        none is marked as predating redaction any more."""
    def append(self, source_id: int, generation: int, rec: RawRecord) -> None: ...
    def packer(self) -> Callable[[bytes], bytes]:
        """How a record's bytes are stored, as a module-level function a worker process can run."""
    def append_packed(self, source_id: int, generation: int, rows: Iterable[tuple[int, int, bytes]]) -> None:
        """(offset, length, bytes packed by ``packer()``) of records, archived in one call."""
    def unpacker(self) -> Callable[[bytes], bytes]:
        """The inverse of ``packer()``, as a module-level function."""
    def packed_records(self, source_id: int, generation: int) -> Iterator[tuple[int, bytes]]:
        """(offset, packed bytes) of a source's records in order, for a reader that unpacks them elsewhere."""
    def records(self, source_id: int, generation: int, path: str) -> Iterator[RawRecord]: ...
    def has_runs(self) -> bool: ...
    def record_run(self, run: Mapping[str, Any]) -> None:
        """started_at, finished_at, files, records, bytes, skipped, sessions, messages, edits, kind, redactions."""


# --- item sink: parsed items of one source file written in one transaction ---
class Redactor(Protocol):
    """What withholds secrets from stored text (hansard.ingest.redact): each returns the
    cleaned value and how many secrets it withheld."""

    def redact(self, text: str) -> tuple[str, int]: ...
    def redact_lines(self, lines: Any, prefix: int = 0) -> tuple[list[str], int]: ...
    def redact_value(self, obj: Any) -> tuple[Any, int]: ...


class ItemWriter(Protocol):
    """Writes the items of one source inside the archive's transaction; a fact read twice is
    stored once."""

    counts: dict[str, int]  # messages, edits, tool_calls, skipped, redactions
    skip_reasons: dict[str, int]
    touched_sessions: set[int]

    def apply(self, items: list[Item], offset: int) -> None:
        """``write(prepare(items))`` and ``finish()``: the items read at ``offset``, written."""
    def write(self, ops: list[tuple[Any, ...]], offset: int) -> None:
        """Ops from the sink's ``preparer()``, read at ``offset``; call ``finish`` before commit."""
    def finish(self) -> None: ...


class ItemSink(Protocol):
    def writer(self, source_id: int, provider: str, redactor: Redactor) -> ItemWriter: ...
    def preparer(self) -> Callable[[list[Item], Redactor], list[tuple[Any, ...]]]:
        """The pure half of writing: items → redacted ops, as a module-level function a
        worker process can run (it depends on nothing but its arguments)."""
    def index_text(self) -> None:
        """Full-text indexes level with the rows written so far (call before commit)."""
    def clear_source(self, source_id: int) -> None:
        """Every derived row read from one source, gone; its sessions stay consistent."""
    def clear_all(self) -> None: ...
    def rebuilding(self) -> AbstractContextManager[None]:
        """Inside the caller's transaction, around writing every derived row again (after
        ``clear_all``): secondary indexes are built once over the finished tables on the way out."""
    def empty(self) -> bool:
        """No derived row has been written yet (a store before its first index)."""
    def drop_indexes(self) -> None:
        """Inside the caller's transaction: the non-unique indexes of the derived tables gone, for
        a run that fills them; ``restore_indexes`` builds them again."""
    def restore_indexes(self) -> int:
        """Inside the caller's transaction: every missing index of the derived tables built; how many."""
    def message_index(self, provider: str, key: str) -> int | None: ...


# --- evidence index: edits and their normalised line hashes, for why/code_history ---
class EvidenceIndex(Protocol):
    """What the archive says about who changed what: applied edits and their line hashes,
    and the session facts why, code_history and work_context tie to them. Rows are mappings
    indexable by column name."""

    def edit_lines(self, repo_id: int, hashes: Iterable[int], side: str = "+") -> Sequence[Row]:
        """One row per line of an applied edit in ``repo_id`` that added ('+') or removed ('-')
        one of ``hashes``: hash, exact, trivial, id, rel_path, timestamp, call_id, provider,
        user_modified, tool, session_id, message_index, and claimed_id (the id a session a
        repository carries claims: hansard.agents.origin; absent or None otherwise)."""
    def edit_lines_at(self, repo_id: int, hashes: Iterable[int], paths: Collection[str], side: str = "+", *,
                      others: bool = True) -> tuple[Sequence[Row], list[tuple[int, str | None, str | None]]]:
        """``edit_lines`` of the edits of ``paths`` only, and (hash, rel_path, timestamp) of
        the other edits' matching non-trivial lines, once per edit and hash (a trivial line is
        evidence only within its own file); without ``others``, none of the latter."""
    def read_lines_ahead(self, repo_id: int | None, hashes: Iterable[int] = (), side: str = "+") -> None:
        """What ``edit_lines_at`` reads of other edits for any of ``hashes`` (many files'
        lines), read now for the questions to come, which get the same rows; None drops it."""
    def lines_ahead_hold(self, repo_id: int, hashes: Collection[int], side: str = "+") -> bool:
        """Whether what ``read_lines_ahead`` read answers these hashes."""
    def removed_lines(self, edit_ids: Collection[int]) -> list[tuple[int, int]]:
        """(edit id, hash) of every non-trivial line these edits removed."""
    def edit_hashes(self, edit_id: int) -> tuple[set[int], set[int]]:
        """(added, removed) hashes of an edit's non-trivial lines."""
    def edit_content(self, edit_id: int) -> dict[str, Any] | None:
        """hunks (list), after_text (str or None), kind."""
    def has_applied_edits(self, repo_id: int, paths: Collection[str]) -> bool: ...
    def any_unlinked(self) -> bool:
        """Whether any applied edit is linked to no repository."""
    def unlinked_hashes(self, hashes: Iterable[int], basename: str) -> set[int]:
        """Hashes added by applied edits of a file with this name that no repository holds."""
    def added_anywhere(self, hashes: Iterable[int]) -> set[int]:
        """Hashes among ``hashes`` that any edit's line added, in any repository or none, applied
        or not: what an answer may look for among the edits at all."""
    def applied_edits(self, repo_id: int, paths: Collection[str]) -> Sequence[Row]:
        """Applied edits to these paths with their session's id, provider, title, first_prompt,
        started_at, last_at, parent_session_id, row (srow) and the edit's message_index."""
    def session_edits(self, session_row: int) -> Sequence[Row]:
        """id, rel_path, timestamp of a session's applied, linked edits."""
    def sessions_editing_repo(self, repo_id: int, except_row: int) -> list[int]: ...
    def repo_shell_calls(self, repo_id: int, tools: Collection[str], needle: str
                         ) -> list[tuple[str, str | None, str | None, str | None]]:
        """(session id, timestamp, input JSON, output) of calls to ``tools`` in sessions of
        ``repo_id`` whose input mentions ``needle``."""
    def repo_tool_inputs(self, repo_id: int, tools: Collection[str], needle: str) -> list[tuple[str | None, str | None]]:
        """(timestamp, input JSON) of calls to ``tools`` in the repository mentioning ``needle``."""
    def session_tool_calls(self, session_row: int, tools: Collection[str]) -> Sequence[Row]:
        """call_id, name, input, output, exit_code, status, timestamp, cwd, message_index, in order."""
    def steps(self, session_rows: Collection[int]) -> list[dict[str, Any]]:
        """call_id, snapshot, steps, timestamp of these sessions' step snapshots, in order."""
    def user_prompts(self, session_id: str) -> list[tuple[int, str]]:
        """(message_index, text) of every typed user prompt of the session, in order."""
    def session(self, session_id: str) -> Row | None: ...
    def session_at(self, session_row: int) -> Row | None: ...
    def top_sessions_in_repo(self, repo_id: int) -> Sequence[Row]: ...
    def sessions_resuming(self, session_id: str) -> Sequence[Row]: ...
    def sessions_summarised_by(self, session_id: str) -> Sequence[Row]: ...
    def sessions_summarising(self, session_row: int) -> Sequence[Row]: ...
    def compactions(self, session_row: int) -> int: ...
    def subagents(self, session_id: str) -> Sequence[Row]: ...
    def unread_delegations(self, session_ids: Collection[str], tools: Collection[str]) -> list[tuple[str, str]]:
        """(session id, timestamp) of calls starting a subagent whose transcript is not held."""
    def repo_unread_delegations(self, repo_id: int, tools: Collection[str], needle: str) -> list[tuple[str, str]]:
        """The same, of ``repo_id``'s sessions, whose input or output mentions ``needle``."""
    def repo_unread_delegation_texts(self, repo_id: int, tools: Collection[str]
                                     ) -> list[tuple[str, str, str | None, str | None]]:
        """(session id, timestamp, input, output) of those calls of ``repo_id``'s sessions, whatever
        they mention."""
    def session_sources(self) -> Sequence[Row]:
        """session_id, last_at, path, size of sessions whose transcript file is present."""


# --- commit-diff cache: one cache of what each commit added/removed per file ---
class CommitDiffCache(Protocol):
    """(sha, path) -> (old path, hunks as in ``edits.hunks``; None: withheld, the diff holds a
    secret and git gives it again). Filling it is best effort: a busy or read-only store does
    not remember, and never fails the caller."""

    def get(self, sha: str, path: str) -> tuple[str | None, list[Any] | None] | None: ...
    def get_many(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], list[Any] | None]: ...
    def put_many(self, rows: Iterable[tuple[str, str, str | None, list[Any] | None]]) -> None: ...


# --- why-result cache: whole `why` answers by a key naming everything they depend on ---
class WhyCache(Protocol):
    """Answers keyed by a hash of the revision, the file's bytes, the question and the store
    generation. Filling it is best effort, as for the commit-diff cache."""

    def generation(self) -> int | None:
        """A number that changes whenever indexed evidence may have changed (None: no cache)."""
    def schema(self) -> int:
        """The store's schema version."""
    def get(self, key: str) -> bytes | None:
        """The answer's JSON document remembered under ``key``."""
    def holds_current(self, prefix: str = "") -> bool:
        """Whether any answer is remembered at the store's generation now under a key starting
        with ``prefix`` (no such key can be found otherwise: each holds the generation it was
        computed at)."""
    def put(self, key: str, generation: int, document: bytes) -> None:
        """Remember an answer's JSON document computed at ``generation`` (not kept if the
        store has moved on since)."""


# --- stats: `hansard stats`' per-file summaries and a repository's funnel (hansard.answers.stats) ---
class RepoStats(Protocol):
    """Summaries of one file's why answer keyed by a hash of its path, blob id and rules version,
    kept for one store generation; and counts of what a repository's sessions did. Filling the
    cache is best effort, as for the why-result cache."""

    def get_many(self, keys: Sequence[str], generation: int) -> dict[str, bytes]:
        """key -> the summary's JSON remembered at ``generation``."""
    def put_many(self, rows: Iterable[tuple[str, str, str, bytes]], generation: int) -> int:
        """Remember (key, path, blob id, summary JSON) rows computed at ``generation``; how many."""
    def cached_paths(self) -> list[tuple[str, str]]:
        """(path, blob id) of every remembered summary."""
    def funnel(self, repo_id: int, *, since: str | None = None, until: str | None = None,
               paths: Sequence[str] = ()) -> dict[str, Any]:
        """sessions (count), tied_commits (ids), lines_added (by applied edits) of a repository, and
        lines_added_at: (edit's timestamp, lines) pairs."""
    def models(self, pairs: Iterable[tuple[str, int]]) -> dict[tuple[str, int], str]:
        """(session id, message index) -> the model its message names."""


# --- commit facts: which sessions made which commit, kept per repository (hansard.link.commits.kept) ---
class CommitFacts(Protocol):
    """Prints read from shell calls, their ties to HEAD's history, patch-ids, and the state
    (HEAD, shell calls read) they stand for. Only the link step writes."""

    def state(self, repo_id: int) -> dict[str, Any] | None:
        """head, calls_upto, calls, commits, seconds, computed_at, diffs_head, generation; None:
        nothing kept."""
    def shell_key(self, repo_id: int, tools: Collection[str], upto: int = 0) -> tuple[int, int, int]:
        """(highest row id, count, the count of those up to ``upto``) of the repository's shell
        calls that mention git, each counted once more when its result is in."""
    def shell_calls(self, repo_id: int, tools: Collection[str], after: int | None = None
                    ) -> list[tuple[int, str, str | None, str | None, str | None]]:
        """(row id, session id, timestamp, input JSON, output) of those calls past ``after`` (all
        when None)."""
    def prints(self, repo_id: int) -> list[tuple[str, float | None, str, str, str]]:
        """(session id, ts, kind, short, summary) of the kept prints."""
    def ties(self, repo_id: int, shas: Collection[str]) -> dict[str, set[str]]:
        """commit -> tied sessions, for the kept commits among ``shas``."""
    def patch_ids(self, shas: Collection[str]) -> dict[str, str | None]: ...
    def save(self, repo_id: int, state: dict[str, Any], prints: Iterable[tuple[int, str, float | None, str, str, str]],
             ties: Iterable[tuple[str, str, str]], patch_ids: Iterable[tuple[str, str | None]], *,
             keep_prints: bool, dropped: Collection[str] | None = None, wait_ms: int | None = None) -> bool:
        """Keep a refresh in one transaction (False: a busy or read-only store kept nothing);
        with ``dropped``, the ties given are added to the kept ones, those of the commits it
        names taken out, rather than put in the place of all."""
    def generation(self) -> int | None:
        """The store generation; while it stands, the shell calls need not be counted again."""
    def set_generation(self, repo_id: int, wait_ms: int | None = None) -> None: ...
    def restamp(self, generation: int) -> None:
        """The facts counted at ``generation`` stand at the store's generation now (a write
        since changed no shell call and no repository)."""
    def set_diffs_head(self, repo_id: int, head: str) -> None:
        """The index put the diffs of ``head``'s history in the commit-diff cache."""
    def shell_write_state(self, repo_id: int) -> dict[str, Any] | None:
        """calls_upto, calls, generation of the kept writing shell calls; None: none kept."""
    def all_shell_key(self, repo_id: int, tools: Collection[str]) -> tuple[int, int]:
        """(highest row id, count) of every shell call in the repository's sessions."""
    def all_shell_calls(self, repo_id: int, tools: Collection[str], after: int | None = None
                        ) -> list[tuple[int, str | None, str | None]]:
        """(row id, timestamp, input JSON) of every shell call past ``after`` (all when None)."""
    def shell_writes(self, repo_id: int, name: str) -> list[tuple[float, str, bool]]:
        """(ts, command, parsed) of the kept writing calls whose command mentions ``name``."""
    def save_shell_writes(self, repo_id: int, upto: int, count: int, rows: Iterable[tuple[int, float, str, bool]], *,
                          replace: bool, wait_ms: int | None = None) -> bool:
        """Keep writing calls (call row, ts, command, parsed) in one transaction (False: kept nothing)."""
    def forget(self, repo_ids: Sequence[int] | None = None) -> None: ...


# --- repositories: identities, path maps, session/edit resolution (the link stage) ---
class RepoRegistry(Protocol):
    """Repository rows, path maps and the link columns of sessions and edits. Only the link
    stage (hansard.link) writes through it."""

    def id_by_path(self, path: str) -> int | None: ...
    def id_by_identity(self, root_commit: str, remote: str | None) -> int | None:
        """This store's row of a repository, by identity: the key every other facet takes
        (a team store's rows are its own; a caller holding another store's row maps it through
        ``root_commit`` and this)."""
    def root_commit(self, repo_id: int) -> str | None:
        """The identity (root commit) of a repository row, None when unknown or unborn."""
    def register(self, root_commit: str | None, remote: str | None, path: str, key_fields: Collection[str] = (),
                 wait: bool = True) -> int:
        """A new repository; sessions known only by a project-root key (``sessions.extra``
        fields ``key_fields``) get another look.
        ``StoreReadOnly``/``StoreBusy`` when the store cannot be written now (without
        ``wait``: after a moment rather than the usual timeout)."""
    def path_of(self, repo_id: int | None) -> str | None: ...
    def paths(self) -> list[str]: ...
    def has_sessions(self, repo_id: int) -> bool:
        """Some archived session ran in this repository or edited a file of it."""
    def with_sessions(self, session_rows: Collection[int] | None = None) -> list[tuple[int, str]]:
        """(id, checkout path) of the repositories that some session ran in (with
        ``session_rows``: one of those sessions)."""
    def path_maps(self) -> list[tuple[str, str]]: ...
    def add_path_map(self, old: str, new: str) -> None: ...
    def unresolved_sessions(self, after: int | None = None) -> Sequence[Row]:
        """id, cwd, origin, origin_repo (hansard.agents.origin: NULL is this machine); with ``after``,
        of the sessions whose row id is larger."""
    def unresolved_edits(self) -> Sequence[Row]:
        """id, path, cwd (the edit's, else its session's), srow (its session's row), origin."""
    def session_paths(self, session_row: int) -> tuple[Sequence[Row], list[str]]:
        """(a session's edits: id, path, cwd; every working folder the session recorded)."""
    def session_repo(self, session_row: int) -> int | None: ...
    def ids_by_root(self, root_commit: str) -> list[tuple[int, str]]:
        """(id, checkout path) of the repositories with this root commit."""
    def unresolved_project_keys(self, provider: str, field: str) -> Sequence[Row]:
        """id, h: unlinked sessions with no cwd, only a key of their project root (extra[field])."""
    def session_cwds(self) -> list[str]: ...
    def set_session_cwd(self, session_row: int, cwd: str) -> None: ...
    def link_session(self, session_row: int, repo_id: int | None) -> None: ...
    def link_edits(self, links: list[tuple[int | None, str | None, int]]) -> None: ...


# --- session queries: lists, one session's messages, tool calls, steps, status ---
class SessionQueries(Protocol):
    def data_version(self) -> int:
        """A number that changes whenever another connection committed to the store."""
    def status(self) -> dict[str, Any]: ...
    def index_state(self) -> dict[str, Any]: ...
    def provider_counts(self) -> dict[str, dict[str, int]]:
        """Per provider: sessions, messages, applied edits."""
    def list(self, *, repo_ids: Sequence[int] | None = None, provider: str | None = None,
             since: str | None = None, limit: int = 20, exclude_providers: Sequence[str] = (),
             include_team: bool = False) -> list[dict[str, Any]]:
        """Sessions newest first, this machine's (and with ``include_team`` teammates', each with
        ``member`` and ``member_name``)."""
    def list_count(self, *, repo_ids: Sequence[int] | None = None, provider: str | None = None,
                   since: str | None = None, exclude_providers: Sequence[str] = (), include_team: bool = False) -> int:
        """How many sessions ``list`` with the same filters would give without its limit."""
    def find(self, ref: str) -> Any: ...
    def repo_path_of(self, ref: str) -> tuple[bool, str | None]: ...
    def repo_paths_of(self, ref: str) -> builtins.list[tuple[str, str | None]]:
        """(session id, its repository's path) of every session with this id, else of every
        one whose id starts with ``ref`` (4 characters at least), as ``find`` resolves it: a
        scope counts only its own repository's sessions among them."""
    def repo_path(self, repo_id: int | None) -> str | None: ...
    def repo_ids_at(self, paths: Sequence[str]) -> builtins.list[int]: ...
    def repo_ids_with_root(self, root_commit: str) -> builtins.list[int]: ...
    def repo_ids_named(self, name: str) -> builtins.list[int]: ...
    def subagents(self, session_id: str) -> builtins.list[str]: ...
    def indexes_before(self, sid: int, before: int, roles: Iterable[str] | None, limit: int) -> builtins.list[int]: ...
    def messages_from(self, sid: int, first: int, roles: Iterable[str] | None, limit: int) -> builtins.list[Any]: ...
    def message_heads(self, sid: int, prefix: int) -> builtins.list[Any]: ...
    def tool_calls_between(self, sid: int, lo: int, hi: int) -> builtins.list[Any]: ...
    def call_details(self, sid: int, call_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Each call's input, output and edits (with hunks), by call id: what `hansard show` renders."""
    def closing_message(self, session_id: str) -> tuple[int, str] | None:
        """(index, text) of the session's last text message from its agent, or None."""
    def last_edit_index(self, session_id: str) -> int | None:
        """The message index of the session's last applied edit, or None."""
    def redactions(self, session_ids: Sequence[str]) -> dict[str, int]:
        """Per session: the ``[REDACTED:<rule>]`` marks its messages and tool calls hold."""
    def records_between(self, source_id: int, generation: int, lo: int, hi: int) -> int: ...
    def raw_record(self, source_id: int, offset: int) -> str | None: ...


# --- search index: keyword (FTS5/tsvector), trigram, vectors ---
class SearchIndex(Protocol):
    def keyword_candidates(self, q: Any, f: Any, k: int) -> tuple[list[Any], int, bool]:
        """(ranked candidates, sessions matched, whether that count is exact)."""
    def recent_candidates(self, f: Any, k: int, per_session: int) -> list[Any]: ...
    def hit_rows(self, ids: Sequence[int]) -> dict[int, Any]: ...
    def file_sessions(self, forms: Iterable[str]) -> set[int]: ...
    def commit_sessions(self, sha: str) -> set[int]: ...
    def passing(self, ids: Sequence[int], f: Any) -> set[int]: ...
    def vector_mark(self, model: str) -> tuple[int | None, int]: ...
    def vector_pending(self, model: str) -> tuple[int, int]: ...
    def vector_stamp(self, model: str) -> tuple[str, str | None, int, int]: ...
    def vectors(self, model: str) -> tuple[list[tuple[int, int, int]], list[bytes]]:
        """Every embedded passage as (message id, start, end) and its float16 vector."""
    def snapshot(self) -> AbstractContextManager[None]:
        """The reads inside see one state of the store."""
    def passage_count(self) -> int: ...
    def vector_dim(self, model: str) -> int | None: ...
    def passage_keys(self) -> list[tuple[int, int, int, bytes]]:
        """Every embedded passage as (message id, start, end, text hash), by message id and start."""
    def passages_with_vectors(self, model: str) -> Iterator[tuple[int, int, int, bytes, bytes | None]]: ...
    def vectors_by_hash(self, model: str, hashes: Sequence[bytes]) -> dict[bytes, bytes]: ...
    def to_embed(self, model: str, max_chars: int, batch: int) -> list[tuple[int, str]]: ...
    def known_texts(self, model: str, hashes: Sequence[bytes]) -> set[bytes]: ...
    def add_vectors(self, model: str, vectors: Sequence[tuple[bytes, bytes]],
                    passages: Sequence[tuple[int, int, int, bytes]], through: int, at: str) -> None: ...
    def skip_vectors_to(self, model: str, at: str) -> None: ...
    def intent_to_embed(self, model: str, max_chars: int, batch: int) -> list[tuple[int, int, str]]: ...
    def add_intent_vectors(self, model: str, vectors: Sequence[tuple[bytes, bytes]],
                           texts: Sequence[tuple[int, int, bytes]], through: int, at: str) -> None: ...
    def intent_stamp(self, model: str) -> tuple[str, int, int]: ...
    def intent_vectors(self, model: str) -> tuple[list[tuple[int, int, int]], list[bytes]]:
        """Every intent text as (message id, session, embedded length) and its float16 vector."""
    def message_sessions(self, ids: Sequence[int]) -> dict[int, int]: ...


# --- audit log: one row per MCP call ---
class AuditLog(Protocol):
    def record(self, *, at: str, tool: str, caller: str | None, outcome: str, error_code: str | None,
               duration_ms: float, result_count: int | None, query: str | None, wait_ms: int = 500) -> None: ...
    def recent(self, limit: int) -> list[dict[str, Any]]: ...


# --- memory store: memory files (CLAUDE.md, AGENTS.md, ...) and their versions ---
class MemoryStore(Protocol):
    """The read-only mirror of memory files. Rows are dicts: id, memory_id, path, kind, source,
    scope, repo_id, root, rel_path, title, version_id, mtime_ns, size, missing, first_seen,
    last_seen. Only hansard.ingest.memory_files writes."""

    def transaction(self) -> AbstractContextManager[None]: ...
    def project_roots(self) -> list[tuple[str, int]]:
        """(path, repository row) of every repository with a known checkout path."""
    def project_of_folder(self, folder: str) -> tuple[int | None, str | None]:
        """(repository row, path) of a session read from a file under ``folder``."""
    def root_scanned_at(self, path: str) -> float | None: ...
    def mark_root_scanned(self, path: str, repo_id: int | None, at: float) -> None: ...
    def known(self) -> dict[str, dict[str, Any]]:
        """Every memory row by path."""
    def mark_missing(self, row_id: int) -> None: ...
    def set_scope(self, row_id: int, scope: str, repo_id: int | None) -> None: ...
    def save(self, row_id: int | None, *, memory_id: str, path: str, kind: str, source: str, scope: str,
             repo_id: int | None, root: str | None, rel_path: str | None, title: str, sha256: str, text: str,
             mtime_ns: int, size: int, at: str) -> bool:
        """The file's text as its current version; True when the row pointed at another."""
    def count(self) -> int:
        """Memory files present on disk at the last scan."""
    def current(self, q: Any, *, project: tuple[Sequence[int], str | None] | None = None,
                sources: Sequence[str] = (), include_team: bool = False) -> list[dict[str, Any]]:
        """Present memories (row + ``text``, ``repo_path``, ``relevance``: 1.0 = the best
        full-text match among all memory texts, 0.0 without terms) whose current text matches
        any term group of the parsed query ``q`` (all when it is empty); ``project`` =
        (repository rows, checkout root) keeps global, unkeyed and that project's memories;
        each of ``sources`` must be the provider or kind; ``include_team``: teammates' project
        memories too (``member``, ``member_name``; ids ``team-<n>``)."""
    def get(self, memory_id: str) -> dict[str, Any] | None: ...
    def versions(self, row_id: int) -> list[dict[str, Any]]:
        """id, sha256, seen_at, text, oldest first."""


# --- symbol cache: tree-sitter symbols by blob id ---
class SymbolCache(Protocol):
    """(blob id, language, analyzer version) -> (symbols, imports, reason) as JSON-able lists.
    Failures degrade to "no cache"."""

    def get(self, blob_id: str, lang: str, version: int) -> tuple[list[Any], list[Any], str | None] | None: ...
    def put(self, blob_id: str, lang: str, version: int, symbols: list[Any], imports: list[Any],
            reason: str | None) -> None: ...
    def prune(self, version: int) -> int:
        """Delete rows of other analyzer versions; returns how many."""


# --- own commits: agents that commit each edit themselves (the link step dates their edits) ---
class OwnCommits(Protocol):
    def undated_edits(self, providers: Sequence[str]) -> list[dict[str, Any]]:
        """Applied, repository-linked edits of ``providers`` still dated by their session's start:
        id, repo_id, session_row, message_index, in session order."""
    def named_commits(self, session_row: int) -> list[tuple[int, str]]:
        """(message_index, commit id as printed) of a session's calls naming a commit, in order."""
    def set_edit_time(self, edit_id: int, timestamp: str) -> None: ...


# --- web chats: assistant messages holding code, for the pasted rule ---
class WebChats(Protocol):
    def any(self, providers: Sequence[str]) -> bool: ...
    def code_messages(self, providers: Sequence[str]) -> list[dict[str, Any]]:
        """session_id, provider, message_index, timestamp, text of assistant messages with a
        code fence, oldest first."""


# --- git sources: sessions other tools keep in git (Entire checkpoint refs) ---
class GitSources(Protocol):
    """The refs each repository's stores were read at, and which sessions each Entire checkpoint
    kept. Only the scanner (hansard.ingest.git_sources) writes."""

    def tips(self, repo_root: str) -> dict[str, str]:
        """store -> the tips it was last read at."""
    def set_tips(self, repo_root: str, store: str, tips: str) -> None: ...
    def add_checkpoint_sessions(self, repo_root: str, pairs: Iterable[tuple[str, str]]) -> None:
        """Keep (checkpoint, session id) pairs of a repository."""
    def checkpoint_sessions(self, repo_root: str, checkpoints: Collection[str] | None = None) -> dict[str, set[str]]:
        """checkpoint -> the sessions it kept, for ``checkpoints`` (all when None)."""
    def local_twins(self, session_ids: Collection[str]) -> dict[str, str]:
        """session read from checkpoints -> this machine's session of the id it claims, where there is one."""
    def key(self, repo_root: str) -> tuple[int, str]:
        """(how many pairs, their newest store read) of a repository: changes when a checkpoint is read."""
    def repos_of(self, repo_root: str) -> list[int]: ...
    def root_of(self, repo_id: int) -> str | None: ...


# --- the team: what this store shares with it (a push) and holds from it (a pull) ---
class TeamRows(Protocol):
    """This machine's rows as a push reads them (ids above zero only), and the team's as a pull
    keeps them: rows of id below zero in the store's own tables, read by every other facet."""

    def repo_ids_with_root(self, root_commit: str) -> builtins.list[int]: ...
    def sessions_in(self, repo_ids: Sequence[int]) -> builtins.list[dict[str, Any]]:
        """This machine's sessions that ran in, or edited files of, these repositories."""
    def session_rows(self, session_row: int, repo_ids: Sequence[int]) -> dict[str, builtins.list[dict[str, Any]]]:
        """messages, tool_calls and edits (with their ``lines``) of one session of this machine's."""
    def memories_in(self, repo_ids: Sequence[int]) -> builtins.list[dict[str, Any]]:
        """This machine's present project memories of these repositories, with their text."""
    def state(self) -> dict[str, Any] | None:
        """team, url, member, machine, pulled_at, tried_at, error, and how many sessions and
        memories are held; None when nothing was ever pulled."""
    def wanted(self, seen: Mapping[int, tuple[str, str, str, str | None]]) -> builtins.list[int]:
        """Of the sessions the team shares now (team row -> session id, digest, member, member
        name), those a pull must fetch."""
    def apply(self, pull: TeamPull) -> dict[str, int]:
        """One pull kept, in one transaction; what was written and dropped."""
    def tried(self, *, team: str | None, url: str, member: str, machine: str, roots: Sequence[str], at: str,
              error: str) -> None:
        """A pull that failed: when and why (best effort)."""
    def forget(self) -> int:
        """Every row held from the team dropped; how many sessions went."""


# --- agent traces: Agent Trace records other tools wrote (hansard.trace.read) ---
class AgentTraces(Protocol):
    def put_many(self, items: Iterable[tuple[dict[str, Any], Sequence[tuple[Any, ...]], bytes, str | None]]
                 ) -> builtins.dict[str, int]:
        """Keep records (record, its ranges, its JSON, its file) in one transaction: how many
        were "added", "unchanged" and "replaced"."""
    def any(self) -> bool: ...
    def ranges_at(self, revisions: Collection[str]) -> list[dict[str, Any]]:
        """The ranges of records about ``revisions`` (newest record first)."""
    def record(self, record_id: str) -> bytes | None: ...
    def counts(self) -> tuple[int, int]: ...


class Store(Protocol):
    """A store's facets. They are read-only properties: an implementation may build each on first
    use (``functools.cached_property``), and a caller never replaces one."""

    @property
    def archive(self) -> Archive: ...
    @property
    def items(self) -> ItemSink: ...
    @property
    def evidence(self) -> EvidenceIndex: ...
    @property
    def commit_diffs(self) -> CommitDiffCache: ...
    @property
    def why_cache(self) -> WhyCache: ...
    @property
    def stats(self) -> RepoStats: ...
    @property
    def commit_facts(self) -> CommitFacts: ...
    @property
    def repos(self) -> RepoRegistry: ...
    @property
    def sessions(self) -> SessionQueries: ...
    @property
    def search(self) -> SearchIndex: ...
    @property
    def audit(self) -> AuditLog: ...
    @property
    def memories(self) -> MemoryStore: ...
    @property
    def symbols(self) -> SymbolCache: ...
    @property
    def own_commits(self) -> OwnCommits: ...
    @property
    def web_chats(self) -> WebChats: ...
    @property
    def git_sources(self) -> GitSources: ...
    @property
    def agent_traces(self) -> AgentTraces: ...
    @property
    def team(self) -> TeamRows: ...
    @property
    def readonly(self) -> bool: ...

    def interrupt(self) -> None:
        """Stop the statement running on another thread (a call past its deadline)."""
    def close(self) -> None: ...
