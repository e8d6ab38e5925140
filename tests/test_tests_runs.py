"""Test commands, each runner's real output format, and failing -> fixed tests."""

from __future__ import annotations

import pytest

from hansard.facts.runner_output import parse_output
from hansard.facts.test_outcomes import (
    RunRef,
    TestFix,
    analyze_test_runs,
    failing_then_fixed,
    parse_run,
    recognise,
)

# -- recognising commands -----------------------------------------------------------------------


@pytest.mark.parametrize(("command", "runner", "cwd", "targets", "filters"), [
    ("pytest", "pytest", "", (), ()),
    ("pytest -q tests/test_retry.py", "pytest", "", ("tests/test_retry.py",), ()),
    ("python -m pytest -x -k backoff tests", "pytest", "", ("tests",), ("-k=backoff",)),
    ("python3 -m pytest --tb=short -p no:cacheprovider tests/unit", "pytest", "", ("tests/unit",), ()),
    (".venv/bin/pytest tests/test_a.py::test_b -vv", "pytest", "", ("tests/test_a.py::test_b",), ()),
    ("uv run pytest -q", "pytest", "", (), ()),
    ("poetry run python -m pytest", "pytest", "", (), ()),
    ("cd backend && pytest -q 2>&1 | tail -20", "pytest", "backend", (), ()),
    ("cd /work/app && PYTHONPATH=src timeout 120 pytest", "pytest", "/work/app", (), ()),
    ("bash -lc 'cd pkg && python -m pytest tests'", "pytest", "pkg", ("tests",), ()),
    ('bash -lc "source .venv/bin/activate && pytest -q"', "pytest", "", (), ()),
    ("env CI=1 FORCE_COLOR=0 pytest", "pytest", "", (), ()),
    ("python -m unittest", "unittest", "", (), ()),
    ("python -m unittest discover -s tests -v", "unittest", "", (), ()),
    ("python -m unittest tests.test_config", "unittest", "", ("tests.test_config",), ()),
    ("npx jest src/retry.test.ts", "jest", "", ("src/retry.test.ts",), ()),
    ("npx jest -t 'caps the backoff'", "jest", "", (), ("-t=caps the backoff",)),
    ("yarn jest --ci", "jest", "", (), ()),
    ("npx vitest run", "vitest", "", (), ()),
    ("pnpm vitest run src/retry", "vitest", "", ("src/retry",), ()),
    ("go test ./...", "go", "", ("./...",), ()),
    ("go test -v -run TestBackoff ./retry", "go", "", ("./retry",), ("-run=TestBackoff",)),
    ("go test", "go", "", (".",), ()),
    ("cargo test", "cargo", "", (), ()),
    ("cargo test backoff -- --nocapture", "cargo", "", (), ("backoff",)),
    ("cargo +nightly test -p core", "cargo", "", (), ()),
    ("npm test", "npm", "", ("test",), ()),
    ("npm run test:unit", "npm", "", ("test:unit",), ()),
    ("npm t", "npm", "", ("test",), ()),
    ("pnpm test", "pnpm", "", ("test",), ()),
    ("pnpm --filter web test", "pnpm", "", ("test",), ()),
    ("yarn test --watch=false", "yarn", "", ("test",), ("--watch=false",)),
    ("make test", "make", "", ("test",), ()),
    ("make -C backend test-unit", "make", "backend", ("test-unit",), ()),
    ("git status && make lint test", "make", "", ("test",), ()),
])
def test_recognise(command: str, runner: str, cwd: str, targets: tuple, filters: tuple) -> None:
    cmd = recognise(command)
    assert cmd is not None, command
    assert (cmd.runner, cmd.cwd, cmd.targets, cmd.filters) == (runner, cwd, targets, filters)


@pytest.mark.parametrize("command", [
    "ls tests", "cat test-output.log", "git commit -m 'fix tests'", "grep -r pytest .", "echo pytest",
    "npm install", "npm run build", "make build", "go build ./...", "cargo build", "python script.py",
    "python -m pip install pytest", "rg 'go test'", "pip install pytest-cov", "",
])
def test_not_a_test_command(command: str) -> None:
    assert recognise(command) is None


def test_recognise_argv_lists_from_codex() -> None:
    assert recognise(["bash", "-lc", "cd web && npx vitest run"]).runner == "vitest"
    assert recognise(["bash", "-lc", "cd web && npx vitest run"]).cwd == "web"
    assert recognise(["pytest", "-q"]).runner == "pytest"
    assert recognise(["ls", "-la"]) is None


