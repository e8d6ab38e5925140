"""`why` as a question and its answer: the target read, git blame run beside what the answer
needs of the store, the engine's answer, pasted lines marked, the cache asked.

Always true: a line's answer is a function of its file's evidence, never of the question. Every
question about a file (a line, a range, the whole file) is answered from the one whole-file
answer of that file at that revision and those bytes, then sliced: one blame of the whole file
(the same copy and move detection), the same candidate edits, names, commit facts and runs of
lines. A line asked after its file, or a file after one of its lines, is served from the same
cached whole-file answer.

Nothing here writes: a fresh answer is offered to the request that asked it, which keeps it in
the why-result cache when it caches (``hansard.store.kept``); the application brings the store
up to date (the quick index, the repository registered, its commit facts kept) before it asks
(``hansard.app.house.Request.why``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, cast

from hansard.answers.why.cache import _cached, _doc_with_contents, _with_contents, _without_contents
from hansard.answers.why.contract import redact_contents, render_contract, slice_contract, to_json
from hansard.answers.why.engine import Attributor, Prepared
from hansard.answers.why.target import (
    _file_lines,
    check_git_side_files,
    check_range,
    file_text,
    parse_target,
    resolve_target,
    start_blame,
)

if TYPE_CHECKING:
    from typing import Any

    from hansard.answers.restored import FileHistory
    from hansard.answers.results import WhyAnswer
    from hansard.answers.why.bases import ParentsAhead
    from hansard.answers.why.target import Target
    from hansard.git.history import LogEntry
    from hansard.git.run import Pending
    from hansard.store.interfaces import Store


def explain(store: Store, spec: str, *, rev: str | None = None, contents: bytes | None = None,
            cwd: str | None = None, cache: bool = True) -> WhyAnswer:
    """The `why` answer for ``PATH[:LINE[-END]]`` as the README's `hansard why --json` contract.
    A line or a range is cut from the whole file's answer. With ``cache`` (the application's
    choice), the file's answer already given for the same revision, bytes and store generation
    is served from the store's why-result cache (see ``_cached``), whichever of its lines were
    asked then, and a fresh one is offered to the request to keep. Commit facts the store does
    not keep yet are worked out for this answer alone."""
    doc, _ = _explain(store, spec, rev, contents, cwd, cache, as_doc=True)
    return cast("WhyAnswer", doc)


def explain_json(store: Store, spec: str, *, rev: str | None = None, contents: bytes | None = None,
                 cwd: str | None = None, cache: bool = True) -> bytes:
    """``explain``'s answer as the JSON document `hansard why --json` prints (UTF-8, compact,
    no final newline): from the cache as stored, without decoding it."""
    doc, raw = _explain(store, spec, rev, contents, cwd, cache)
    return raw if raw is not None else to_json(doc)  # type: ignore[arg-type]


def cached_json(store: Store, spec: str, *, rev: str | None = None, contents: bytes | None = None,
                cwd: str | None = None) -> bytes | None:
    """The document the why-result cache holds for this question (as ``explain_json`` gives it),
    or None when it holds none: what the application serves before anything else is done."""
    doc, raw = _explain(store, spec, rev, contents, cwd, True, only_cached=True)
    return raw if raw is not None else to_json(doc) if doc is not None else None


def _explain(store: Store, spec: str, rev: str | None, contents: bytes | None, cwd: str | None, cache: bool,
             only_cached: bool = False, as_doc: bool = False) -> tuple[dict[str, Any] | None, bytes | None]:
    """(answer, its JSON document): a cached answer as its document alone (``as_doc``: as the
    answer alone), a fresh one as the answer, with its document when it can be cached (but for
    ``as_doc``); ``only_cached``: (None, None) rather than a fresh answer. A line or a range is
    the whole file's answer sliced (``slice_contract``), never a document of its own."""
    path, start, end = parse_target(spec)
    t = resolve_target(path, start, end, cwd=cwd, check_exists=contents is None and rev is None)
    data = file_text(t, rev, contents)
    check_git_side_files(t.top)
    check_range(t, data)
    doc, raw = _whole(store, t._replace(start=None, end=None), rev, contents, data, cache, only_cached,
                      as_doc=as_doc or t.start is not None)
    if t.start is None or (doc is None and raw is None):
        return doc, raw
    if doc is None:
        import json

        doc = json.loads(raw)  # type: ignore[arg-type]
    return slice_contract(doc, t.start, t.end), None


