"""Fuzzing, the small seeded subset CI runs: every provider parser, the apply_patch parser, the
query parser and the real index on mutated copies of the shared samples. The mutations and
the invariants are in tests/fuzzing.py; scripts/fuzz.py runs the same with 100,000+ inputs.

Every hypothesis test here is derandomized (a fixed seed per test), so a run is repeatable.
A failure names the input (``record: codex … ops=[…] seed=…``): scripts/fuzz.py --replay
rebuilds it from its spec.

The regression tests at the end are crashes the fuzzer found: one record stopped a whole
``hansard index`` (and every later one, since the file stays on disk)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hansard.ingest.run import index, rebuild
from hansard.store.sqlite.db import connect
from hansard.values.models import RawRecord, Skip
from tests import fuzzing as fz

pytestmark = pytest.mark.slow

FAST = settings(derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck),
                max_examples=40)
BIG = 3 * fz.MB  # "a few MB" here; scripts/fuzz.py uses 50 MB


@pytest.fixture(scope="module")
def corpus(samples: Path) -> fz.Corpus:
    return fz.load_corpus(samples)


@pytest.fixture(scope="module")
def store() -> fz.MemStore:
    return fz.MemStore()


def _run(case: fz.Case) -> fz.Outcome:
    try:
        return case.run()
    except fz.Violation as v:
        pytest.fail(f"{case.describe}\n{v.kind}\n{v.detail}", pytrace=False)


# -- provider parsers -------------------------------------------------------------------------


@pytest.mark.parametrize("target", fz.PARSER_TARGETS)
@FAST
@given(file=st.integers(0, 999), line=st.integers(0, 99_999),
       ops=st.lists(st.sampled_from(fz.ALL_OPS), min_size=1, max_size=3), seed=st.integers(0, 2**32 - 1))
def test_parser_survives_mutated_records(corpus: fz.Corpus, store: fz.MemStore, target: str, file: int, line: int,
                                         ops: list[str], seed: int) -> None:
    """One mutated record, fed to a parser resumed from the real state before it, then the
    next real records: no exception, skips with reasons, JSON state, storable items."""
    _run(fz.record_case(corpus, target, file, line, ops, seed, store=store, big=256 * 1024))


@pytest.mark.parametrize("target", fz.PARSER_TARGETS)
@settings(FAST, max_examples=6)
@given(file=st.integers(0, 999), seed=st.integers(0, 2**32 - 1), n_ops=st.integers(1, 10))
def test_parser_survives_mutated_streams(corpus: fz.Corpus, store: fz.MemStore, target: str, file: int, seed: int,
                                         n_ops: int) -> None:
    """A whole file with mutations, duplicate records and uuids, a replayed prefix, reordering
    and foreign records, fed in chunks with the state saved as JSON between them."""
    _run(fz.stream_case(corpus, target, file, seed, n_ops, store=store, big=256 * 1024))


@pytest.mark.parametrize("target", ["claude_code", "codex", "gemini"])
def test_truncated_at_every_byte(corpus: fz.Corpus, target: str) -> None:
    """A line cut at each of its bytes (one small line of each record shape; three shapes
    per provider here, all of them in scripts/fuzz.py)."""
    plan = fz.truncation_plan(corpus, target, max_line=700, random_cuts=0)
    lines = sorted({(id(f), i) for f, i, _ in plan})[:3]
    cases = [(f, i, cut) for f, i, cut in plan if (id(f), i) in lines]
    assert len(cases) > 300
    total = fz.Outcome()
    for f, i, cut in cases:
        out = _run(fz.truncation_case(f, i, cut))
        total.skips.update(out.skips)
    assert sum(total.skips.values()) >= len(cases) - 3  # every cut but the whole line (or a lucky prefix)


@pytest.mark.parametrize("target", fz.PARSER_TARGETS)
@settings(FAST, max_examples=60)
@given(pick=st.integers(0, 10**9))
def test_truncated_at_random_points(corpus: fz.Corpus, target: str, pick: int) -> None:
    plan = fz.truncation_plan(corpus, target, max_line=0, random_cuts=1)
    f, i, cut = plan[pick % len(plan)]
    _run(fz.truncation_case(f, i, cut))


@pytest.mark.parametrize("target", [t for t in fz.PARSER_TARGETS if t not in fz.TEXT_RECORDS])  # JSON records
def test_deep_nesting_is_a_skip(corpus: fz.Corpus, store: fz.MemStore, target: str) -> None:
    """Nesting around orjson's limits (255 to write, 1024 to read) and far past them."""
    for i in range(len(fz.deep_records())):
        _run(fz.case_from_spec(corpus, {"kind": "deep", "target": target, "index": i}, store))
    f = corpus.files[target][0]
    parser = fz.registry.from_key(target).new_parser(f.path, None)
    items = parser.feed(RawRecord(f.path, 0, b"[" * 10_000 + b"]" * 10_000))
    assert [type(i) for i in items] == [Skip] and items[0].reason == "malformed_json"


