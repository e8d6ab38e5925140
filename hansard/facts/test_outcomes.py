"""Test runs read from shell tool calls, and the tests a session broke and then fixed.

Invariants:
- A tool call is a test run only when its command runs a recognised test command: pytest
  (also ``python -m pytest``), ``python -m unittest``, jest, vitest, ``go test``,
  ``cargo test``, ``npm``/``pnpm``/``yarn test`` and ``make test``, also inside
  ``bash -lc "..."``, after ``cd dir &&``, environment assignments, ``env``, ``timeout``,
  ``uv run``/``poetry run``/``npx`` and the like. Output that merely looks like a test
  report (``cat test.log``) is not a run.
- The output decides the format: ``npm test`` that ran jest is parsed as jest. Counts that
  the output does not state are None, never guessed. Test ids and groups are described in
  ``runner_output``, which reads each runner's format.
- A failing test is *fixed* by a later run of the same format that (1) lists it as passed,
  or (2) lists its whole group as passed (go ``ok pkg``, jest ``PASS file``, vitest
  ``✓ file``, a pytest progress line without F/E) in a run without name filters, or (3) covers it (same folder, no
  narrower target or filter) and passes cleanly: no failures, no errors, some tests ran,
  exit code 0 or unknown. Time alone is never evidence.

Input is plain tuples ``(timestamp, call_id, message_index, command, output, exit_code)``
in time order; nothing here reads the store.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from hansard.facts.runner_output import parse_output

RunEntry = tuple[str | None, str | None, int | None, "str | Sequence[str]", str | None, int | None]

# -- commands --------------------------------------------------------------------------

_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "fish"})
_PREFIX_CMDS = frozenset({"time", "nice", "nohup", "command", "exec", "stdbuf", "caffeinate", "xvfb-run"})
_RUNNERS_FOR = frozenset({"uv", "poetry", "pipenv", "pdm", "rye", "hatch"})  # `<x> run <cmd>`
_NPX = frozenset({"npx", "bunx", "pnpx"})
# Options that narrow which tests run: a run with them only covers runs with the same ones.
_FILTER_OPTS = {
    "pytest": frozenset({"-k", "-m", "--deselect", "--ignore", "--ignore-glob", "--lf", "--last-failed", "--sw",
                         "--stepwise"}),
    "unittest": frozenset({"-k", "-p", "--pattern"}),
    "go": frozenset({"-run", "--run", "-skip", "--skip"}),
    "jest": frozenset({"-t", "--testNamePattern", "--testPathPattern", "--testPathPatterns", "--onlyChanged", "-o",
                       "--changedSince", "--findRelatedTests", "--selectProjects", "--shard"}),
    "vitest": frozenset({"-t", "--testNamePattern", "--changed", "--project", "--shard"}),
    "cargo": frozenset({"--test", "--lib", "--bin", "--bins", "--doc", "--tests", "--example", "--exclude"}),
}
_VALUE_OPTS = {
    "pytest": frozenset({
        "-k", "-m", "-p", "-c", "-o", "-n", "-W", "-r", "--rootdir", "--tb", "--maxfail", "--deselect", "--ignore",
        "--ignore-glob", "--junitxml", "--durations", "--cov", "--cov-report", "--confcutdir", "--basetemp",
        "--log-level", "--color", "--capture", "--import-mode",
    }),
    "go": frozenset({"-run", "-skip", "-count", "-timeout", "-p", "-parallel", "-tags", "-cpu", "-coverprofile",
                     "-covermode", "-coverpkg", "-bench", "-benchtime", "-o", "-exec", "-vet", "-shuffle"}),
    "cargo": frozenset({"-p", "--package", "--test", "--bin", "--example", "--features", "-F", "--target",
                        "--exclude", "-j", "--jobs", "--profile", "--manifest-path", "--color"}),
    "jest": frozenset({"-t", "--testNamePattern", "-c", "--config", "--maxWorkers", "-w", "--reporters",
                       "--testPathPattern", "--testPathPatterns", "--changedSince", "--shard", "--testTimeout",
                       "--selectProjects"}),
    "vitest": frozenset({"-t", "--testNamePattern", "-c", "--config", "--reporter", "--project", "--root", "-r",
                         "--dir", "--shard", "--pool", "--environment", "--mode", "--testTimeout"}),
    "unittest": frozenset({"-k", "-p", "--pattern", "-s", "--start-directory", "-t", "--top-level-directory"}),
}


@dataclass(frozen=True, slots=True)
class TestCommand:
    """A recognised test command. ``runner``: pytest, unittest, jest, vitest, go, cargo,
    npm, pnpm, yarn or make. ``scope`` describes what it ran, for comparing runs."""

    __test__ = False  # not a pytest test class

    runner: str
    cwd: str  # from `cd x &&`, "" when none
    targets: tuple[str, ...]  # paths, packages or modules named on the command line
    filters: tuple[str, ...]  # options narrowing the tests (-k, -run, -t, name filters)


def _tokens(cmd: str) -> list[str]:
    cmd = cmd.replace("\\\n", " ")
    lex = shlex.shlex(cmd, posix=True, punctuation_chars=";&|()<>")
    lex.whitespace_split = True
    lex.commenters = ""
    try:
        return list(lex)
    except ValueError:  # unbalanced quotes: a best-effort split is enough to spot a test command
        return cmd.split()


def _segments(tokens: list[str]) -> list[list[str]]:
    """Commands separated by ; && || & and newlines; of a pipeline, its first command;
    redirections removed."""
    out: list[list[str]] = []
    cur: list[str] = []
    skip_pipe = False
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t in (";", "&&", "||", "&", ";;", "(", ")", "\n"):
            if cur:
                out.append(cur)
            cur, skip_pipe = [], False
        elif t in ("|", "|&"):
            skip_pipe = True
        elif t and t[0] in "<>" and set(t) <= set("<>&|"):
            if cur and cur[-1].isdigit():
                cur.pop()
            i += 1  # the redirection target
            if i < len(tokens) and tokens[i] == "&":  # `>&` split as `>` `&`
                i += 1
        elif not skip_pipe:
            cur.append(t)
        i += 1
    if cur:
        out.append(cur)
    return out


def _strip_prefixes(seg: list[str]) -> list[str]:
    i = 0
    while i < len(seg):
        t = seg[i]
        base = posixpath.basename(t)
        if _ENV_ASSIGN.match(t):
            i += 1
        elif base == "env":
            i += 1
            while i < len(seg) and (seg[i].startswith("-") or _ENV_ASSIGN.match(seg[i])):
                i += 1
        elif base in _PREFIX_CMDS:
            i += 1
            while i < len(seg) and seg[i].startswith("-"):
                i += 1
        elif base in ("timeout", "gtimeout"):
            i += 1
            while i < len(seg) and seg[i].startswith("-"):
                i += 2 if seg[i] in ("-s", "--signal", "-k", "--kill-after") else 1
            i += 1  # the duration
        elif base in _RUNNERS_FOR and i + 1 < len(seg) and seg[i + 1] == "run":
            i += 2
            while i < len(seg) and seg[i].startswith("-"):
                i += 1
        elif base in _NPX:
            i += 1
            while i < len(seg) and seg[i].startswith("-"):
                i += 1
        elif base == "pnpm" and i + 1 < len(seg) and seg[i + 1] in ("exec", "dlx"):
            i += 2
        else:
            break
    return seg[i:]


def _split_args(args: list[str], runner: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(targets, filters) from a runner's arguments."""
    targets: list[str] = []
    filters: list[str] = []
    value_opts = _VALUE_OPTS.get(runner, frozenset())
    filter_opts = _FILTER_OPTS.get(runner, frozenset())
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            if runner == "cargo":  # after --: libtest's own options and name filters
                filters += [x for x in args[i + 1:] if not x.startswith("-") or x == "--exact"]
                break
            i += 1
            continue
        if a.startswith("-"):
            name, eq, val = a.partition("=")
            takes = name in value_opts and not eq
            if name in filter_opts or (runner == "go" and name.lstrip("-") in ("run", "skip")):
                filters.append(name + "=" + (val if eq else (args[i + 1] if takes and i + 1 < len(args) else "")))
            i += 2 if takes else 1
            continue
        if runner == "cargo":
            filters.append(a)  # cargo's positional argument filters test names
        else:
            targets.append(a)
        i += 1
    return tuple(targets), tuple(filters)


