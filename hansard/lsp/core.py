"""The language server's only door into hansard's core: its application (``hansard.app``), `why`
for a whole file (optionally from a buffer's text), the transcript window, the store's version
and the evidence sentence. Nothing else in ``hansard.lsp`` imports hansard's core packages
(only ``hansard.errors``), so when a core module moves only this file changes.

Always true: every function here is synchronous and may block (git, SQLite); the server calls
them off its message loop. A question is one request of the application (its own store
connection, the team's rows pulled when a team is configured and they are stale, closed once
its answer is handed on, when what it worked out is kept); the quick index runs on the
server's poller, never inside a question. Errors are ``hansard.errors.HansardError``
subclasses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from hansard.app.house import Hansard, Request


def application() -> Hansard:
    """The server's application: questions do not run the quick index (the poller does, on a
    request of its own, ``sync``), and pull teammates' sessions when a team is configured and
    they are stale."""
    from hansard.app.house import Hansard

    return Hansard(sync=False)


def sync(rq: Request) -> None:
    """The cheap incremental index: a stat walk of the agent homes, and an index run only when
    a transcript changed; skipped while another indexer runs or the store is read-only. ``rq``
    is the poller's own request, kept for the server's life."""
    rq.quick_index()


def store_version(rq: Request) -> int:
    """Changes whenever another connection committed to the store (a new index run, a
    `config map`). ``rq`` is kept for the server's life: the version is its connection's."""
    return rq.store.sessions.data_version()


def why_file(app: Hansard, path: str, contents: bytes | None) -> tuple[dict[str, Any], Callable[[], None]]:
    """The `why` JSON contract for every line of ``path`` (absolute), blamed from
    ``contents`` when given (an unsaved buffer: `hansard why --contents`), and the close of its
    request, which keeps what the answer worked out: the caller runs it, on this thread, once
    the answer is handed on."""
    import os

    rq = app.request()
    try:
        ans = rq.why_answer(os.path.basename(path), contents=contents, cwd=os.path.dirname(path))
    except BaseException:
        rq.close()
        raise
    rq.answered()
    return dict(ans), rq.close  # the server's own copy: it drops the lines' text


def conversation(app: Hansard, session_id: str, around: int | None, limit: int = 11) -> str:
    """`hansard show SESSION --around N --limit 11` as text (a teammate's session too)."""
    from hansard.answers.transcript import get_past_session
    from hansard.render.recall import transcript

    with app.request() as rq:
        if not rq.store.sessions.repo_path_of(session_id)[0]:
            rq.team()  # a teammate's session, pulled when the team's rows are stale
        return transcript(get_past_session(rq.store, session_id, around=around, limit=limit))


def _render():
    from hansard.render import answers as r

    return r


def evidence(line: Mapping[str, Any]) -> str:
    """The same evidence sentence `hansard why` prints."""
    return _render().why_evidence(line)


def provider_name(provider: str | None) -> str:
    names = getattr(_render(), "PROVIDER_NAMES", {})
    return names.get(provider or "", provider or "agent")


def private_folder(name: str) -> str:
    """A folder next to the store, readable by its owner only (conversation windows the
    editor opens as documents hold the same text the store does)."""
    import os

    from hansard.config import hansard_home

    folder = os.path.join(str(hansard_home()), name)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    return folder
