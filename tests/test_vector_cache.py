"""The copy of the passage vectors beside the store (hansard/ingest/vector_cache.py),
on real stores: written by the builder, mapped by later processes, rewritten when the vectors
change, never trusted when damaged, and skipped when it cannot be written."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixtures_repos.writers import Transcript
from hansard.ingest.run import index, rebuild
from hansard.store import open_store
from tests.helpers import WordsEmbedder

np = pytest.importorskip("numpy")

from hansard.answers.search import meaning  # noqa: E402
from hansard.answers.search.sessions import search_past_sessions  # noqa: E402
from hansard.app.house import Hansard  # noqa: E402
from hansard.ingest import embed, vector_cache  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


EMB = WordsEmbedder("test-words-64", 64)  # the same vectors in every process


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HANSARD_NO_BACKGROUND", "1")
    monkeypatch.delenv("HANSARD_VECTOR_CACHE", raising=False)
    meaning.VectorIndex._cache.clear()


def _session(folder: Path, sid: str, *lines: str) -> None:
    t = Transcript(sid, cwd="/work/app")
    for i, line in enumerate(lines):
        (t.user if i % 2 == 0 else t.assistant)(line)
    t.write(folder)


@pytest.fixture
def store(tmp_path: Path):
    d = open_store()
    _session(tmp_path / "t", "sess-kiwi", "why does the kiwi parser crash on empty input",
             "the kiwi parser reads past the end of the buffer")
    _session(tmp_path / "t", "sess-mango", "rename the mango helper", "the mango helper is renamed")
    index(d, [tmp_path / "t"])
    embed.build_vectors(d.search, EMB)
    return d


def _where(d) -> Path:
    return vector_cache.folder(d.search.vector_stamp(EMB.id)[0], EMB.id)


def _meta(d) -> dict:
    return json.loads((_where(d) / "meta.json").read_bytes())


def _top(d, query: str) -> str:
    return search_past_sessions(d, query, mode="meaning", embedder=EMB)["results"][0]["session_id"]


def test_the_builder_writes_an_owner_only_copy_at_the_store_stamp(store) -> None:
    where = _where(store)
    assert where.parent.parent == Path(store.search.vector_stamp(EMB.id)[0]).parent
    meta = _meta(store)
    assert meta["stamp"] == list(store.search.vector_stamp(EMB.id)[1:])
    assert meta["rows"] == store.search.passage_count() == 4 and meta["messages"] == 4
    assert stat.S_IMODE(where.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in where.iterdir())
    vi = meaning.VectorIndex.get(store.search, EMB.id)
    assert isinstance(vi.mat, np.memmap)  # mapped, not read from SQLite
    spans, blobs = store.search.vectors(EMB.id)  # the same rows and vectors as SQLite's
    assert [tuple(r) for r in np.stack([vi.ids, vi.starts, vi.ends], 1).tolist()] == [tuple(s) for s in spans]
    assert np.array_equal(vi.mat, np.frombuffer(b"".join(blobs), np.float16).reshape(len(spans), -1).astype(np.float32))
    assert _top(store, "kiwi parser crash") == "sess-kiwi"


def test_another_process_maps_the_copy_without_rewriting_it(store) -> None:
    before = {p.name: p.stat().st_mtime_ns for p in _where(store).iterdir()}
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + '/tests')\n"
        "import numpy as np\n"
        "from test_vector_cache import EMB\n"
        "from hansard.answers.search import meaning\n"
        "from hansard.answers.search.sessions import search_past_sessions\n"
        "from hansard.store import open_store\n"
        "d = open_store()\n"
        "vi = meaning.VectorIndex.get(d.search, EMB.id)\n"
        "r = search_past_sessions(d, 'mango helper', mode='meaning', embedder=EMB)\n"
        "print(type(vi.mat).__name__, r['results'][0]['session_id'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(REPO)], capture_output=True, text=True, env=os.environ,
                         cwd=REPO, check=True).stdout.split()
    assert out == ["memmap", "sess-mango"]
    assert {p.name: p.stat().st_mtime_ns for p in _where(store).iterdir()} == before


def test_a_new_session_embedded_rewrites_it_reusing_the_old_vectors(store, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    old = _meta(store)
    _session(tmp_path / "n", "sess-walrus", "migrate the walrus tables", "the walrus migration is done")
    index(store, [tmp_path / "n"])
    asked: list[bytes] = []
    real = type(store.search).vectors_by_hash

    def spy(self, model, hashes):
        asked.extend(hashes)
        return real(self, model, hashes)

    monkeypatch.setattr(type(store.search), "vectors_by_hash", spy)
    embed.build_vectors(store.search, EMB)
    new = _meta(store)
    assert new["stamp"] != old["stamp"] and new["stamp"] == list(store.search.vector_stamp(EMB.id)[1:])
    assert new["rows"] == 6 and new["files"] != old["files"]
    assert len(asked) == 2  # only the two new passages were read from SQLite
    assert not (_where(store) / old["files"]["mat"]).exists()  # the old build swept
    assert _top(store, "walrus migration") == "sess-walrus"


def test_a_message_rewritten_under_its_vectors_moves_the_stamp_and_the_copy(store) -> None:
    """What a redaction that rewrites a stored message does: the update trigger steps the
    builder's mark back; the stamp moves, the message is embedded again, the copy follows."""
    model = EMB.id
    old = _meta(store)
    mid = store.search.db.execute("SELECT id FROM messages WHERE text LIKE '%kiwi parser reads%'").fetchone()[0]
    store.search.db.execute("UPDATE messages SET text='the [REDACTED] zebra overflows' WHERE id=?", (mid,))
    assert list(store.search.vector_stamp(model)[1:]) != old["stamp"]
    # searched before the builder ran: the copy follows at once, without the rewritten message
    assert mid not in meaning.VectorIndex.get(store.search, model).ids.tolist()
    embed.build_vectors(store.search, EMB)
    new = _meta(store)
    assert new["stamp"] != old["stamp"]
    vi = meaning.VectorIndex.get(store.search, model)
    row = int(np.flatnonzero(np.asarray(vi.ids) == mid)[0])
    assert np.allclose(vi.mat[row], EMB.embed(["the [REDACTED] zebra overflows"])[0], atol=1e-3)
    assert _top(store, "zebra overflows") == "sess-kiwi"