def _identify(seg: list[str], cwd: str) -> TestCommand | list[str] | None:
    """A TestCommand, or the inner command of `bash -c`, or None."""
    seg = _strip_prefixes(seg)
    if not seg:
        return None
    prog = posixpath.basename(seg[0])
    args = seg[1:]
    if prog in _SHELLS:
        for j, a in enumerate(args):
            if a.startswith("-") and not a.startswith("--") and "c" in a[1:] and j + 1 < len(args):
                return [args[j + 1]]
        return None
    if re.fullmatch(r"python[0-9.]*|pypy[0-9.]*|py", prog):
        while args and args[0].startswith("-") and args[0] != "-m":
            args = args[1:]
        if len(args) >= 2 and args[0] == "-m":
            mod, rest = args[1], args[2:]
            if mod in ("pytest", "py.test"):
                return TestCommand("pytest", cwd, *_split_args(rest, "pytest"))
            if mod == "unittest":
                rest = [a for a in rest if a != "discover"]
                return TestCommand("unittest", cwd, *_split_args(rest, "unittest"))
        return None
    if prog in ("pytest", "py.test"):
        return TestCommand("pytest", cwd, *_split_args(args, "pytest"))
    if prog in ("jest", "vitest"):
        if prog == "vitest" and args and args[0] in ("run", "watch", "dev"):
            args = args[1:]
        return TestCommand(prog, cwd, *_split_args(args, prog))
    if prog == "go" and args[:1] == ["test"]:
        targets, filters = _split_args(args[1:], "go")
        return TestCommand("go", cwd, targets or (".",), filters)
    if prog == "cargo":
        rest = args[1:] if args[:1] and args[0].startswith("+") else args  # cargo +nightly test
        if rest[:1] == ["test"]:
            return TestCommand("cargo", cwd, *_split_args(rest[1:], "cargo"))
        return None
    if prog in ("npm", "pnpm", "yarn"):
        rest = list(args)
        while rest and rest[0].startswith("-"):
            takes_value = rest[0] in ("--filter", "-F", "--prefix", "-C", "--dir", "-w", "--workspace")
            rest = rest[2:] if takes_value else rest[1:]
        if rest[:1] in (["run"], ["run-script"]):
            rest = rest[1:]
        if rest and re.fullmatch(r"t|tst|test(?:[:_-][\w:-]*)?", rest[0]):
            script = "test" if rest[0] in ("t", "tst") else rest[0]
            return TestCommand(prog, cwd, (script,), tuple(a for a in rest[1:] if a != "--"))
        if prog in ("yarn", "pnpm") and rest and rest[0] in ("jest", "vitest"):
            tool = rest[0]
            r = rest[1:]
            if tool == "vitest" and r and r[0] in ("run", "watch"):
                r = r[1:]
            return TestCommand(tool, cwd, *_split_args(r, tool))
        return None
    if prog in ("make", "gmake"):
        rest = list(args)
        sub = cwd
        make_targets: list[str] = []
        i = 0
        while i < len(rest):
            a = rest[i]
            if a in ("-C", "--directory") and i + 1 < len(rest):
                sub = posixpath.normpath(posixpath.join(sub, rest[i + 1]))
                i += 2
                continue
            if not a.startswith("-") and "=" not in a:
                make_targets.append(a)
            i += 1
        tests = tuple(t for t in make_targets if re.fullmatch(r"tests?(?:[-_:.]\w[\w:.-]*)?", t))
        if tests:
            return TestCommand("make", sub, tests, ())
        return None
    return None