# -- real output formats -------------------------------------------------------------------------

PYTEST_FAIL = """\
============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.6.0
rootdir: /work/app
configfile: pyproject.toml
collected 5 items

tests/test_retry.py ..F.F                                                [100%]

=================================== FAILURES ===================================
_______________________________ test_backoff_cap _______________________________

    def test_backoff_cap():
>       assert backoff(10) == 30
E       assert 60 == 30
E        +  where 60 = backoff(10)

tests/test_retry.py:12: AssertionError
_________________________________ test_jitter __________________________________

    def test_jitter():
>       assert jitter(1) > 0.5, "too small"
E       AssertionError: too small
E       assert 0.1 > 0.5

tests/test_retry.py:20: AssertionError
=========================== short test summary info ============================
FAILED tests/test_retry.py::test_backoff_cap - assert 60 == 30
FAILED tests/test_retry.py::test_jitter - AssertionError: too small
========================= 2 failed, 3 passed in 0.12s ==========================
"""

PYTEST_PASS = """\
============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.6.0
rootdir: /work/app
configfile: pyproject.toml
collected 5 items

tests/test_retry.py .....                                                [100%]

============================== 5 passed in 0.08s ===============================
"""

PYTEST_Q_FAIL = """\
..F.                                                                     [100%]
=================================== FAILURES ===================================
__________________________ test_parse[with-spaces] ___________________________

    def test_parse(case):
>       assert parse(case) == {}
E       AssertionError

tests/test_config.py:8: AssertionError
=========================== short test summary info ============================
FAILED tests/test_config.py::test_parse[with-spaces]
1 failed, 3 passed, 1 warning in 0.05s
"""

PYTEST_VERBOSE = """\
============================= test session starts ==============================
platform linux -- Python 3.12.1, pytest-9.2.0, pluggy-1.6.0 -- /work/venv/bin/python
cachedir: .pytest_cache
rootdir: /work/app
collecting ... collected 4 items

tests/test_retry.py::test_backoff_grows PASSED                           [ 25%]
tests/test_retry.py::test_backoff_cap PASSED                             [ 50%]
tests/test_retry.py::test_jitter FAILED                                  [ 75%]
tests/test_store.py::test_open ERROR                                     [100%]

==================================== ERRORS ====================================
_________________________ ERROR at setup of test_open __________________________
file /work/app/tests/test_store.py, line 3
  def test_open(db):
E       fixture 'db' not found
>       available fixtures: cache, capfd, capfdbinary, caplog, capsys, capsysbinary, monkeypatch, pytestconfig, record_property, record_testsuite_property, record_xml_attribute, recwarn, tmp_path, tmp_path_factory, tmpdir, tmpdir_factory
>       use 'pytest --fixtures [testpath]' for help on them.

/work/app/tests/test_store.py:3
=================================== FAILURES ===================================
_________________________________ test_jitter __________________________________
tests/test_retry.py:20: AssertionError
=========================== short test summary info ============================
FAILED tests/test_retry.py::test_jitter - AssertionError: too small
ERROR tests/test_store.py::test_open
==================== 1 failed, 2 passed, 1 error in 0.09s ======================
"""  # noqa: E501 - pytest's output, verbatim

PYTEST_COLLECTION_ERROR = """\
============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.6.0
rootdir: /work/app
collected 3 items / 1 error

==================================== ERRORS ====================================
____________________ ERROR collecting tests/test_client.py _____________________
ImportError while importing test module '/work/app/tests/test_client.py'.
E   ModuleNotFoundError: No module named 'app.client'
=========================== short test summary info ============================
ERROR tests/test_client.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 0.11s ===============================
"""


def test_pytest_failures_with_short_summary() -> None:
    run = parse_run("pytest", PYTEST_FAIL, 1)
    assert (run.runner, run.passed, run.failed, run.errors, run.exit_code, run.ok) == ("pytest", 3, 2, 0, 1, False)
    assert run.failing_ids == ("tests/test_retry.py::test_backoff_cap", "tests/test_retry.py::test_jitter")
    assert run.passed_groups == ()  # the progress line has F marks