def _whole(store: Store, t: Target, rev: str | None, contents: bytes | None, data: bytes, cache: bool,
           only_cached: bool = False, as_doc: bool = False) -> tuple[dict[str, Any] | None, bytes | None]:
    """The whole file's answer, as ``_explain`` gives it."""
    from hansard.answers.why.together import once
    from hansard.link.repos import known_repo

    n = check_range(t, data)
    repo_id: int = once(("repo", id(store), t.main_top), lambda: known_repo(store, t.main_top))
    # An index elsewhere may still be adding what this file's answer needs (its first run, an
    # edit of it not linked yet, or this repository, which it could not register meanwhile):
    # the answer says so and is never cached.
    def still_building() -> bool:
        if repo_id != -1 and once(("complete", id(store)), store.archive.complete):
            return False  # no file's edit is waiting to be linked
        return store.archive.building(os.path.basename(t.rel)) or (repo_id == -1 and store.archive.index_running())

    building = still_building()
    cached = _cached(store, t, rev, contents, data, repo_id) if cache and not building else None
    if cached is not None and cached[2] is not None:
        if as_doc:  # the answer itself: decoded once, each line's text put back in place
            return _doc_with_contents(cached[2], data), None
        return None, _with_contents(cached[2], data)
    if only_cached:
        return None, None
    blamed = start_blame(t, rev, contents)  # in its own process, beside what follows
    from hansard.answers.restored import FileHistory
    from hansard.git.history import take_deletions

    history = FileHistory(store, t.top, t.rel, rev)
    history.prefetch()  # the file's `git log` runs beside blame
    # While git blames (the other core): what the answer needs of the lines' own text and of
    # the file's history. Attributor checks that blame gave these very lines.
    failed = None
    parents = None
    deletions = None
    try:
        texts = _file_lines(data)[:n]
        _imports_ahead(len(texts))  # (while the file's `git log` runs: they need nothing of it)
        # the file's names in its history (its `git log` is quicker than blame)
        pre = Prepared(store, repo_id, texts, os.path.basename(t.rel), paths=history.names())
        history.know(texts, pre.hashes, pre.trivial)
        history.prepare()
        _removals_ahead(pre, history)  # git reads the versions beside what follows
        parents = _parents_ahead(t.top, pre, history)
        deletions = _deletions_ahead(t.top, pre, history)
        _ahead_of_blame(texts, likeness=bool(pre.edits))
        history.read_ahead()
        if parents is not None:
            parents.hash_while(blamed.process())
    except Exception as exc:  # blame's own error, if any, is the one to report
        failed = exc
        history.stop()
        if parents is not None:
            parents.stop()
    try:
        bl = blamed.result()
    finally:
        take_deletions(t.top, deletions)  # (read or stopped: a question that fails leaves none running)
    if failed is not None:
        raise failed
    try:
        attributor = Attributor(store, t, repo_id, bl, rev, history, pre, parents)
    except BaseException:
        if parents is not None:  # (its answer stops it, once there is one)
            parents.stop()
        raise
    answers = attributor.answer()
    if any(a.kind == "human" for a in answers):
        from hansard.answers.pasted import mark_pasted

        answers = mark_pasted(store, bl, answers)  # human lines copied from a web chat
    # Nothing to judge by: no session of this repository, nor (through a team) an edit of this file.
    no_sessions = (repo_id < 0 or not store.repos.has_sessions(repo_id)) \
        and not (repo_id >= 0 and store.evidence.has_applied_edits(repo_id, history.names()))
    if no_sessions:  # a line no session wrote may still be an agent's (fail closed)
        answers = [a.replace(kind="unknown", rule="no_sessions", confidence=0.0) if a.kind == "human" else a
                   for a in answers]
    from hansard.answers.why.recorded import annotate_all

    unread: dict[str, int] = {}
    answers = annotate_all(store, t.top, history, bl, answers, unread)  # what other tools recorded, beside hansard's evidence
    ans = render_contract(store, t, rev, bl, answers)
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
        from hansard.store import kept

        kept.offer_answer(cached[1], cached[3], stored)
    return ans, None if as_doc else to_json(ans)  # asked as the answer itself: no document wanted


