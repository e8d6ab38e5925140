"""The application object: what every adapter (the CLI, the MCP server, the language server, the
web page) shares about a request's life, so that none of them repeats it.

``Hansard`` is one per process (the CLI) or per server; ``Hansard.request()`` is one request's
life: its own store connection, opened as the request needs it (writable, or readable on a
read-only disk too); the quick index, run once per request at most; a repository's registration
and its commit-facts upkeep; the team's rows pulled into the store when a team is configured
and they are stale; what its answers worked out that the store's caches can keep; and the store
closed.

Always true: caching is decided here and nowhere else (``Request.caching``): off when the store
cannot be written or the person asked for a fresh answer; so is a pull of the team's rows
(``Request.team``), skipped for a store that cannot be written. Answers only read; whatever is
written for a request (the index, registration, commit facts, the team's rows, cached answers,
summaries and diffs) is written by a ``Request`` method. Background work (the meaning-search vector builder, the MCP
server's index) is started by ``Hansard.later`` alone, at most one of each and none with
``HANSARD_NO_BACKGROUND``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import TracebackType
    from typing import Literal

    from hansard.answers.results import WhyAnswer
    from hansard.app.declare import Command
    from hansard.store.interfaces import Store

    Job = Literal["embed", "index"]


class Hansard:
    """The application: how its requests are answered. ``sync``: bring the store up to date
    with the agents' homes before answering (the quick index); ``cache``: read and keep cached
    answers; ``team``: read teammates' sessions when a team is configured."""

    __slots__ = ("sync", "cache", "team")

    def __init__(self, *, sync: bool = True, cache: bool = True, team: bool = True) -> None:
        self.sync = sync
        self.cache = cache
        self.team = team

    def request(self, *, write: bool = False) -> Request:
        """One request's life (a context manager). ``write``: the store must be writable (an
        index, an import, a setting); else a store that cannot be written is opened read-only
        and the request answers from what it holds."""
        from hansard.store import open_for_reading, open_store

        return Request(self, open_store() if write else open_for_reading())

    def later(self, job: Job, *, after: float = 0.0) -> bool:
        """Start background work: ``embed`` (the meaning-search vectors, a detached process) or
        ``index`` (an index run on a thread of this process, ``after`` seconds from now, for a
        server). At most one builder runs at a time (each takes its own lock); nothing starts
        with HANSARD_NO_BACKGROUND. Whether it was started."""
        if os.environ.get("HANSARD_NO_BACKGROUND"):
            return False
        if job == "embed":
            from hansard.app.jobs import start_embed

            return start_embed()
        import threading

        timer = threading.Timer(after, self._index_quietly)
        timer.daemon = True
        timer.name = "hansard-index"
        timer.start()
        return True

    def _index_quietly(self) -> None:
        from hansard.ingest.run import index

        try:
            with self.request(write=True) as rq:
                index(rq.store, wait=False)
        except Exception:  # a failed refresh must not take a server down
            pass

    def audit(self, row: dict[str, object]) -> None:
        """Keep one audit row (``AuditLog.record``'s keywords). An index run may hold the write
        lock for a while: the caller never waits for the row more than a moment; it is queued
        then and written once the lock is free (``close`` waits for the queue)."""
        from hansard.errors import HansardError

        try:
            with self.request(write=True) as rq:
                rq.store.audit.record(**row, wait_ms=500)  # type: ignore[arg-type]
        except Exception as exc:
            from hansard.store.errors import is_engine_error

            if not (isinstance(exc, HansardError) or is_engine_error(exc)):
                raise
            from hansard.app import audit_queue

            audit_queue.later(row)

    def close(self, timeout: float = 30.0) -> None:
        """Wait for the audit rows still queued (a server before it exits)."""
        from hansard.app import audit_queue

        audit_queue.flush(timeout)