def test_pytest_pass_and_quiet_and_verbose() -> None:
    ok = parse_run("pytest", PYTEST_PASS, 0)
    assert (ok.passed, ok.failed, ok.failing_ids, ok.ok, ok.clean) == (5, 0, (), True, True)
    assert ok.passed_groups == ("tests/test_retry.py",)

    q = parse_run("python -m pytest -q", PYTEST_Q_FAIL, None)
    assert (q.passed, q.failed, q.ok, q.exit_code) == (3, 1, False, None)
    assert q.failing_ids == ("tests/test_config.py::test_parse[with-spaces]",)

    v = parse_run("pytest -v", PYTEST_VERBOSE, 1)
    assert (v.passed, v.failed, v.errors) == (2, 1, 1)
    assert v.failing_ids == ("tests/test_retry.py::test_jitter", "tests/test_store.py::test_open")
    assert v.passing_ids == ("tests/test_retry.py::test_backoff_grows", "tests/test_retry.py::test_backoff_cap")


def test_pytest_collection_error() -> None:
    run = parse_run("pytest", PYTEST_COLLECTION_ERROR, 2)
    assert (run.passed, run.failed, run.errors, run.failing_ids, run.ok) == (0, 0, 1, ("tests/test_client.py",), False)


def test_pytest_ansi_colour_is_ignored() -> None:
    coloured = ("\x1b[31mFAILED\x1b[0m tests/t.py::test_a - assert 1 == 2\n"
                "\x1b[31m=== \x1b[1m1 failed\x1b[0m\x1b[31m in 0.01s ===\x1b[0m\n")
    run = parse_run("pytest --color=yes", coloured, 1)
    assert (run.failed, run.failing_ids) == (1, ("tests/t.py::test_a",))


UNITTEST_FAIL = """\
..F.E
======================================================================
ERROR: test_load (tests.test_config.ConfigTest.test_load)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/work/app/tests/test_config.py", line 14, in test_load
    load("missing.toml")
FileNotFoundError: [Errno 2] No such file or directory: 'missing.toml'

======================================================================
FAIL: test_parse (tests.test_config.ConfigTest.test_parse)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/work/app/tests/test_config.py", line 9, in test_parse
    self.assertEqual(parse("a=1"), {"a": 2})
AssertionError: {'a': 1} != {'a': 2}
- {'a': 1}
?       ^
+ {'a': 2}
?       ^


----------------------------------------------------------------------
Ran 5 tests in 0.003s

FAILED (failures=1, errors=1)
"""

UNITTEST_OLD_STYLE_AND_VERBOSE = """\
test_dump (tests.test_config.ConfigTest.test_dump) ... ok
test_parse (tests.test_config.ConfigTest.test_parse) ... ok
test_slow (tests.test_config.ConfigTest.test_slow) ... skipped 'slow'

----------------------------------------------------------------------
Ran 3 tests in 0.001s

OK (skipped=1)
"""


def test_unittest() -> None:
    run = parse_run("python -m unittest", UNITTEST_FAIL, 1)
    assert (run.runner, run.passed, run.failed, run.errors, run.skipped) == ("unittest", 3, 1, 1, 0)
    assert run.failing_ids == ("tests.test_config.ConfigTest.test_load", "tests.test_config.ConfigTest.test_parse")

    ok = parse_run("python -m unittest -v", UNITTEST_OLD_STYLE_AND_VERBOSE, 0)
    assert (ok.passed, ok.failed, ok.skipped, ok.clean) == (2, 0, 1, True)
    assert ok.passing_ids == ("tests.test_config.ConfigTest.test_dump", "tests.test_config.ConfigTest.test_parse")

    # Before Python 3.11 the parenthesis named the class only.
    old = parse_output(
        "FAIL: test_parse (tests.test_config.ConfigTest)\n\nRan 1 test in 0.001s\n\nFAILED (failures=1)\n")
    assert old.failing == ["tests.test_config.ConfigTest.test_parse"]


JEST_FAIL = """\

> app@1.0.0 test
> jest

 PASS  src/math.test.ts
 FAIL  src/retry.test.ts
  retry
    ✓ retries once (3 ms)
    ✕ caps the backoff (5 ms)
    nested
      ✕ keeps jitter positive (1 ms)
  ✓ top-level test (1 ms)

  ● retry › caps the backoff

    expect(received).toBe(expected) // Object.is equality

    Expected: 30
    Received: 60

       9 |   it("caps the backoff", () => {
      10 |     const b = backoff(10);
    > 11 |     expect(b).toBe(30);
         |               ^
      12 |   });
      13 | });

      at Object.toBe (src/retry.test.ts:11:15)

  ● retry › nested › keeps jitter positive

    expect(received).toBeGreaterThan(expected)

      at Object.toBeGreaterThan (src/retry.test.ts:17:20)

Test Suites: 1 failed, 1 passed, 2 total
Tests:       2 failed, 4 passed, 6 total
Snapshots:   0 total
Time:        1.234 s
Ran all test suites.
"""