def recognise(command: str | Sequence[str], _depth: int = 0) -> TestCommand | None:
    """The test command run by a shell command line (or argv list), or None."""
    if not isinstance(command, str):
        argv = list(command)
        if len(argv) >= 3 and posixpath.basename(argv[0]) in _SHELLS and argv[-2] in ("-c", "-lc", "-ic", "-lic"):
            return recognise(argv[-1], _depth + 1)
        command = shlex.join(argv)
    if _depth > 3:
        return None
    cwd = ""
    for line in command.splitlines() or [""]:
        for seg in _segments(_tokens(line)):
            seg_s = _strip_prefixes(seg)
            if seg_s and seg_s[0] in ("cd", "pushd"):
                dest = next((a for a in seg_s[1:] if not a.startswith("-")), "")
                if not dest or dest.startswith("/") or dest.startswith("~"):
                    cwd = posixpath.normpath(dest) if dest else ""
                else:
                    cwd = posixpath.normpath(posixpath.join(cwd, dest))
                continue
            found = _identify(seg, cwd)
            if isinstance(found, list):
                inner = recognise(found[0], _depth + 1)
                if inner is not None:
                    return replace(inner, cwd=posixpath.normpath(posixpath.join(cwd, inner.cwd)) if cwd else inner.cwd)
            elif found is not None:
                return found
    return None