def test_a_reindex_moves_the_stamp_and_the_copy_follows_the_new_ids(store, monkeypatch: pytest.MonkeyPatch) -> None:
    model = EMB.id
    old = _meta(store)
    rebuild(store)
    stamp = list(store.search.vector_stamp(model)[1:])
    assert stamp != old["stamp"]
    assert vector_cache.load(_where(store), store.search.vector_stamp(model)[0], model, tuple(stamp)) is None
    embedded = embed.build_vectors(store.search, EMB)  # walks the new ids from the start
    assert embedded["messages"] == 4 and embedded["embedded"] == 0  # every text's vector was kept
    assert _meta(store)["rows"] == 4 and _meta(store)["stamp"] == list(store.search.vector_stamp(model)[1:])
    vi = meaning.VectorIndex.get(store.search, model)
    spans, _ = store.search.vectors(model)
    assert [tuple(r) for r in np.stack([vi.ids, vi.starts, vi.ends], 1).tolist()] == [tuple(s) for s in spans]
    res = search_past_sessions(store, "kiwi parser crash", mode="meaning", embedder=EMB)
    assert res["mode"] == "meaning" and res["results"][0]["session_id"] == "sess-kiwi"


@pytest.mark.parametrize("damage", ["truncate", "foreign", "meta", "missing"])
def test_a_damaged_copy_is_rewritten(store, damage: str) -> None:
    where, meta = _where(store), _meta(store)
    mat = where / meta["files"]["mat"]
    if damage == "truncate":
        os.truncate(mat, mat.stat().st_size // 2)
    elif damage == "foreign":  # a valid .npy of another shape
        np.save(where / meta["files"]["rows"], np.zeros((3, 5), np.int64))
    elif damage == "meta":
        (where / "meta.json").write_bytes(b"{not json")
    else:
        mat.unlink()
    # a search on its own only reads: the vectors from SQLite, the damaged copy left as it is
    vi = meaning.VectorIndex.get(store.search, EMB.id)
    assert not isinstance(vi.mat, np.memmap) and len(vi.ids) == 4
    assert _top(store, "kiwi parser crash") == "sess-kiwi"
    meaning.VectorIndex._cache.clear()
    # asked within a request that caches, the copy is written again and mapped
    with Hansard(sync=False).request():
        vi = meaning.VectorIndex.get(store.search, EMB.id)
    assert isinstance(vi.mat, np.memmap) and len(vi.ids) == 4
    assert _meta(store)["files"] != meta["files"] or damage == "meta"
    assert _top(store, "kiwi parser crash") == "sess-kiwi"


def test_a_copy_that_cannot_be_written_falls_back_to_sqlite(store, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(vector_cache, "folder", lambda s, m: blocker / "vectors" / m)  # mkdir fails
    vi = meaning.VectorIndex.get(store.search, EMB.id)
    assert not isinstance(vi.mat, np.memmap) and len(vi.ids) == 4
    assert _top(store, "mango helper") == "sess-mango"
    monkeypatch.setenv("HANSARD_VECTOR_CACHE", "0")  # turned off: the same answer from SQLite
    meaning.VectorIndex._cache.clear()
    assert _top(store, "kiwi parser crash") == "sess-kiwi"


def test_a_read_only_copy_is_still_mapped(store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build on disk is read without writing anything (a read-only home)."""
    def no_refresh(*a, **k):
        raise AssertionError("a current copy is never rewritten")

    monkeypatch.setattr(vector_cache, "refresh", no_refresh)
    vi = meaning.VectorIndex.get(store.search, EMB.id)
    assert isinstance(vi.mat, np.memmap)


def test_a_passage_without_a_vector_of_the_model_is_a_row_no_search_returns(store) -> None:
    """Passages written by another model's builder (a model change half done): their texts have
    no vector under this model, so their rows carry message id -1 and a zero vector."""
    model = EMB.id
    mid = store.search.db.execute("SELECT id FROM messages WHERE text LIKE '%mango helper is renamed%'").fetchone()[0]
    store.search.add_vectors("other-model", [(b"o" * 16, b"\0" * 128)], [(mid, 0, 5, b"o" * 16)], mid,
                             "2026-01-01T00:00:00.000001Z")
    # (another model's writes leave this model's stamp alone: the copy is made stale by hand)
    for whole in (False, True):  # from the old copy by hash, and in one pass over the join
        if whole:
            (_where(store) / "meta.json").unlink()
        else:
            (_where(store) / "meta.json").write_text(json.dumps({**_meta(store), "stamp": ["then", 0, 0]}))
        meaning.VectorIndex._cache.clear()
        with Hansard(sync=False).request():  # a caching request writes the stale copy again
            vi = meaning.VectorIndex.get(store.search, model)
        assert isinstance(vi.mat, np.memmap) and len(vi.ids) == 4 and vi.messages == 3
        assert mid not in vi.ids.tolist() and -1 in vi.ids.tolist()
        assert not np.asarray(vi.mat)[np.asarray(vi.ids) == -1].any()
        assert _top(store, "kiwi parser crash") == "sess-kiwi"


def test_a_weights_hash_is_remembered_per_version_of_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    f = tmp_path / "weights.bin"
    f.write_bytes(b"one")
    assert meaning.file_sha256(f) == hashlib.sha256(b"one").hexdigest()
    calls = []
    real = hashlib.sha256
    monkeypatch.setattr(meaning.hashlib, "sha256", lambda *a: calls.append(1) or real(*a))
    assert meaning.file_sha256(f) == real(b"one").hexdigest() and not calls  # remembered
    time.sleep(0.05)  # past the file system's timestamp granularity
    f.write_bytes(b"two")  # same size, new change time: hashed again
    assert meaning.file_sha256(f) == real(b"two").hexdigest() and calls
    meaning.verify_weights(f, real(b"two").hexdigest())
    with pytest.raises(meaning.WeightsMismatch, match="is not the pinned"):  # weights load only as pinned
        meaning.verify_weights(f, real(b"one").hexdigest())
    record = Path(os.environ["HANSARD_HOME"]) / "file-hashes.json"
    assert stat.S_IMODE(record.stat().st_mode) == 0o600 and len(json.loads(record.read_bytes())) == 1