JEST_PASS = """\
 PASS  src/math.test.ts
 PASS  src/retry.test.ts (5.1 s)

Test Suites: 2 passed, 2 total
Tests:       6 passed, 6 total
Snapshots:   0 total
Time:        1.02 s, estimated 2 s
Ran all test suites.
"""

JEST_SUITE_ERROR = """\
 FAIL  src/broken.test.ts
  ● Test suite failed to run

    Cannot find module './missing' from 'src/broken.test.ts'

Test Suites: 1 failed, 1 total
Tests:       0 total
Snapshots:   0 total
Time:        0.5 s
"""


def test_jest() -> None:
    run = parse_run("npm test", JEST_FAIL, 1)
    assert (run.runner, run.via, run.passed, run.failed, run.ok) == ("jest", "npm", 4, 2, False)
    assert run.failing_ids == (
        "src/retry.test.ts::retry › caps the backoff", "src/retry.test.ts::retry › nested › keeps jitter positive")
    assert run.passing_ids == ("src/retry.test.ts::retry › retries once", "src/retry.test.ts::top-level test")
    assert run.passed_groups == ("src/math.test.ts",)

    ok = parse_run("npx jest", JEST_PASS, 0)
    assert (ok.passed, ok.failed, ok.passed_groups, ok.clean) == (6, 0, ("src/math.test.ts", "src/retry.test.ts"), True)

    broken = parse_run("npx jest", JEST_SUITE_ERROR, 1)
    assert (broken.failing_ids, broken.passed, broken.failed) == (("src/broken.test.ts",), 0, 0)


VITEST_FAIL = """\

 RUN  v3.2.4 /work/web

 ✓ src/math.test.ts (2 tests) 2ms
 ❯ src/retry.test.ts (3 tests | 1 failed) 9ms
   ✓ retry > retries once 1ms
   × retry > caps the backoff 5ms
     → expected 60 to be 30 // Object.is equality
   ✓ retry > jitter 0ms

⎯⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/retry.test.ts > retry > caps the backoff
AssertionError: expected 60 to be 30 // Object.is equality

- Expected
+ Received

- 30
+ 60

 ❯ src/retry.test.ts:11:25
      9|   it('caps the backoff', () => {
     10|     expect(backoff(10)).toBe(30)
       |                         ^
     11|   })

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯

 Test Files  1 failed | 1 passed (2)
      Tests  1 failed | 4 passed (5)
   Start at  14:03:11
   Duration  412ms (transform 40ms, setup 0ms, collect 30ms, tests 11ms, environment 0ms, prepare 80ms)

"""

VITEST_PASS = """\

 RUN  v3.2.4 /work/web

 ✓ src/math.test.ts (2 tests) 2ms
 ✓ src/retry.test.ts (3 tests) 4ms

 Test Files  2 passed (2)
      Tests  5 passed (5)
   Start at  14:05:40
   Duration  380ms (transform 38ms, setup 0ms, collect 29ms, tests 6ms, environment 0ms, prepare 75ms)

"""


def test_vitest() -> None:
    run = parse_run("npx vitest run", VITEST_FAIL, 1)
    assert (run.runner, run.passed, run.failed, run.ok) == ("vitest", 4, 1, False)
    assert run.failing_ids == ("src/retry.test.ts::retry > caps the backoff",)
    assert run.passing_ids == ("src/retry.test.ts::retry > retries once", "src/retry.test.ts::retry > jitter")
    assert run.passed_groups == ("src/math.test.ts",)

    ok = parse_run("pnpm test", VITEST_PASS, 0)
    assert (ok.runner, ok.via, ok.passed, ok.failed, ok.clean) == ("vitest", "pnpm", 5, 0, True)
    assert ok.passed_groups == ("src/math.test.ts", "src/retry.test.ts")

    skipped = parse_output(" Test Files  3 passed (3)\n      Tests  10 passed | 2 skipped (12)\n")
    assert (skipped.passed, skipped.skipped, skipped.failed) == (10, 2, 0)


