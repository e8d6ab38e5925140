"""What the whole-file answers of many files asked in turn share, worked out once for all of them
while a caller asks them (``hansard.answers.why.many.InTurn`` opens the window and closes it):
each distinct line text's facts (its hash, exact hash and triviality; files repeat one
another's lines); in the store, the other files' edits holding any of the files' lines,
looked up once for every file read ahead rather than once a file (a line many files share
matches the same edits in each); and what is one for every file of the repository at that
moment (``once``: its id in the store, whether the store is complete, its HEAD and refs); and
one `git cat-file --batch` for every object the files' answers read (``hansard.git.history.hold_reader``).

Always true: nothing here changes an answer. Each file gets the very facts and rows its own
question computes, and the repository and the store as the window's first file saw them;
with no window open, every call computes them as a lone question does.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

from hansard.text.textnorm import line_facts

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Hashable, Iterable

    from hansard.store.interfaces import Store

Facts = tuple[int, int, bool]

_FACTS: dict[str, Facts] = {}  # line text -> its facts, while a window is open
_WINDOW: dict[str, object] = {}  # "top": the repository asked; "read": (round, store, repo) read ahead
_STORES: list[Store] = []  # whose lines were read ahead (dropped when the window closes)
_ONCE: dict[Hashable, Any] = {}
# reader -> (line text -> its normal-form hash, the texts of those it found trivial), while a window is open
_HASHES: dict[str, tuple[dict[str, int], set[str]]] = {}
FACTS_KEPT = 200_000  # distinct texts: past it, the memory is let go and the facts computed again
HASHES_KEPT = 400_000  # likewise, for the hashes of the files' histories and earlier versions
GC_YOUNG = 20_000  # allocations between two sweeps of the collector's youngest generation, in a window


def open_window(top: str) -> None:
    """Files of the repository at ``top`` are about to be answered in turn."""
    if _WINDOW.get("top") != top:
        from hansard.git.history import hold_reader
        from hansard.git.refs import hold

        close_window()
        _WINDOW["top"] = top
        young, *older = _WINDOW["gc"] = gc.get_threshold()
        # Each answer makes many small containers that live until it is done, not cycles to
        # look for: the collector's youngest generation is swept less often meanwhile.
        gc.set_threshold(max(young, GC_YOUNG), *older)
        hold(True)
        hold_reader(top)


def close_window() -> None:
    """Nothing more to share: what was kept is dropped, here and in the stores."""
    from hansard.git.refs import hold

    if _WINDOW:
        from hansard.git.history import release_readers

        hold(False)
        release_readers()
        was = _WINDOW.get("gc")
        if isinstance(was, tuple):
            gc.set_threshold(*was)
    _FACTS.clear()
    _HASHES.clear()
    _WINDOW.clear()
    _ONCE.clear()
    for store in _STORES:
        store.evidence.read_lines_ahead(None)
    _STORES.clear()


def many_files() -> bool:
    """Whether files are being answered in turn (a window is open)."""
    return bool(_WINDOW)


def once(key: Hashable, work: Callable[[], Any]) -> Any:
    """``work()``: worked out once for every file while a window is open (``key`` names what
    it reads, the store's identity included), else each time."""
    if not _WINDOW:
        return work()
    if key not in _ONCE:
        _ONCE[key] = work()
    return _ONCE[key]


def facts(texts: Iterable[str]) -> dict[str, Facts]:
    """``line_facts`` of each distinct text among ``texts``."""
    if not _WINDOW:
        return {x: line_facts(x) for x in set(texts)}
    if len(_FACTS) > FACTS_KEPT:
        _FACTS.clear()
    out = {}
    for x in set(texts):
        got = _FACTS.get(x)
        if got is None:
            got = _FACTS[x] = line_facts(x)
        out[x] = got
    return out


def hash_table(reader: str) -> tuple[dict[str, int], set[str]]:
    """(line text -> its normal-form hash, the texts among them ``reader`` found trivial) for
    that reader to fill and read: while a window is open, the tables every file's readers of
    that name share (a file's earlier versions, and its histories at a range's commits, repeat
    most lines); else new ones."""
    if not _WINDOW:
        return {}, set()
    got = _HASHES.get(reader)
    if got is None or len(got[0]) > HASHES_KEPT:
        got = _HASHES[reader] = ({}, set())
    return got


def known(text: str) -> Facts | None:
    """The facts of a text already worked out in the window, else None."""
    return _FACTS.get(text) if _FACTS else None


def lines_ahead(store: Store, repo_id: int, hashes: Collection[int]) -> None:
    """Before one file's candidate edits are looked up (``hashes``: its lines'): when files are
    answered in turn and the store holds no lookup for these hashes, one lookup for them and
    the lines of every file read ahead of its question (``hansard.git.history.held``), once a
    round of reading ahead. A file outside them is looked up alone, as before."""
    top = _WINDOW.get("top")
    if not isinstance(top, str) or repo_id < 0 or store.evidence.lines_ahead_hold(repo_id, hashes):
        return
    from hansard.answers.why.target import _file_lines
    from hansard.git.history import held

    round_, bodies = held(top)
    if _WINDOW.get("read") == (round_, id(store), repo_id):
        return  # read for these files already: this one was not among them
    _WINDOW["read"] = (round_, id(store), repo_id)
    union = set(hashes)
    for body in bodies:
        if b"\0" in body[:8000]:  # a binary file: no answer reads its lines
            continue
        union.update(f[0] for f in facts(_file_lines(body)).values())
    store.evidence.read_lines_ahead(repo_id, union)
    if store not in _STORES:
        _STORES.append(store)
