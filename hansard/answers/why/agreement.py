"""One line, one answer, checked: a file's lines asked every way hansard answers them, each
answer compared with the whole file's.

The ways: the whole file (the reference, fresh), each line alone, ranges that hold lines, the
file's bytes as an editor sends them (``contents``), the why-result cache (a line asked before
its file and after it, the file after a line), `log FILE:N` (code_history of a line), and `log
FILE` / `log FILE --symbol S`, whose session entries must count exactly the lines the whole
file's answer gives each session (in the symbol's span). The language server and the web page
ask the whole file (with the buffer's bytes, or as it is), so these ways are theirs too.

Always true of a report: every difference names the way, the question asked, the line and both
answers; ``asked`` counts the questions of each way and ``lines`` the line answers compared.
Reading only: the caller's request keeps each answer in the why-result cache (``keep``), which
the cached ways then ask.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from hansard.store.interfaces import Store

# What `log FILE:N` shows of a line's answer, by its name there and in `why`'s answer.
LOG_FIELDS = (("attribution", "kind"), ("session_id", "session_id"), ("message_index", "message_index"),
              ("tool_call_id", "tool_call_id"), ("commit", "commit"), ("rule", "rule"))
BUDGET = 10**7  # code_history's token budget here: no entry is left out


class Report:
    """What one file's check found."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.asked: dict[str, int] = {}  # way -> questions asked that way
        self.lines: dict[str, int] = {}  # way -> line answers compared
        self.differences: list[dict[str, Any]] = []

    def count(self, way: str, lines: int) -> None:
        self.asked[way] = self.asked.get(way, 0) + 1
        self.lines[way] = self.lines.get(way, 0) + lines

    def differ(self, way: str, asked: str, line: int | None, expected: Any, got: Any) -> None:
        self.differences.append({"way": way, "asked": asked, "line": line, "expected": expected, "got": got})

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "asked": self.asked, "lines": self.lines, "differences": self.differences}


def check_file(store: Store, top: str, rel: str, lines: Iterable[int], ranges: Iterable[tuple[int, int]] = (),
               symbols: Iterable[str] = (), *, rev: str | None = None,
               keep: Callable[[], object] | None = None) -> Report:
    """Ask ``rel`` (a path in the work tree at ``top``) every way, and report each line answer
    that is not the whole file's: ``lines`` alone and through `log FILE:N`, ``ranges`` (first,
    last), the file through `log FILE` and each of ``symbols`` through `log FILE --symbol`.
    With ``rev``, the file at that revision, asked the ways `why --rev` is (`log` and an
    editor's buffer ask the working tree). ``keep``: the caller's request keeping what a
    question worked out, after each (``hansard.app.house.Request.keep``), as `why` is kept."""
    from hansard.answers.why import explain
    from hansard.files import safeopen

    report = Report(rel)
    whole = explain(store, rel, rev=rev, cwd=top, cache=False)
    report.count("file", len(whole["lines"]))
    ref: dict[int, Mapping[str, Any]] = {ln["line"]: ln for ln in whole["lines"]}
    lines = sorted(set(lines))

    def compare(way: str, spec: str, **kw: Any) -> None:
        ans = explain(store, spec, rev=rev, cwd=top, **kw)
        if keep is not None:
            keep()
        report.count(way, len(ans["lines"]))
        for ln in ans["lines"]:
            if dict(ln) != ref.get(ln["line"]):
                report.differ(way, spec, ln["line"], ref.get(ln["line"]), ln)

    if rev is None:
        compare("contents", rel, contents=safeopen.read_bytes(os.path.join(top, rel), follow=True), cache=False)
    if lines:
        compare("cached line before its file", f"{rel}:{lines[0]}")
        compare("cached file after a line", rel)
    for n in lines:
        compare("alone", f"{rel}:{n}", cache=False)
        compare("cached line", f"{rel}:{n}")
    for first, last in ranges:
        compare("range", f"{rel}:{first}-{last}", cache=False)
    if rev is not None:
        return report
    for n in lines:
        _log_line(store, top, rel, n, ref, report)
    _log_counts(store, top, rel, None, ref, report)
    for name in symbols:
        _log_counts(store, top, rel, name, ref, report)
    return report


def _log_line(store: Store, top: str, rel: str, n: int, ref: dict[int, Mapping[str, Any]], report: Report) -> None:
    """`log FILE:N`: its entry says what `why` says of line N."""
    from hansard.answers.code_history import code_history

    spec = f"{rel}:{n}"
    entries = code_history(store, spec, cwd=top, token_budget=BUDGET, render=_no_tree)["entries"]
    report.count("log FILE:N", len(entries))
    want = {k: ref[n].get(w) for k, w in LOG_FIELDS}
    got = [{k: e.get(k) for k, _ in LOG_FIELDS} for e in entries]
    if got != [want]:
        report.differ("log FILE:N", spec, n, [want], got)


def _log_counts(store: Store, top: str, rel: str, symbol: str | None, ref: dict[int, Mapping[str, Any]],
                report: Report) -> None:
    """`log FILE` (`--symbol S`): a session entry for every session the file's (the symbol's)
    lines name, counting exactly those lines."""
    from hansard.answers.code_history import SymbolSpans, code_history

    span = None
    if symbol is not None:
        from hansard.files import safeopen

        data = safeopen.read_bytes(os.path.join(top, rel), follow=True)
        span = SymbolSpans(store, top, symbol, rel).span_in(data, rel, symbol)
        if span is None:
            return
    want: dict[str, int] = {}
    for n, ln in ref.items():
        if ln.get("session_id") and (span is None or span[0] <= n <= span[1]):
            want[ln["session_id"]] = want.get(ln["session_id"], 0) + 1
    result = code_history(store, rel, symbol=symbol, cwd=top, token_budget=BUDGET, render=_no_tree)
    got = {e["session_id"]: e.get("lines") for e in result["entries"] if e["kind"] == "session"}
    report.count("log FILE" if symbol is None else "log --symbol", len(got))
    if {sid: n for sid, n in got.items() if n} != want:
        asked = rel if symbol is None else f"{rel} --symbol {symbol}"
        report.differ("log FILE" if symbol is None else "log --symbol", asked, None, want, got)


def _no_tree(result: Mapping[str, object]) -> str:
    return ""