GO_FAIL = """\
--- FAIL: TestBackoff (0.00s)
    retry_test.go:12: backoff(10) = 60, want 30
--- FAIL: TestTable (0.00s)
    --- FAIL: TestTable/cap (0.00s)
        retry_test.go:30: got 60, want 30
FAIL
FAIL\texample.com/app/retry\t0.004s
ok  \texample.com/app/store\t0.010s
?   \texample.com/app/cmd/server\t[no test files]
# example.com/app/web [example.com/app/web.test]
web/handler_test.go:9:2: undefined: newHandler
FAIL\texample.com/app/web [build failed]
FAIL
"""

GO_VERBOSE_PASS = """\
=== RUN   TestBackoff
--- PASS: TestBackoff (0.00s)
=== RUN   TestTable
=== RUN   TestTable/cap
--- PASS: TestTable (0.00s)
    --- PASS: TestTable/cap (0.00s)
PASS
ok  \texample.com/app/retry\t0.005s
"""


def test_go_test() -> None:
    run = parse_run("go test ./...", GO_FAIL, 1)
    assert (run.runner, run.passed, run.failed, run.errors, run.ok) == ("go", None, 2, 1, False)
    assert run.failing_ids == (
        "example.com/app/retry::TestBackoff", "example.com/app/retry::TestTable",
        "example.com/app/retry::TestTable/cap", "example.com/app/web",
    )
    assert run.passed_groups == ("example.com/app/store",)

    ok = parse_run("go test -v ./retry", GO_VERBOSE_PASS, 0)
    assert (ok.passed, ok.failed, ok.clean) == (2, 0, True)
    assert ok.passing_ids == (
        "example.com/app/retry::TestBackoff", "example.com/app/retry::TestTable",
        "example.com/app/retry::TestTable/cap",
    )
    assert ok.passed_groups == ("example.com/app/retry",)

    quiet_ok = parse_run("go test ./...", "ok  \texample.com/app/retry\t(cached)\n", 0)
    assert (quiet_ok.passed, quiet_ok.failed, quiet_ok.clean) == (None, 0, True)


CARGO_FAIL = """\
   Compiling retry v0.1.0 (/work/app)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.52s
     Running unittests src/lib.rs (target/debug/deps/retry-1a2b3c4d5e6f7a8b)

running 3 tests
test tests::backoff_grows ... ok
test tests::backoff_caps ... FAILED
test tests::slow_path ... ignored, needs network

failures:

---- tests::backoff_caps stdout ----

thread 'tests::backoff_caps' panicked at src/lib.rs:20:9:
assertion `left == right` failed
  left: 60
 right: 30
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    tests::backoff_caps

test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass `--lib`
"""

CARGO_PASS = """\
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.31s
     Running unittests src/lib.rs (target/debug/deps/retry-1a2b3c4d5e6f7a8b)

running 2 tests
test tests::backoff_caps ... ok
test tests::backoff_grows ... ok

test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

   Doc-tests retry

running 1 test
test src/lib.rs - backoff (line 5) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.12s

"""

CARGO_COMPILE_ERROR = """\
   Compiling retry v0.1.0 (/work/app)
error[E0425]: cannot find value `cap` in this scope
  --> src/lib.rs:4:15
   |
4  |     base.min(cap)
   |              ^^^ not found in this scope

For more information about this error, try `rustc --explain E0425`.
error: could not compile `retry` (lib test) due to 1 previous error
"""


def test_cargo_test() -> None:
    run = parse_run("cargo test", CARGO_FAIL, 101)
    assert (run.runner, run.passed, run.failed, run.skipped, run.ok) == ("cargo", 1, 1, 1, False)
    assert run.failing_ids == ("tests::backoff_caps",)
    assert run.passing_ids == ("tests::backoff_grows",)

    ok = parse_run("cargo test", CARGO_PASS, 0)
    assert (ok.passed, ok.failed, ok.clean) == (3, 0, True)
    assert ok.passing_ids == ("tests::backoff_caps", "tests::backoff_grows", "src/lib.rs - backoff (line 5)")

    broken = parse_run("cargo test", CARGO_COMPILE_ERROR, 101)
    assert (broken.errors, broken.failing_ids, broken.ok, broken.clean) == (1, (), False, False)