# -- runs ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TestRun:
    """One test command and what its output said. ``runner`` is the output's format
    (pytest, unittest, jest, vitest, go, cargo), or the command's runner when the output
    could not be read; ``via`` names a wrapper (npm, pnpm, yarn, make)."""

    __test__ = False

    runner: str
    command: str
    passed: int | None
    failed: int | None
    failing_ids: tuple[str, ...]
    exit_code: int | None
    ok: bool | None
    errors: int | None = None
    skipped: int | None = None
    passing_ids: tuple[str, ...] = ()
    passed_groups: tuple[str, ...] = ()
    via: str | None = None
    scope: TestCommand | None = None
    timestamp: str | None = None
    call_id: str | None = None
    message_index: int | None = None

    @property
    def clean(self) -> bool:
        """Passed with no failures or errors, and some tests ran."""
        if self.exit_code not in (0, None) or self.failing_ids or self.failed or self.errors:
            return False
        if self.failed is None:
            return self.exit_code == 0 and bool(self.passed or self.passed_groups)
        return bool(self.passed or self.passed_groups)


def parse_run(
    command: str | Sequence[str], output: str | None, exit_code: int | None, *,
    timestamp: str | None = None, call_id: str | None = None, message_index: int | None = None,
) -> TestRun | None:
    """A TestRun when ``command`` runs tests, else None."""
    cmd = recognise(command)
    if cmd is None:
        return None
    text = command if isinstance(command, str) else shlex.join(command)
    wrapper = cmd.runner in ("npm", "pnpm", "yarn", "make")
    parsed = parse_output(output or "", None if wrapper else cmd.runner)
    if parsed is None:
        return TestRun(cmd.runner, text, None, None, (), exit_code, None if exit_code is None else exit_code == 0,
                       via=cmd.runner if wrapper else None,
                       scope=cmd, timestamp=timestamp, call_id=call_id, message_index=message_index)
    ok: bool | None
    if exit_code is not None:
        ok = exit_code == 0
    elif parsed.failed is None and not parsed.failing:
        ok = None
    else:
        ok = not parsed.failing and not parsed.failed and not parsed.errors
    return TestRun(
        parsed.runner, text, parsed.passed, parsed.failed, tuple(parsed.failing), exit_code, ok,
        errors=parsed.errors, skipped=parsed.skipped, passing_ids=tuple(parsed.passing),
        passed_groups=tuple(parsed.passed_groups), via=cmd.runner if wrapper else None, scope=cmd,
        timestamp=timestamp, call_id=call_id, message_index=message_index,
    )


def find_test_runs(entries: Iterable[RunEntry | TestRun]) -> list[TestRun]:
    """The test runs among ``(timestamp, call_id, message_index, command, output,
    exit_code)`` entries, in the same order."""
    out: list[TestRun] = []
    for e in entries:
        if isinstance(e, TestRun):
            out.append(e)
            continue
        ts, call_id, idx, command, output, code = e
        run = parse_run(command, output, code, timestamp=ts, call_id=call_id, message_index=idx)
        if run is not None:
            out.append(run)
    return out


# -- failing then fixed ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunRef:
    timestamp: str | None
    call_id: str | None
    message_index: int | None
    command: str


@dataclass(frozen=True, slots=True)
class TestFix:
    """``test_id`` failed in ``first_failed`` (and last in ``last_failed``), then passed in
    ``fixed``. ``evidence``: listed_passed, group_passed or clean_run (module docstring)."""

    __test__ = False

    test_id: str
    runner: str
    first_failed: RunRef
    last_failed: RunRef
    fixed: RunRef
    evidence: str


@dataclass(frozen=True, slots=True)
class StillFailing:
    test_id: str
    runner: str
    first_failed: RunRef
    last_failed: RunRef


