"""Reading test runners' output: counts, failing and passing test ids, passing groups.

Invariants:
- Every parser reads the runner's real output format (pytest, unittest, jest, vitest,
  go test, cargo test) after ANSI colour codes are removed, and states only what the output
  says: a count the output does not give is None.
- Ids are the runner's own where it has them (pytest ``tests/x.py::test_y[1]``, cargo
  ``tests::name``, unittest ``pkg.mod.Class.test``); jest, vitest and go ids are
  ``<file or package>::<test name>``, so that a test's file or package is its *group*.
- A *passed group* is a file or package the output shows passing as a whole (go
  ``ok pkg``, jest ``PASS file``, vitest ``✓ file``, a pytest progress line with no F/E).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


@dataclass
class ParsedOutput:
    """What one run's output said. ``summary``: the output stated counts."""

    runner: str
    passed: int | None = None
    failed: int | None = None
    errors: int | None = None
    skipped: int | None = None
    failing: list[str] = field(default_factory=list)
    passing: list[str] = field(default_factory=list)
    passed_groups: list[str] = field(default_factory=list)
    summary: bool = False

    def fail(self, tid: str) -> None:
        if tid and tid not in self.failing:
            self.failing.append(tid)

    def ok(self, tid: str) -> None:
        if tid and tid not in self.passing:
            self.passing.append(tid)

    def take_counts(self, text: str) -> None:
        """The counts of a jest or vitest summary ("1 failed, 3 passed, 4 total"): a count it
        does not name is 0, and these runners count no errors apart from failures."""
        self.summary = True
        counts = dict((w, int(n)) for n, w in re.findall(r"(\d+) (\w+)", text))
        self.failed, self.passed, self.skipped = counts.get("failed", 0), counts.get("passed", 0), counts.get("skipped", 0)
        self.errors = 0


# pytest ---------------------------------------------------------------------------------

_PYTEST_SUMMARY = re.compile(
    r"^=*\s*(?P<body>(?:no tests ran|\d+ (?:failed|passed|skipped|deselected|xfailed|xpassed|errors?|warnings?|rerun)"
    r"(?:, \d+ (?:failed|passed|skipped|deselected|xfailed|xpassed|errors?|warnings?|rerun))*))"
    r"(?: in [\d.]+s(?: \([\d:.]+\))?)?\s*=*\s*$"
)
# The id has no spaces outside its [parameters]: "ERROR    app:x.py:3 msg" (captured logs) is no id.
_PYTEST_SHORT = re.compile(r"^(FAILED|ERROR) (\S[^\s\[]*(?:\[.*?\])?)(?: - .*)?$")
_PYTEST_VERBOSE = re.compile(
    r"^(?:\[gw\d+\] \[\s*\d+%\] (?P<st1>PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (?P<id1>\S+(?:\[[^\]]*\])?)"
    r"|(?P<id2>\S+::\S+(?:\[[^\]]*\])?) (?P<st2>PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?:\s.*)?)$"
)
_PYTEST_PROGRESS = re.compile(r"^(?P<file>\S+\.py) (?P<marks>[.FEsxXR]+)\s*(?:\[\s*\d+%\])?$")
_PYTEST_PROGRESS_MORE = re.compile(r"^(?P<marks>[.FEsxXR]+)\s*\[\s*\d+%\]$")
_PYTEST_SIGNS = re.compile(r"^=+ (?:test session starts|short test summary info|FAILURES|ERRORS) =+$", re.M)