def test_lines_of_a_few_megabytes(corpus: fz.Corpus, store: fz.MemStore) -> None:
    for i in range(len(fz.big_line_records(corpus, 1000))):
        _run(fz.case_from_spec(corpus, {"kind": "big", "size": BIG, "index": i}, store))


# -- apply_patch and the query parser -----------------------------------------------------------


@settings(FAST, max_examples=250)
@given(patch=st.integers(0, 999), seed=st.integers(0, 2**32 - 1), n_ops=st.integers(1, 6))
def test_apply_patch_raises_only_patch_error(corpus: fz.Corpus, patch: int, seed: int, n_ops: int) -> None:
    _run(fz.patch_case(corpus, patch, seed, n_ops))


@settings(FAST, max_examples=150)
@given(text=st.text(max_size=200))
def test_apply_patch_on_any_text(text: str) -> None:
    _run(fz.Case("apply_patch", repr(text), lambda: fz.check_patch(text)))


_probe = fz.FtsProbe()


@settings(FAST, max_examples=250)
@given(text=st.one_of(
    st.text(max_size=200),
    st.builds(fz.query_from_pieces, st.lists(st.sampled_from(fz.QUERY_PIECES), max_size=12),
              st.lists(st.sampled_from([" ", "", "\t", "-", '"', "*"]), min_size=1, max_size=4)),
))
def test_query_parser_never_raises_and_fts5_accepts_it(text: str) -> None:
    _run(fz.Case("query", repr(text), lambda: fz.check_query(text, _probe)))


@pytest.mark.parametrize("text", [*fz.QUERY_SEEDS, None, "\ud800", "a\udcff b", "\x00" * 10])
def test_query_parser_seeds(text: str | None) -> None:
    _run(fz.Case("query", repr(text), lambda: fz.check_query(text, _probe)))


# -- end to end: the real index on mutated files ----------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_index_survives_mutated_files(corpus: fz.Corpus, tmp_path: Path, seed: int) -> None:
    """Files on disk through index (then an append, then a shrinking rewrite) and rebuild:
    nothing raises, and every skip in the store was counted by a run."""
    out = _run(fz.scan_case(corpus, seed, tmp_path))
    assert out.records > 0


def test_index_survives_a_big_line_and_deep_nesting(corpus: fz.Corpus, tmp_path: Path) -> None:
    out = _run(fz.scan_case(corpus, 3, tmp_path, big_line=BIG))
    assert out.records > 0


# -- regressions: crashes the fuzzer found ----------------------------------------------------


_DEEP = "\u0001deep\u0001"


def _deep(depth: int) -> str:
    """A placeholder that _dumps replaces with ``depth`` nested arrays (orjson refuses to
    write them, and the stdlib runs out of stack near 1,000)."""
    return f"{_DEEP}{depth}"


def _dumps(obj: object) -> bytes:
    out = orjson.dumps(obj)
    for m in set(re.findall(rb'"\\u0001deep\\u0001(\d+)"', out)):
        depth = int(m)
        out = out.replace(b'"\\u0001deep\\u0001' + m + b'"', b"[" * depth + b"1" + b"]" * depth)
    return out


def _index_file(tmp_path: Path, name: str, lines: list[bytes]) -> sqlite3.Connection:
    d = tmp_path / "t"
    d.mkdir(exist_ok=True)
    (d / name).write_bytes(b"\n".join(lines) + b"\n")
    db = connect()
    summary = index(db, [d])
    assert summary is not None and summary.changed == 1
    return db


@pytest.mark.parametrize("depth", [300, 1000])
def test_deeply_nested_tool_input_does_not_stop_the_index(tmp_path: Path, depth: int) -> None:
    """A tool input nested more than 255 deep (orjson's limit for writing; it reads 1024)
    made Writer._tool_call raise TypeError: the index stopped at that file, every time."""
    sid = "11111111-2222-4333-8444-555555555555"
    use = {"type": "assistant", "sessionId": sid, "uuid": "a1", "timestamp": "2026-01-01T00:00:01Z",
           "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Foo",
                                                          "input": {"x": _deep(depth)}}]}}
    after = {"type": "user", "sessionId": sid, "uuid": "u2", "timestamp": "2026-01-01T00:00:02Z",
             "message": {"role": "user", "content": "still here"}}
    first = {"type": "user", "sessionId": sid, "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z",
             "message": {"role": "user", "content": "hello"}}
    db = _index_file(tmp_path, f"{sid}.jsonl", [_dumps(first), _dumps(use), _dumps(after)])
    texts = [r[0] for r in db.execute("SELECT text FROM messages ORDER BY message_index")]
    assert texts == ["hello", "Foo", "still here"]
    (inp,) = db.execute("SELECT input FROM tool_calls WHERE call_id='toolu_1'").fetchone()
    assert isinstance(json.loads(inp), dict)
    before = db.execute("SELECT COUNT(*) FROM tool_calls").fetchone()[0]
    rebuild(db)
    assert db.execute("SELECT COUNT(*) FROM tool_calls").fetchone()[0] == before