def _removals_ahead(pre: Prepared, history: FileHistory) -> None:
    """While git blames: the versions of the file that may show a line's edit removed since
    (``FileHistory.prefetch_removals``), for each of the file's lines an edit of one of its
    names added, from the oldest such edit on, before the commit blame most often names (the
    newest that added the line). Whatever the answer then asks that this did not read, it reads
    after blame, as it would have without this."""
    from hansard.answers.why.together import many_files

    if many_files() or not pre.edits:
        return
    names = history.names()
    oldest: dict[int, float] = {}
    for h, trivial in zip(pre.hashes, pre.trivial, strict=True):
        if trivial or h in oldest:
            continue
        ts = [e.ts for eid in pre.by_hash.get(h, ()) if (e := pre.edits[eid]).rel_path in names]
        if ts:
            oldest[h] = min(ts)
    if oldest:
        history.prefetch_removals_ahead(oldest)


def _parents_ahead(top: str, pre: Prepared, history: FileHistory) -> ParentsAhead | None:
    """While git blames: the file's versions at the parents of the commits that added a line
    some edit of one of its names added (``FileHistory.parent_versions``), read by git beside
    what follows, for the rules' look at each blamed commit's parent (``Bases``). None when no
    edit added one of its lines, or files are answered in turn (the next file's blame runs
    beside: read when a line needs them)."""
    from hansard.answers.why.together import many_files

    if many_files() or not pre.edits:
        return None
    names = history.names()
    edits, by_hash = pre.edits, pre.by_hash
    asked = {h for h, trivial in zip(pre.hashes, pre.trivial, strict=True)
             if not trivial and any(edits[eid].rel_path in names for eid in by_hash.get(h, ()))}
    def named(commits: list[LogEntry]) -> list[str]:
        return list(dict.fromkeys(f"{c.parents[0]}:{c.old_path or c.path}" for c in commits if c.parents))

    revs = named(history.adders(asked)) if asked else []
    if not revs:
        return None
    from hansard.answers.why.bases import ParentsAhead

    return ParentsAhead(top, revs, hashed=history.texts[0], likely=len(named(history.adders(asked, older=False))))


def _deletions_ahead(top: str, pre: Prepared, history: FileHistory) -> tuple[list[str], Pending] | None:
    """While git blames: the paths deleted by each commit of the history that added one of the
    file's lines an edit of another path added (``Attributor._moved_sources`` asks it of the
    commits blame names for such lines: one of these but where blame finds a line elsewhere),
    asked of git beside what follows; ``take_deletions`` keeps the answer once blame ends."""
    from hansard.answers.why.together import many_files

    if many_files() or not pre.placed:
        return None
    own = history.own_names()
    asked = {h for h, trivial in zip(pre.hashes, pre.trivial, strict=True)
             if not trivial and any(p is not None and p not in own for p in pre.placed.get(h, ()))}
    if not asked:
        return None
    from hansard.git.history import start_deletions

    return start_deletions(top, [c.sha for c in history.adders(asked)])


def _ahead_of_blame(texts: list[str], *, likeness: bool) -> None:
    """Work the answer does anyway, done while git blames (this thread would
    only wait, and blame is the longest step of a large file's answer): the file's lines are
    redacted (the redactor keeps the result by text, so the contract's redaction of the same
    lines finds it), and, with ``likeness`` (some edit added one of its lines: the rules will
    compare lines), the likeness module is imported."""
    from hansard.answers.why.together import many_files
    from hansard.ingest.secret_screen import redact_lines

    redact_lines(texts)
    if likeness and not many_files():  # files answered in turn have no blame to wait for: imported when used
        import rapidfuzz.process  # noqa: F401 - (imported, so its first use on the answer's path is free)


def _imports_ahead(lines: int) -> None:
    """The modules every fresh answer uses after blame, imported while git blames: the rules'
    own, the other tools' records, the prompts' reader and the contract's JSON encoder for a
    file of ``lines`` lines (files answered in turn have no blame to wait for: imported when
    used)."""
    from hansard.answers.why.together import many_files

    if many_files():
        return
    import hansard.agents.trailers.coauthors  # noqa: F401 - (imported, so their first use on the answer's path is free)
    import hansard.answers.asked  # noqa: F401
    import hansard.answers.pasted  # noqa: F401
    import hansard.answers.why.bases  # noqa: F401
    import hansard.answers.why.commits  # noqa: F401
    import hansard.answers.why.recorded  # noqa: F401
    import hansard.recorders.qwen_code  # noqa: F401
    import hansard.trace  # noqa: F401
    from hansard.answers.why.contract import ORJSON_LINES

    if lines >= ORJSON_LINES:
        import orjson  # noqa: F401