def _parse_pytest(lines: list[str]) -> ParsedOutput | None:
    p = ParsedOutput("pytest")
    seen = False
    last_file: str | None = None
    for ln in lines:
        m = _PYTEST_SUMMARY.match(ln)
        if m and (ln.startswith("=") or " in " in ln):
            seen = p.summary = True
            counts = {"failed": 0, "passed": 0, "skipped": 0, "errors": 0}
            for n, word in re.findall(r"(\d+) (\w+)", m.group("body")):
                key = {"error": "errors", "errors": "errors"}.get(word, word)
                if key in counts:
                    counts[key] += int(n)
            p.passed, p.failed, p.skipped, p.errors = (
                counts["passed"], counts["failed"], counts["skipped"], counts["errors"])
            continue
        m = _PYTEST_SHORT.match(ln)
        if m:
            seen = True
            p.fail(m.group(2).strip())
            continue
        m = _PYTEST_VERBOSE.match(ln)
        if m:
            seen = True
            st, tid = (m.group("st1"), m.group("id1")) if m.group("st1") else (m.group("st2"), m.group("id2"))
            if st in ("FAILED", "ERROR"):
                p.fail(tid)
            elif st in ("PASSED", "XFAIL"):
                p.ok(tid)
            continue
        m = _PYTEST_PROGRESS.match(ln)
        if m:
            seen = True
            last_file = m.group("file")
            if not set(m.group("marks")) & set("FE"):
                p.passed_groups.append(last_file)
            continue
        m = _PYTEST_PROGRESS_MORE.match(ln)
        if m and last_file and set(m.group("marks")) & set("FE") and last_file in p.passed_groups:
            p.passed_groups.remove(last_file)  # a long file's progress wraps onto more lines
    if not seen:
        return None
    return p


# unittest -------------------------------------------------------------------------------

_UT_HEADER = re.compile(r"^(FAIL|ERROR): (\S+) \(([^)]*)\)")
_UT_VERBOSE = re.compile(
    r"^(\S+) \(([^)]*)\)(?: \([^)]*\))? \.\.\. (ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$"
)
_UT_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s")
_UT_RESULT = re.compile(r"^(OK|FAILED)(?: \((.*)\))?$")


def _ut_id(method: str, where: str) -> str:
    return where if where.endswith("." + method) or where == method else f"{where}.{method}"


def _parse_unittest(lines: list[str]) -> ParsedOutput | None:
    p = ParsedOutput("unittest")
    total: int | None = None
    seen = False
    for ln in lines:
        m = _UT_HEADER.match(ln)
        if m:
            seen = True
            p.fail(_ut_id(m.group(2), m.group(3)))
            continue
        m = _UT_VERBOSE.match(ln)
        if m:
            seen = True
            tid = _ut_id(m.group(1), m.group(2))
            if m.group(3) in ("FAIL", "ERROR"):
                p.fail(tid)
            elif m.group(3) in ("ok", "expected failure"):
                p.ok(tid)
            continue
        m = _UT_RAN.match(ln)
        if m:
            seen = True
            total = int(m.group(1))
            continue
        m = _UT_RESULT.match(ln)
        if m and total is not None:
            detail = dict(
                (k.strip(), int(v)) for k, v in re.findall(r"([a-z ]+)=(\d+)", m.group(2) or "")
            )
            p.failed = detail.get("failures", 0) + detail.get("unexpected successes", 0)
            p.errors = detail.get("errors", 0)
            p.skipped = detail.get("skipped", 0)
            p.passed = max(total - p.failed - p.errors - p.skipped, 0)
            p.summary = True
    if not seen:
        return None
    if total == 0 and not p.summary:  # "NO TESTS RAN" (3.12+)
        p.passed = p.failed = p.errors = 0
        p.summary = True
    return p


# jest -----------------------------------------------------------------------------------

_JEST_FILE = re.compile(r"^\s*(PASS|FAIL)\s+(\S+)(?:\s+\(.*\))?\s*$")
_JEST_TEST = re.compile(r"^(\s*)([✓✕×√○✎])\s+(?:(?:skipped|todo)\s+)?(.*?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$")
_JEST_BULLET = re.compile(r"^\s*● (.+?)\s*$")
_JEST_TESTS = re.compile(r"^Tests:\s+(.*\d+ total)\s*$")