def test_deeply_nested_gemini_tool_args_do_not_stop_the_index(tmp_path: Path) -> None:
    meta = {"sessionId": "g-deep", "projectHash": "0" * 64, "startTime": "2026-01-01T00:00:00Z"}
    msg = {"id": "m1", "timestamp": "2026-01-01T00:00:01Z", "type": "gemini", "content": "calling",
           "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": _deep(400)}, "status": "success"}]}
    db = _index_file(tmp_path, "chat.jsonl", [_dumps(meta), _dumps(msg)])
    assert db.execute("SELECT COUNT(*) FROM tool_calls").fetchone()[0] == 1


def test_exit_codes_beyond_64_bits_are_dropped_not_fatal(tmp_path: Path) -> None:
    """A shell output stating "Process exited with code 99999999999999999999" became an int
    SQLite cannot bind: OverflowError in Writer._tool_result stopped the index."""
    lines = [
        b'{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"019c0000-0000-7000-8000-000000000001",'
        b'"timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}}',
        b'{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"function_call","name":"shell",'
        b'"arguments":"{\\"command\\":[\\"false\\"]}","call_id":"call_1"}}',
        b'{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"function_call_output",'
        b'"call_id":"call_1","output":"Process exited with code 99999999999999999999"}}',
    ]
    db = _index_file(tmp_path, "rollout.jsonl", lines)
    row = db.execute("SELECT status, exit_code FROM tool_calls WHERE call_id='call_1'").fetchone()
    assert tuple(row) == ("error", None)


def test_line_numbers_beyond_64_bits_are_dropped_not_fatal(tmp_path: Path) -> None:
    """A u64 ``newStart`` in a Claude structuredPatch and a 20-digit hunk header in a Gemini
    fileDiff: OverflowError in Writer._edit (edit_lines) / TypeError in orjson.dumps."""
    sid = "11111111-2222-4333-8444-666666666666"
    use = {"type": "assistant", "sessionId": sid, "uuid": "a1", "timestamp": "2026-01-01T00:00:01Z",
           "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_e", "name": "Edit",
                                                          "input": {"file_path": "/w/a.py", "old_string": "a",
                                                                    "new_string": "b"}}]}}
    res = {"type": "user", "sessionId": sid, "uuid": "u1", "timestamp": "2026-01-01T00:00:02Z",
           "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_e", "content": "ok"}]},
           "toolUseResult": {"filePath": "/w/a.py", "oldString": "a", "newString": "b",
                             "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 2**64 - 1, "newLines": 1,
                                                  "lines": ["-a", "+b"]}]}}
    db = _index_file(tmp_path, f"{sid}.jsonl", [orjson.dumps(use), orjson.dumps(res)])
    assert sorted(tuple(r) for r in db.execute("SELECT side, new_lineno FROM edit_lines")) == [("+", None), ("-", None)]

    meta = {"sessionId": "g-lines", "projectHash": "0" * 64}
    diff = "@@ -1,1 +99999999999999999999,1 @@\n-a\n+b\n"
    msg = {"id": "m1", "timestamp": "2026-01-01T00:00:01Z", "type": "gemini", "content": "editing",
           "toolCalls": [{"id": "c-edit", "name": "replace", "status": "success",
                          "args": {"file_path": "a.py", "old_string": "a", "new_string": "b"},
                          "resultDisplay": {"fileDiff": diff, "fileName": "a.py"}}]}
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "chat.jsonl").write_bytes(orjson.dumps(meta) + b"\n" + orjson.dumps(msg) + b"\n")
    assert index(db, [tmp_path / "g"]) is not None
    assert db.execute("SELECT COUNT(*) FROM edits WHERE call_id='c-edit'").fetchone()[0] == 1


# -- found by the fuzzer: SQLite 3.40.1's FTS5 trigram index (detail=none) died with SIGSEGV on a
# LIKE pattern with a wildcard inside non-ASCII text. Term.like() now never sends a wildcard.


def test_history_survives_a_query_that_crashes_sqlite(samples: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    db = _index_file(tmp_path, "chat.jsonl", [(samples / "gemini-cli/gitai_gemini-session-simple.jsonl").read_bytes()
                                                .rstrip(b"\n")])
    db.close()
    for query in ("àà_àààà", "é*_ANDé*", "ÿÿ%ÿÿÿÿÿÿ"):
        p = subprocess.run([sys.executable, "-m", "hansard", "history", query, "--no-sync", "--json"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode >= 0, f"`hansard history {query!r}` was killed by signal {-p.returncode}"
        assert p.returncode == 0, p.stderr
