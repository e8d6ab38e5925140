"""Has anything changed since the last scan? Answered with os.walk and os.stat only.

`hansard why` runs this before every answer: when nothing changed (the common case) it costs
a directory walk and no import of the scanner, the providers or orjson.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hansard.store.interfaces import Store

# JSON lines and whole-file JSON; other programs' SQLite databases (Cursor, OpenCode); JSON
# lines an agent compressed (Codex's archived rollouts).
TRANSCRIPT_SUFFIXES = (".jsonl", ".json", ".vscdb", ".db", ".jsonl.zst")


def candidate_files(roots: Iterable[str], whole: set[str] | None = None) -> Iterator[str]:
    """Transcript candidates below each root (a root may itself be a file). A folder in
    ``whole`` (default: the agents' folders read as one source) is one candidate itself."""
    from hansard import agents

    if whole is None:
        whole = agents.whole_dirs()
    # Files agents keep in repositories (Aider's `.aider.chat.history.md`) also count in a folder
    # given by hand, whatever prefix a copy of them got.
    suffixes = (*TRANSCRIPT_SUFFIXES, *agents.repo_files())
    # ... and the Markdown files of folders agents keep in repositories (SpecStory's histories).
    md_dirs = tuple("/" + d for d in agents.repo_dirs())
    for root in roots:
        if os.path.isfile(root):
            yield os.path.abspath(root)
            continue
        for dirpath, dirs, files in os.walk(root):
            if os.path.abspath(dirpath) in whole:
                dirs[:] = []
                yield os.path.abspath(dirpath)
                continue
            md = bool(md_dirs) and os.path.abspath(dirpath).replace(os.sep, "/").endswith(md_dirs)
            for name in files:
                if (name.endswith(suffixes) and not name.endswith(".meta.json")) or (md and name.endswith(".md")):
                    yield os.path.join(os.path.abspath(dirpath), name)


def repo_transcripts(repo_paths: Iterable[str]) -> list[str]:
    """Transcript files agents keep in these repositories: at the top (Aider's history), and
    the ``.md`` files of their folders (SpecStory's ``.specstory/history``)."""
    from hansard import agents

    names = agents.repo_files()
    dirs = agents.repo_dirs()
    out = [f for top in repo_paths for n in names if os.path.isfile(f := os.path.join(top, n))]
    for top in repo_paths:
        for d in dirs:
            folder = os.path.join(top, d)
            try:
                listed = os.listdir(folder)
            except OSError:
                continue  # the common case: no such folder
            out += [f for n in listed if n.endswith(".md") and os.path.isfile(f := os.path.join(folder, n))]
    return sorted(out)


def source_identity(path: str) -> tuple[int, int, int]:
    """What says a source changed: (inode, size, mtime_ns) of a file; a database's size and
    mtime also count its ``-wal`` file (committed rows may live only there); a folder read as
    one source gives its file count and the newest mtime below it."""
    st = os.stat(path)
    if path.endswith((".jsonl", ".json", ".zst")):
        return st.st_ino, st.st_size, st.st_mtime_ns
    if os.path.isdir(path):
        count, newest = 0, st.st_mtime_ns
        for dirpath, _dirs, files in os.walk(path):
            for name in files:
                try:
                    newest = max(newest, os.stat(os.path.join(dirpath, name)).st_mtime_ns)
                except OSError:
                    continue
                count += 1
        return st.st_ino, count, newest
    size, mtime = st.st_size, st.st_mtime_ns
    try:
        wal = os.stat(path + "-wal")
        size, mtime = size + wal.st_size, max(mtime, wal.st_mtime_ns)
    except OSError:
        pass
    return st.st_ino, size, mtime


def anything_changed(store: Store, roots: Iterable[str]) -> bool:
    from hansard.store import as_store

    store = as_store(store)
    known = store.archive.file_stats()
    for path in [*candidate_files(roots), *repo_transcripts(store.repos.paths())]:
        try:
            ident = source_identity(path)
        except OSError:
            continue
        if known.get(path) != ident:
            return True
    return False


def quick_sync(store: Store, changed: bool | None = None) -> bool:
    """The cheap incremental index before answering; skipped if another indexer runs or
    the store is read-only. True when it found something to read (whether or not it could).
    ``changed``: what ``anything_changed`` just said, when the caller asked it already."""
    from hansard.agents import transcript_dirs
    from hansard.errors import StoreReadOnly

    if changed is None:
        changed = anything_changed(store, transcript_dirs())
    if not changed:
        return False
    from hansard.ingest.run import index  # the pipeline loads only when there is work

    try:
        index(store, wait=False, relink_all=False)
    except StoreReadOnly:
        pass  # answer from what is indexed
    except OSError as exc:
        import errno

        if exc.errno not in (errno.EROFS, errno.EACCES):
            raise
    except Exception as exc:
        from hansard.store.errors import typed

        if not (isinstance(typed(exc), StoreReadOnly) and "readonly" in str(exc)):
            raise
    return True