def _parse_jest(lines: list[str]) -> ParsedOutput | None:
    p = ParsedOutput("jest")
    current: str | None = None
    stack: list[tuple[int, str]] = []
    in_tree = False  # the verbose tree under "PASS/FAIL file", before the ● details
    for ln in lines:
        m = _JEST_FILE.match(ln)
        if m:
            current, stack, in_tree = m.group(2), [], True
            if m.group(1) == "PASS":
                p.passed_groups.append(current)
            continue
        m = _JEST_TESTS.match(ln)
        if m:
            p.take_counts(m.group(1))
            continue
        if current is None:
            continue
        m = _JEST_BULLET.match(ln)
        if m:
            in_tree = False
            title = m.group(1)
            if title == "Console":
                continue
            p.fail(current if title == "Test suite failed to run" else f"{current}::{title}")
            continue
        m = _JEST_TEST.match(ln)
        if m:
            indent = len(m.group(1))
            while stack and stack[-1][0] >= indent:
                stack.pop()
            tid = f"{current}::" + " › ".join([s for _, s in stack] + [m.group(3)])
            if m.group(2) in "✕×":
                p.fail(tid)
            elif m.group(2) in "✓√":
                p.ok(tid)
            continue
        if in_tree and ln.startswith("  ") and ln.strip():
            indent = len(ln) - len(ln.lstrip())  # a describe block: nest by indentation
            while stack and stack[-1][0] >= indent:
                stack.pop()
            stack.append((indent, ln.strip()))
        elif not ln.strip():
            in_tree = False
    if not p.summary and not p.failing and not p.passing:
        return None
    return p


# vitest ---------------------------------------------------------------------------------

_VITEST_FAIL = re.compile(r"^\s*FAIL\s+(\S+?)(?: > (.+?))?(?: \[ .* \])?\s*$")
_VITEST_FILE = re.compile(r"^ ?([✓❯×↓]) (\S+\.\w+) \((\d+) tests?(?: \| [^)]*)?\)")
_VITEST_TEST = re.compile(r"^(\s+)([✓×↓]) (.+?)(?: \d+(?:\.\d+)?m?s)?\s*$")
_VITEST_TESTS = re.compile(r"^\s*Tests\s+(.*)\((\d+)\)\s*$")


def _parse_vitest(lines: list[str]) -> ParsedOutput | None:
    p = ParsedOutput("vitest")
    current: str | None = None
    for ln in lines:
        m = _VITEST_TESTS.match(ln)
        if m:
            p.take_counts(m.group(1))
            continue
        m = _VITEST_FAIL.match(ln)
        if m:
            p.fail(f"{m.group(1)}::{m.group(2)}" if m.group(2) else m.group(1))
            continue
        m = _VITEST_FILE.match(ln)
        if m:
            current = m.group(2)
            if m.group(1) == "✓":
                p.passed_groups.append(current)
            continue
        m = _VITEST_TEST.match(ln)
        if m and current:
            name = m.group(3)
            if name.startswith(current + " > "):
                name = name[len(current) + 3:]
            if m.group(2) == "×":
                p.fail(f"{current}::{name}")
            elif m.group(2) == "✓":
                p.ok(f"{current}::{name}")
    if not p.summary and not p.failing:
        return None
    return p


# go test --------------------------------------------------------------------------------

_GO_RESULT = re.compile(r"^(\s*)--- (PASS|FAIL|SKIP): (\S+) \(")
_GO_PKG = re.compile(r"^(ok|FAIL|\?)\s+(\S+)(?:\s+(.*))?$")


def _parse_go(lines: list[str]) -> ParsedOutput | None:
    p = ParsedOutput("go")
    pending: list[tuple[str, str, int]] = []  # (status, name, indent)
    seen = False
    failed = passed = skipped = errors = 0
    any_pass_line = False

    def flush(pkg: str | None) -> None:
        nonlocal failed, passed, skipped
        for st, name, indent in pending:
            tid = f"{pkg}::{name}" if pkg else name
            if st == "FAIL":
                p.fail(tid)
                failed += indent == 0
            elif st == "PASS":
                p.ok(tid)
                passed += indent == 0
            else:
                skipped += indent == 0
        pending.clear()

    for ln in lines:
        m = _GO_RESULT.match(ln)
        if m:
            seen = True
            any_pass_line = any_pass_line or m.group(2) == "PASS"
            pending.append((m.group(2), m.group(3), len(m.group(1))))
            continue
        m = _GO_PKG.match(ln)
        if m and ("/" in m.group(2) or "." in m.group(2) or m.group(3)) and not m.group(2).startswith("["):
            seen = True
            status, pkg, rest = m.group(1), m.group(2), m.group(3) or ""
            if status == "ok":
                p.passed_groups.append(pkg)
            elif status == "FAIL" and ("[build failed]" in rest or "[setup failed]" in rest):
                p.fail(pkg)
                errors += 1
            elif status == "FAIL" and not any(st == "FAIL" for st, _, _ in pending):
                p.fail(pkg)  # the package failed without a failing test: a panic in init, TestMain, ...
                errors += 1
            flush(pkg)
    flush(None)
    if not seen:
        return None
    p.failed, p.errors, p.skipped = failed, errors, skipped
    p.passed = passed if any_pass_line else None
    p.summary = bool(p.passed_groups or p.failing)
    return p