def test_make_test_reads_the_underlying_runner_and_unreadable_output() -> None:
    run = parse_run("make test", "python -m pytest -q\n" + PYTEST_Q_FAIL + "make: *** [Makefile:5: test] Error 1\n", 2)
    assert (run.runner, run.via, run.failed, run.exit_code) == ("pytest", "make", 1, 2)

    blind = parse_run("make test", "make: *** No rule to make target 'test'.  Stop.\n", 2)
    assert (blind.runner, blind.passed, blind.failed, blind.failing_ids, blind.ok) == ("make", None, None, (), False)
    assert parse_run("ls", PYTEST_FAIL, 0) is None  # output alone never makes a run


# -- failing then fixed -------------------------------------------------------------------------


def test_pytest_failure_fixed_by_a_clean_rerun() -> None:
    entries = [
        ("2026-01-01T10:00:00Z", "call_1", 4, "pytest", PYTEST_FAIL, 1),
        ("2026-01-01T10:01:00Z", "call_2", 6, "git diff", "diff --git ...", 0),
        ("2026-01-01T10:02:00Z", "call_3", 9, "pytest -q tests/test_retry.py", PYTEST_PASS, 0),
    ]
    fixes = failing_then_fixed(entries)
    first = RunRef("2026-01-01T10:00:00Z", "call_1", 4, "pytest")
    fixed = RunRef("2026-01-01T10:02:00Z", "call_3", 9, "pytest -q tests/test_retry.py")
    # The progress line "tests/test_retry.py ....." shows the whole file passing.
    assert fixes == [
        TestFix("tests/test_retry.py::test_backoff_cap", "pytest", first, first, fixed, "group_passed"),
        TestFix("tests/test_retry.py::test_jitter", "pytest", first, first, fixed, "group_passed"),
    ]


def test_clean_run_must_cover_the_failing_test() -> None:
    q_pass = "....                                                                     [100%]\n4 passed in 0.03s\n"
    fail = ("t0", "c1", 1, "pytest -q tests/test_config.py", PYTEST_Q_FAIL, 1)
    # A clean run of a different file does not fix it; a clean run of the whole suite does.
    assert failing_then_fixed([fail, ("t1", "c2", 2, "pytest -q tests/test_other.py", q_pass, 0)]) == []
    fixes = failing_then_fixed([fail, ("t1", "c2", 2, "pytest -q", q_pass, 0)])
    assert [(f.test_id, f.evidence, f.fixed.call_id) for f in fixes] == [
        ("tests/test_config.py::test_parse[with-spaces]", "clean_run", "c2")]
    # A -k filter narrows the run: not evidence.
    assert failing_then_fixed([fail, ("t1", "c2", 2, "pytest -q -k other", q_pass, 0)]) == []
    # Another folder: not evidence.
    assert failing_then_fixed([fail, ("t1", "c2", 2, "cd sub && pytest -q", q_pass, 0)]) == []
    # No tests ran: not evidence.
    assert failing_then_fixed([fail, ("t1", "c2", 2, "pytest -q", "no tests ran in 0.01s\n", 5)]) == []


def test_failures_that_persist_then_get_fixed_keep_first_and_last_failure() -> None:
    entries = [
        ("t0", "c0", 1, "pytest", PYTEST_FAIL, 1),
        ("t1", "c1", 3, "pytest -v", PYTEST_VERBOSE, 1),  # test_jitter still fails; test_backoff_cap now passes
        ("t2", "c2", 5, "pytest tests/test_retry.py", PYTEST_PASS, 0),
    ]
    h = analyze_test_runs(entries)
    assert len(h.runs) == 3
    got = [(f.test_id, f.first_failed.call_id, f.last_failed.call_id, f.fixed.call_id, f.evidence) for f in h.fixed]
    assert got == [
        ("tests/test_retry.py::test_backoff_cap", "c0", "c0", "c1", "listed_passed"),
        ("tests/test_retry.py::test_jitter", "c0", "c1", "c2", "group_passed"),
    ]
    # test_open errored in c1 and nothing ran tests/test_store.py since.
    assert [r.call_id for r in h.runs] == ["c0", "c1", "c2"]
    assert [(s.test_id, s.first_failed.call_id) for s in h.still_failing] == [("tests/test_store.py::test_open", "c1")]