def _ref(run: TestRun) -> RunRef:
    return RunRef(run.timestamp, run.call_id, run.message_index, run.command)


def _group(runner: str, tid: str) -> str | None:
    if runner in ("cargo", "unittest"):
        return None
    return tid.split("::", 1)[0] if "::" in tid else None


def _under(child: str, parent: str, runner: str) -> bool:
    """Is test id or target ``child`` inside target ``parent``?"""
    if runner in ("jest", "vitest"):  # positional arguments are path patterns, matched as substrings
        return parent in child.split("::", 1)[0]
    parent = parent.rstrip("/")
    if parent in ("", ".", "./...", "..."):
        return True
    if parent.endswith("/..."):
        parent = parent[:-4]
    child = child[2:] if child.startswith("./") else child
    parent = parent[2:] if parent.startswith("./") else parent
    seps = ("/", "::", ".") if runner == "unittest" else ("/", "::")
    return child == parent or any(child.startswith(parent + sep) for sep in seps)


_WRAPPERS = frozenset({"npm", "pnpm", "yarn", "make"})


def _covers(later: TestRun, earlier: TestRun, tid: str) -> bool:
    """Did ``later`` run every test that ``earlier`` ran, including ``tid``? Fails closed:
    another folder, another filter or a narrower target means no."""
    a, b = later.scope, earlier.scope
    if a is None or b is None or a.cwd != b.cwd:
        return False
    if a.filters and a.filters != b.filters:
        return False
    if a.runner in _WRAPPERS:
        # `npm test` / `make test` run the project's whole suite; other scripts only themselves.
        return a.targets in (("test",), ("tests",)) and not a.filters or (
            b.runner in _WRAPPERS and a.targets == b.targets and a.filters == b.filters)
    runner = later.runner
    if a.runner == "go":
        return all(any(_under(t, u, runner) for u in a.targets) for t in b.targets)
    if not a.targets:
        return True
    if any(_under(tid, u, runner) for u in a.targets):
        return True
    return b.runner not in _WRAPPERS and bool(b.targets) and all(
        any(_under(t, u, runner) for u in a.targets) for t in b.targets)


def _analyse(runs: list[TestRun]) -> tuple[list[TestFix], list[StillFailing]]:
    fixes: list[TestFix] = []
    # (runner, id) -> (first failing run, last failing run)
    open_: dict[tuple[str, str], tuple[TestRun, TestRun]] = {}
    for run in runs:
        for key, (first, last) in list(open_.items()):
            runner, tid = key
            if runner != run.runner or tid in run.failing_ids:
                continue
            evidence = None
            if tid in run.passing_ids:
                evidence = "listed_passed"
            elif (g := _group(runner, tid)) is not None and g in run.passed_groups and not (
                run.scope and run.scope.filters
            ):
                evidence = "group_passed"
            elif run.clean and _covers(run, last, tid):
                evidence = "clean_run"
            if evidence:
                fixes.append(TestFix(tid, runner, _ref(first), _ref(last), _ref(run), evidence))
                del open_[key]
        for tid in run.failing_ids:
            key = (run.runner, tid)
            first = open_[key][0] if key in open_ else run
            open_[key] = (first, run)
    still = [StillFailing(tid, r, _ref(f), _ref(last)) for (r, tid), (f, last) in open_.items()]
    return fixes, still


@dataclass(frozen=True, slots=True)
class TestHistory:
    __test__ = False

    runs: tuple[TestRun, ...]
    fixed: tuple[TestFix, ...]
    still_failing: tuple[StillFailing, ...]


def analyze_test_runs(entries: Iterable[RunEntry | TestRun]) -> TestHistory:
    """All test runs among ``entries``, the tests fixed, and those still failing at the end."""
    runs = find_test_runs(entries)
    fixes, still = _analyse(runs)
    return TestHistory(tuple(runs), tuple(fixes), tuple(still))


def failing_then_fixed(runs_in_time_order: Iterable[RunEntry | TestRun]) -> list[TestFix]:
    """Tests that failed in one run and passed in a later one (see the module docstring
    for what counts as passing). Entries are ``(timestamp, call_id, message_index,
    command, output, exit_code)`` tuples or TestRuns, in time order."""
    return _analyse(find_test_runs(runs_in_time_order))[0]
