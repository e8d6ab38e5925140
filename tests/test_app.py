"""The application's request (hansard.app.house.Request): what its answers offer to keep is kept
when it keeps, each time, and nothing when it does not cache."""

from __future__ import annotations

from hansard.app.house import Hansard
from hansard.code import symbols as sym
from hansard.store import open_store


def _kept(blob: str) -> int:
    store = open_store()
    try:
        return int(store.db.execute("SELECT COUNT(*) FROM symbol_cache WHERE blob_id=?",  # type: ignore[attr-defined]
                                    (blob,)).fetchone()[0])
    finally:
        store.close()


def test_a_request_keeps_what_its_answers_offer_each_time_it_keeps() -> None:
    first, second, third = (f"def f{i}():\n    return {i}\n".encode() for i in range(3))
    with Hansard(sync=False).request() as rq:  # a server's request, asked again and again
        sym.cached_symbols(rq.store, sym.blob_id(first), "python", first)
        rq.keep()
        assert _kept(sym.blob_id(first)) == 1
        sym.cached_symbols(rq.store, sym.blob_id(second), "python", second)
        rq.keep()
        assert _kept(sym.blob_id(second)) == 1
    with Hansard(sync=False, cache=False).request() as rq:  # --no-cache: nothing kept, even at its close
        assert not rq.caching
        sym.cached_symbols(rq.store, sym.blob_id(third), "python", third)
    assert _kept(sym.blob_id(third)) == 0
