"""`why` as a question and its answer: the target read, git blame run beside what the answer
needs of the store, the engine's answer, pasted lines marked, the cache asked and filled.

Nothing here writes but the why-result cache (through its facet); the caller's ``sync`` and
``upkeep`` keep the store current.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from hansard.answers.why.cache import _cached, _with_contents, _without_contents
from hansard.answers.why.contract import redact_contents, render_contract, to_json
from hansard.answers.why.engine import Attributor, Prepared
from hansard.answers.why.target import (
    _file_lines,
    check_git_side_files,
    check_range,
    file_text,
    parse_target,
    resolve_target,
    run_blame,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from hansard.answers.why.line import LineAnswer
    from hansard.git.blame import Blame
    from hansard.store.interfaces import Store

# From this many lines, a question reaches most of the file's history: its diffs are read at once.
WHOLE_LINES = 100
# Lines either side of a question's range that are answered with it (then left out): the block
# around a line decides which of two edits that added the same text wrote it, as in the whole file.
RANGE_MARGIN = 10
SHORT_LINE_MARGIN = 60  # for a short line called a person's, whose commit's other lines decide


def explain(store: Store, spec: str, *, rev: str | None = None, contents: bytes | None = None,
            cwd: str | None = None, cache: bool = True, sync: Callable[[], bool] | None = None,
            upkeep: Callable[[str, int], object] | None = None) -> dict[str, Any]:
    """The `why` answer for ``PATH[:LINE[-END]]`` as the README's `hansard why --json` contract.
    With ``cache``, an answer already given for the same revision, bytes, question and store
    generation is served from the store's why-result cache (see ``_cached``). ``sync``, the
    caller's incremental index (True when it found something to read), runs while git blames;
    so does ``upkeep(top, repo_id)``, the caller's refresh of the repository's kept commit
    facts (``hansard.link.commit_facts.refresh``): without it, facts not kept are worked out
    for this answer alone."""
    doc, raw = _explain(store, spec, rev, contents, cwd, cache, sync, upkeep)
    if doc is None:
        import json

        doc = json.loads(raw)  # type: ignore[arg-type]
    return doc


def explain_json(store: Store, spec: str, *, rev: str | None = None, contents: bytes | None = None,
                 cwd: str | None = None, cache: bool = True, sync: Callable[[], bool] | None = None,
                 upkeep: Callable[[str, int], object] | None = None) -> bytes:
    """``explain``'s answer as the JSON document `hansard why --json` prints (UTF-8, compact,
    no final newline): from the cache as stored, without decoding it."""
    doc, raw = _explain(store, spec, rev, contents, cwd, cache, sync, upkeep)
    return raw if raw is not None else to_json(doc)  # type: ignore[arg-type]


def _explain(store: Store, spec: str, rev: str | None, contents: bytes | None, cwd: str | None, cache: bool,
             sync: Callable[[], bool] | None = None, upkeep: Callable[[str, int], object] | None = None
             ) -> tuple[dict[str, Any] | None, bytes | None]:
    """(answer, its JSON document): a cached answer as its document alone, a fresh one as the
    answer, with its document when it was cached. ``sync`` runs before anything read from the
    store is used: after a cache hit (served only if it found nothing new), or while git blames
    (blame reads git, never the store)."""
    from hansard.link.repos import repo_for

    path, start, end = parse_target(spec)
    t = resolve_target(path, start, end, cwd=cwd, check_exists=contents is None and rev is None)
    data = file_text(t, rev, contents)
    check_git_side_files(t.top)
    n = check_range(t, data)
    repo_id = repo_for(store, t.main_top)
    # An index elsewhere may still be adding what this file's answer needs (its first run, an
    # edit of it not linked yet, or this repository, which it could not register meanwhile):
    # the answer says so and is never cached.
    def still_building() -> bool:
        return store.archive.building(os.path.basename(t.rel)) or (repo_id == -1 and store.archive.index_running())

    building = still_building()
    cached = _cached(store, t, rev, contents, data, repo_id) if cache and not building else None
    if cached is not None and cached[2] is not None:
        if sync is None or not sync():
            return None, _with_contents(cached[2], data)
        return _explain(store, spec, rev, contents, cwd, cache, upkeep=upkeep)  # something new was read: look again
    asked = t  # a range is answered with the lines around it: locality decides between copies
    if t.start is not None:
        t = t._replace(start=max(1, t.start - RANGE_MARGIN), end=min(n, t.end + RANGE_MARGIN))
    blamed = _in_thread(run_blame, t, rev, contents)
    from hansard.answers.restored import FileHistory

    history = FileHistory(store, t.top, t.rel, rev, whole=t.start is None or t.end - t.start >= WHOLE_LINES)
    history.prefetch()  # the file's `git log` runs beside blame (and beside the sync and upkeep below)
    if sync is not None and sync():
        # New sessions were read while git blamed: the store's generation (the cache key) and
        # what is still being indexed are read again.
        building = still_building()
        cached = _cached(store, asked, rev, contents, data, repo_id) if cache and not building else None
    if upkeep is not None and repo_id >= 0 and not building:
        upkeep(t.top, repo_id)
    # While git blames (the other core): what the answer needs of the lines' own text and of
    # the file's history. Attributor checks that blame gave these very lines.
    failed = None
    try:
        texts = _file_lines(data)[:n][(t.start or 1) - 1:t.end]
        # the file's names in its history (its `git log` is quicker than blame)
        pre = Prepared(store, repo_id, texts, os.path.basename(t.rel), paths=history.names())
        history.prepare()
        if t.start is None:
            _ahead_of_blame(texts, likeness=bool(pre.edits))
    except Exception as exc:  # noqa: BLE001 - blame's own error, if any, is the one to report
        failed = exc
    bl = blamed()
    if failed is not None:
        raise failed
    answers = Attributor(store, t, repo_id, bl, rev, history, pre).answer()
    if asked.start is not None and any(pre.trivial[k] and a.rule == "no_session" and asked.start <= a.line <= asked.end
                                       for k, a in enumerate(answers)):
        # A short asked line called a person's may still be its commit's sessions', which only
        # that commit's other lines, further away, can tell: answered again with more around it.
        t = asked._replace(start=max(1, asked.start - SHORT_LINE_MARGIN), end=min(n, asked.end + SHORT_LINE_MARGIN))
        bl = run_blame(t, rev, contents)
        answers = Attributor(store, t, repo_id, bl, rev, history).answer()
    if any(a.kind == "human" for a in answers):
        from hansard.answers.pasted import mark_pasted

        def whole() -> tuple[Blame, list[LineAnswer]]:  # a range's neighbours decide a pasted run
            tw = t._replace(start=None, end=None)
            bw = run_blame(tw, rev, contents)
            history.whole = True
            return bw, Attributor(store, tw, repo_id, bw, rev, history).answer()

        # human lines copied from a web chat
        answers = mark_pasted(store, bl, answers, whole=None if t.start is None else whole)
    if asked.start is not None:
        answers = [a for a in answers if asked.start <= a.line <= asked.end]
    # Nothing to judge by: no session of this repository, nor (through a team) an edit of this file.
    no_sessions = (repo_id < 0 or not store.repos.has_sessions(repo_id)) \
        and not (repo_id >= 0 and store.evidence.has_applied_edits(repo_id, history.names()))
    if no_sessions:  # a line no session wrote may still be an agent's (fail closed)
        answers = [a.replace(kind="unknown", rule="no_sessions", confidence=0.0) if a.kind == "human" else a
                   for a in answers]
    from hansard.answers.why.recorded import annotate_all

    unread: dict[str, int] = {}
    answers = annotate_all(store, t.top, history, bl, answers, unread)  # what other tools recorded, beside hansard's evidence
    ans = render_contract(store, asked, rev, bl, answers)
    if unread:  # notes over the budget: counted, not read
        ans["records_unread"] = unread
    if no_sessions:
        from hansard.answers.notices import no_sessions as notice

        ans["notice"] = notice(store)
    if building:
        ans["indexing"] = True
    served = redact_contents(ans)
    stored = _without_contents(ans, served, data) if cached is not None else None
    ans = served
    if cached is None:
        return ans, None
    if stored is not None:
        cached[0].put(cached[1], cached[3], stored)
    return ans, to_json(ans)


def _ahead_of_blame(texts: list[str], *, likeness: bool) -> None:
    """For a whole file, work its answer does anyway, done while git blames (this thread would
    only wait; blame takes 100 ms and more on a file of a thousand lines): the file's lines are
    redacted (the redactor keeps the result by text, so the contract's redaction of the same
    lines finds it), and, with ``likeness`` (some edit added one of its lines: the rules will
    compare lines), the likeness module is imported."""
    from hansard.ingest.secret_screen import redact_lines

    redact_lines(texts)
    if likeness:
        import rapidfuzz.process  # noqa: F401 - (imported, so its first use on the answer's path is free)


def _in_thread(fn: Any, *args: Any) -> Any:
    """Start ``fn(*args)`` in a thread (in this context: an MCP call's git deadline reaches it);
    the function returned waits for it and gives its result or raises its error."""
    import contextvars
    import threading

    box: dict[str, Any] = {}
    ctx = contextvars.copy_context()

    def run() -> None:
        try:
            box["out"] = ctx.run(fn, *args)
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            box["err"] = exc

    th = threading.Thread(target=run, daemon=True)
    th.start()

    def result() -> Any:
        th.join()
        if "err" in box:
            raise box["err"]
        return box["out"]

    return result
