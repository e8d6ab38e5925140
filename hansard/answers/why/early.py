"""The blame a `why` question needs, started before anything else is done for it.

A question about the working tree's file (or a buffer in its place) starts the whole file's
`git blame` and its log at HEAD here, before the store is brought up to date and before the
rules' modules are imported: git then works beside the quick index, the repository's upkeep, a
team pull and the imports, none of which changes what git says. Only the question's target is
read here; nothing is written, and a question that fails starts nothing (it fails as asked,
later, in ``hansard.answers.why.question``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hansard.answers.why.target import check_git_side_files, check_range, file_text, parse_target, resolve_target

if TYPE_CHECKING:
    from hansard.store.interfaces import Store


def blame_early(store: Store, spec: str, *, contents: bytes | None = None, cwd: str | None = None,
                cache: bool = True) -> tuple[str, str] | None:
    """The whole-file blame of the working tree's file (or of ``contents`` in its place) that
    ``spec`` names started now, and the file's log at HEAD, before the store is brought up to
    date: the quick index, the repository's upkeep and a team pull change what the store holds,
    never what git says, so git works beside them and the answer takes both (``start_blame``,
    ``FileHistory.prefetch``). Nothing is started when
    the why-result cache holds the file's answer already (with ``cache``; the store's generation
    only grows, so an answer it lacks now it lacks after), nor for a question that fails (it
    fails as asked, later). (top, path) of the blame started, for ``drop_early``; else None."""
    from hansard.errors import HansardError
    from hansard.git.blame import blame_ahead

    try:
        path = parse_target(spec)[0]
        t = resolve_target(path, None, None, cwd=cwd, check_exists=contents is None)
        data = file_text(t, None, contents)
        check_git_side_files(t.top)
        check_range(t, data)
        # With no answer remembered at this generation and HEAD (right after an index, or a
        # commit), none can be this file's: its key is not worked out (nor its modules loaded)
        # before blame starts.
        if cache and _may_be_remembered(store, t.top):
            from hansard.answers.why.cache import _cached
            from hansard.link.repos import known_repo

            got = _cached(store, t, None, contents, data, known_repo(store, t.main_top))
            if got is not None and got[2] is not None:
                return None
    except HansardError:
        return None
    from hansard.git.history import log_ahead

    blame_ahead(t.top, None, t.rel, contents)
    log_ahead(t.top, t.rel)  # the file's names, which the answer asks for first (``FileHistory.prefetch``)
    return t.top, t.rel


def _may_be_remembered(store: Store, top: str) -> bool:
    from hansard.answers.why.cache import key_prefix
    from hansard.git.refs import head_commit

    head = head_commit(top)
    return head is not None and store.why_cache.holds_current(key_prefix(head))


def drop_early(started: tuple[str, str] | None) -> None:
    """Stop what ``blame_early`` started if the answer did not take it."""
    if started is not None:
        from hansard.git.blame import drop_ahead
        from hansard.git.history import drop_log_ahead

        drop_ahead(started[0], None, started[1])
        drop_log_ahead(started[0], started[1])