def test_fixes_per_runner() -> None:
    jest = failing_then_fixed([("t0", "a", 1, "npm test", JEST_FAIL, 1), ("t1", "b", 2, "npx jest", JEST_PASS, 0)])
    assert [(f.test_id, f.evidence) for f in jest] == [
        ("src/retry.test.ts::retry › caps the backoff", "group_passed"),
        ("src/retry.test.ts::retry › nested › keeps jitter positive", "group_passed"),
    ]
    vitest = failing_then_fixed([("t0", "a", 1, "npx vitest run", VITEST_FAIL, 1),
                                 ("t1", "b", 2, "npx vitest run", VITEST_PASS, 0)])
    assert [(f.test_id, f.evidence) for f in vitest] == [
        ("src/retry.test.ts::retry > caps the backoff", "group_passed")]
    go = failing_then_fixed([("t0", "a", 1, "go test ./...", GO_FAIL, 1),
                             ("t1", "b", 2, "go test -v ./retry", GO_VERBOSE_PASS, 0)])
    assert [(f.test_id, f.evidence) for f in go] == [
        ("example.com/app/retry::TestBackoff", "listed_passed"),
        ("example.com/app/retry::TestTable", "listed_passed"),
        ("example.com/app/retry::TestTable/cap", "listed_passed"),
    ]  # the web package's build failure is still open
    cargo = failing_then_fixed([("t0", "a", 1, "cargo test", CARGO_FAIL, 101),
                                ("t1", "b", 2, "cargo test", CARGO_PASS, 0)])
    assert [(f.test_id, f.evidence) for f in cargo] == [("tests::backoff_caps", "listed_passed")]
    unittest = failing_then_fixed([("t0", "a", 1, "python -m unittest", UNITTEST_FAIL, 1),
                                   ("t1", "b", 2, "python -m unittest -v", UNITTEST_OLD_STYLE_AND_VERBOSE, 0)])
    assert [(f.test_id, f.evidence) for f in unittest] == [
        ("tests.test_config.ConfigTest.test_load", "clean_run"),
        ("tests.test_config.ConfigTest.test_parse", "listed_passed"),
    ]


def test_another_runner_never_fixes_a_test() -> None:
    entries = [("t0", "a", 1, "pytest", PYTEST_FAIL, 1), ("t1", "b", 2, "cargo test", CARGO_PASS, 0)]
    assert failing_then_fixed(entries) == []


def test_a_test_that_breaks_again_is_a_new_episode() -> None:
    entries = [
        ("t0", "a", 1, "pytest", PYTEST_FAIL, 1),
        ("t1", "b", 2, "pytest", PYTEST_PASS, 0),
        ("t2", "c", 3, "pytest", PYTEST_FAIL, 1),
        ("t3", "d", 4, "pytest", PYTEST_PASS, 0),
    ]
    fixes = [(f.test_id, f.first_failed.call_id, f.fixed.call_id) for f in failing_then_fixed(entries)]
    assert fixes == [
        ("tests/test_retry.py::test_backoff_cap", "a", "b"), ("tests/test_retry.py::test_jitter", "a", "b"),
        ("tests/test_retry.py::test_backoff_cap", "c", "d"), ("tests/test_retry.py::test_jitter", "c", "d"),
    ]


def test_a_failing_rerun_with_unknown_exit_code_is_not_a_fix() -> None:
    # exit 1 with output cut off after the summary line of another file
    entries = [("t0", "a", 1, "pytest", PYTEST_FAIL, 1), ("t1", "b", 2, "pytest", "", 1)]
    assert failing_then_fixed(entries) == []


def test_pytest_captured_log_lines_are_not_ids() -> None:
    out = (
        "------------------------------ Captured log call -------------------------------\n"
        "ERROR    app.retry:retry.py:20 giving up after 3 attempts\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_retry.py::test_give_up[3 tries] - assert False\n"
        "========================= 1 failed, 1 passed in 0.02s ==========================\n"
    )
    assert parse_run("pytest", out, 1).failing_ids == ("tests/test_retry.py::test_give_up[3 tries]",)


def test_path_pattern_options_narrow_the_scope() -> None:
    fail = ("t0", "a", 1, "npx jest", JEST_FAIL.replace(" PASS  src/math.test.ts\n", ""), 1)
    narrowed = ("t1", "b", 2, "npx jest --testPathPattern math", "Tests:       2 passed, 2 total\n", 0)
    assert failing_then_fixed([fail, narrowed]) == []
    whole = ("t1", "b", 2, "npx jest", "Tests:       6 passed, 6 total\n", 0)
    assert [f.evidence for f in failing_then_fixed([fail, whole])] == ["clean_run", "clean_run"]