class Request:
    """One request: its store (``store``, which every answer reads), its freshness (``sync``,
    ``upkeep``, and ``team``: the team's rows pulled) and whether what its answers work out is
    kept (``caching``). From its start to its ``close`` (or ``answered``) it listens for what its
    answers offer to keep (``hansard.store.kept``: commit diffs, symbols, answers, summaries),
    and at its close keeps it when it caches. Made and closed on one thread (an answer's own
    threads share its context)."""

    __slots__ = ("app", "store", "_synced", "_changed", "_team", "_kept", "_listening")

    def __init__(self, app: Hansard, store: Store) -> None:
        from hansard.store import kept

        self.app = app
        self.store = store
        self._synced: bool | None = None
        self._changed: bool | None = None
        self._team: bool | None = None
        self._kept, self._listening = kept.listen()
        if self.caching:
            self._kept.write_vectors = self._write_vectors

    def __enter__(self) -> Request:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def readonly(self) -> bool:
        return self.store.readonly

    @property
    def caching(self) -> bool:
        """Keep what this request's answers work out: the one place that says caching is off,
        for a read-only store or a fresh answer asked for (``--no-cache``, which also reads no
        cached answer)."""
        return self.app.cache and not self.store.readonly

    # -- freshness ---------------------------------------------------------------------------

    def sync(self) -> bool:
        """The quick index (a stat walk of the agents' homes; an index run only when a transcript
        changed), at most once in a request and only when the app syncs. True when it found
        something new to read."""
        if not self.app.sync or self._synced is not None:
            return False
        self._synced = self.quick_index()
        return self._synced

    def will_index(self) -> bool:
        """Whether this request's quick index is still to run and will find a transcript changed
        (its stat walk, done once: the quick index then takes its answer)."""
        if not self.app.sync or self._synced is not None:
            return False
        if self._changed is None:
            from hansard.agents import transcript_dirs
            from hansard.ingest.quickcheck import anything_changed

            self._changed = anything_changed(self.store, transcript_dirs())
        return self._changed

    def quick_index(self) -> bool:
        """The quick index now, whatever the app's ``sync`` (a server's poller runs it on a
        request of its own): skipped while another indexer runs or on a read-only store."""
        from hansard.ingest.quickcheck import quick_sync

        changed, self._changed = self._changed, None
        return quick_sync(self.store, changed)

    def fresh(self, where: str | None = None, *, team: bool = True) -> bool:
        """Bring the store up to date for a question: the quick index (once, when the app syncs);
        for a question about the repository holding ``where`` (a path inside it), that
        repository registered (its waiting sessions linked) and its commit facts kept current;
        and, for a question that reads teammates' rows (``team``), those pulled when stale. True
        when the quick index found something new."""
        new = self.sync()
        if where is not None:
            self.repository(where)
        if team:
            self.team()
        return new

    def repository(self, where: str) -> int:
        """The id of the repository holding ``where``, registered when new and its commit facts
        kept current; -1 outside a repository, or when the store cannot take it now (a read-only
        store, another index run holding it: the answer then says what it can)."""
        from hansard.git.identity import find_toplevel
        from hansard.link.repos import repo_for

        tops = find_toplevel(os.path.abspath(where))
        if tops is None:
            return -1
        repo_id = repo_for(self.store, tops[1])
        if repo_id >= 0:
            self.upkeep(tops[0], repo_id)
        return repo_id

    def upkeep(self, top: str, repo_id: int) -> object:
        """Keep the repository's commit facts current with its HEAD (waiting only a moment for
        a busy store; a read-only one keeps nothing and the answer works them out itself)."""
        from hansard.link.commits.kept import UPKEEP_WAIT_MS, refresh

        return refresh(self.store, top, repo_id, wait_ms=UPKEEP_WAIT_MS)

    # -- answers -------------------------------------------------------------------------------

    def ask(self, cmd: Command, /, **params: object) -> object:
        """The answer a command declares (``Command.answer``) to ``params``: the store brought up
        to date first when the command offers it (its ``sync`` option: the quick index, and the
        repository of its ``where`` parameter registered and its facts kept) and, unless it is
        ``local``, the team's rows pulled when stale; then the answer asked of the store, told
        whether it may read cached answers when it offers the ``cache`` option. What it works
        out is kept when the request ends (``keep``)."""
        from hansard.app.declare import resolve

        if cmd.answer is None:
            raise ValueError(f"{cmd.name} declares no answer")
        if "sync" in cmd.options:
            where = params.get(cmd.where) if cmd.where is not None else None
            self.fresh(where if isinstance(where, str) and where else os.getcwd() if cmd.where else None,
                       team=not cmd.local)
        elif not cmd.local:
            self.team()
        if "cache" in cmd.options:
            params["cache"] = self.app.cache
        answer: object = resolve(cmd.answer)(self.store, **params)
        return answer

    # -- why ---------------------------------------------------------------------------------

    def why(self, spec: str, *, rev: str | None = None, contents: bytes | None = None, cwd: str | None = None
            ) -> bytes:
        """`why`'s answer to ``PATH[:LINE[-END]]`` as its JSON document. After the quick index, an
        answer the cache holds is served as it is: its key holds HEAD (or ``rev``) and the store's
        generation, which is all the repository's kept facts depend on; only for a fresh answer is
        the repository registered and its facts kept first (``fresh``)."""
        from hansard.answers import why

        early = self._blame_early(spec, rev, contents, cwd)
        try:
            doc = self._cached_why(spec, rev, contents, cwd)
            if doc is not None:
                return doc
            return why.explain_json(self.store, spec, rev=rev, contents=contents, cwd=cwd, cache=self.app.cache)
        finally:
            why.drop_early(early)

    def why_answer(self, spec: str, *, rev: str | None = None, contents: bytes | None = None,
                   cwd: str | None = None) -> WhyAnswer:
        """``why`` as the answer itself (the web page and the language server read its lines)."""
        import json

        from hansard.answers import why

        early = self._blame_early(spec, rev, contents, cwd)
        try:
            doc = self._cached_why(spec, rev, contents, cwd)
            if doc is not None:
                cached: WhyAnswer = json.loads(doc)
                return cached
            return why.explain(self.store, spec, rev=rev, contents=contents, cwd=cwd, cache=self.app.cache)
        finally:
            why.drop_early(early)

    def _blame_early(self, spec: str, rev: str | None, contents: bytes | None, cwd: str | None
                     ) -> tuple[str, str] | None:
        """The blame of the working tree's file (or a buffer) started before the store is
        brought up to date (the quick index, the team's rows, the repository's upkeep), when a
        fresh answer may follow (``why.blame_early``): whatever the why-result cache holds now
        when the quick index is about to read a changed transcript (a new store generation,
        which no cached answer is kept under)."""
        if rev is not None:
            return None
        from hansard.answers import why

        return why.blame_early(self.store, spec, contents=contents, cwd=cwd,
                               cache=self.app.cache and not self.will_index())

    def _cached_why(self, spec: str, rev: str | None, contents: bytes | None, cwd: str | None) -> bytes | None:
        """The cached document after the quick index, or None, the repository then registered
        and its facts kept for the fresh answer to come."""
        from hansard.answers import why

        self.sync()
        self.team()
        if self.app.cache:
            doc = why.cached_json(self.store, spec, rev=rev, contents=contents, cwd=cwd)
            if doc is not None:
                return doc
        path = why.parse_target(spec)[0]
        self.repository(os.path.dirname(os.path.abspath(os.path.join(cwd or os.getcwd(), path))))
        return None

    # -- the team's rows -----------------------------------------------------------------------

    def team(self) -> bool:
        """The team's rows in the store brought up to date (``hansard.team.refresh``: a pull
        when they are stale; one stat and a read when no team is configured), once per request
        and only when the app reads the team. A pull writes, so a read-only store is not pulled
        into: it answers from the rows it holds, as a writable one does when the server does not
        answer. Whether the rows changed."""
        if self._team is not None or not self.app.team:
            return False
        if self.store.readonly:
            self._team = False
            return False
        from hansard.team import refresh

        self._team = refresh(self.store)
        return self._team

    def interrupt(self) -> None:
        """Stop what the request is running on another thread (a call past its deadline)."""
        self.store.interrupt()

    def embed(self, *, max_seconds: float | None = None) -> dict[str, int] | None:
        """Embed what is new for meaning search (`hansard embed`, which ``Hansard.later``
        starts): the passages, then the sessions' intent texts. None when another builder is at
        work; NotInstalled without the semantic extra."""
        from hansard.answers.search.intent import load_intent_encoder
        from hansard.answers.search.meaning import load_embedder
        from hansard.ingest import embed

        emb, why = load_embedder()
        if emb is None:
            from hansard.errors import NotInstalled

            raise NotInstalled(why or "no embedding model")
        fd = embed.take_embed_lock()
        if fd is None:
            return None
        try:
            counts = embed.build_vectors(self.store.search, emb, max_seconds=max_seconds)
            enc = load_intent_encoder()[0]
            if enc is not None:  # the sessions' intent texts, after every passage: a search uses both
                counts["intents"] = embed.build_intent_vectors(self.store.search, enc, max_seconds=max_seconds)["embedded"]
        finally:
            os.close(fd)
        return counts

    @staticmethod
    def _write_vectors(index: object, model: str) -> object | None:
        """The copy of a model's vectors beside the store, written for a search that found it
        missing or stale (None when it cannot be: a full or read-only disk)."""
        from hansard.ingest import vector_cache

        try:
            return vector_cache.refresh(index, model)
        except Exception:  # the search reads SQLite instead
            return None

    def keep(self) -> None:
        """Keep what this request's answers offered, when it caches (a busy store takes what it
        can; nothing an answer says depends on it)."""
        box = self._kept
        if not box or not self.caching:
            return
        store = self.store
        if box.diffs:
            store.commit_diffs.put_many([(sha, path, old, hunks) for (sha, path), (old, hunks) in box.diffs.items()])
        for (blob, lang, version), (syms, imps, reason) in box.symbols.items():
            store.symbols.put(blob, lang, version, syms, imps, reason)
        for key, (generation, document) in box.answers.items():
            store.why_cache.put(key, generation, document)
        for rows, generation in box.summaries:
            store.stats.put_many(rows, generation)
        box.clear()  # kept; the request listens on (a server's request may be asked again)

    def answered(self) -> None:
        """Its answers are done: it listens no more, and what they offered waits in the request
        to be kept at ``close`` (a server hands an answer on first, then closes the request)."""
        from hansard.store import kept

        if self._listening is not None:
            listening, self._listening = self._listening, None
            kept.stop(listening)

    def close(self) -> None:
        try:
            self.keep()
        finally:
            self.answered()
            self.store.close()