# cargo test -----------------------------------------------------------------------------

_CARGO_TEST = re.compile(r"^test (.+?) \.\.\. (ok|FAILED|ignored)(?:,.*)?$")
_CARGO_RESULT = re.compile(
    r"^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured; (\d+) filtered out"
)
_CARGO_COMPILE = re.compile(r"^error(?:\[E\d+\])?: could not compile")


def _parse_cargo(lines: list[str]) -> ParsedOutput | None:
    p = ParsedOutput("cargo")
    seen = False
    in_failures = False
    for ln in lines:
        m = _CARGO_RESULT.match(ln)
        if m:
            seen = p.summary = True
            p.passed = (p.passed or 0) + int(m.group(2))
            p.failed = (p.failed or 0) + int(m.group(3))
            p.skipped = (p.skipped or 0) + int(m.group(4))
            p.errors = p.errors or 0
            in_failures = False
            continue
        m = _CARGO_TEST.match(ln)
        if m:
            seen = True
            if m.group(2) == "FAILED":
                p.fail(m.group(1))
            elif m.group(2) == "ok":
                p.ok(m.group(1))
            continue
        if _CARGO_COMPILE.match(ln):
            seen = True
            p.errors = (p.errors or 0) + 1
            continue
        if ln == "failures:":
            in_failures = True
            continue
        if in_failures and ln.startswith("    ") and ln.strip() and " " not in ln.strip():
            p.fail(ln.strip())
    if not seen:
        return None
    if p.errors and not p.summary:
        p.failed, p.passed = p.failed or 0, p.passed or 0
    return p


_PARSERS = {
    "pytest": _parse_pytest, "unittest": _parse_unittest, "jest": _parse_jest, "vitest": _parse_vitest,
    "go": _parse_go, "cargo": _parse_cargo,
}
_SIGNATURES = {
    "pytest": _PYTEST_SIGNS,
    "unittest": re.compile(r"^Ran \d+ tests? in [\d.]+s$", re.M),
    "jest": re.compile(r"^Tests:\s+.*\d+ total", re.M),
    "vitest": re.compile(r"^\s*Test Files\s+.*\(\d+\)\s*$", re.M),
    "go": re.compile(r"^(?:--- (?:PASS|FAIL): |ok  \t|FAIL\t)", re.M),
    "cargo": re.compile(r"^test result: (?:ok|FAILED)\.|^running \d+ tests?$", re.M),
}


def parse_output(output: str, hint: str | None = None) -> ParsedOutput | None:
    """Counts and ids from a test run's output. ``hint`` is the command's runner; the
    output's own signature decides when the command was a wrapper (npm, make)."""
    text = _ANSI.sub("", output).replace("\r\n", "\n")
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    order = [hint] if hint in _PARSERS else []
    order += [r for r in _PARSERS if r not in order and _SIGNATURES[r].search(text)]
    # pytest's -q output has no banner: its summary line alone identifies it.
    if "pytest" not in order and any(_PYTEST_SUMMARY.match(ln) and " in " in ln for ln in lines[-15:]):
        order.append("pytest")
    for r in order:
        parsed = _PARSERS[r](lines)
        if parsed is not None:  # a test that failed anywhere in the output is not passing
            parsed.passing = [t for t in parsed.passing if t not in parsed.failing]
        if parsed is not None and (
            parsed.summary or parsed.failing or parsed.passing or parsed.passed_groups or parsed.errors
        ):
            return parsed
    return None
