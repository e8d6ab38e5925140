"""Running scenarios against hansard, and checking scenarios against themselves.

* ``scenario_env`` / ``env_for``: the environment a scenario is indexed under (its agent homes,
  a fresh store, HOME and XDG folders inside the build folder: never the real ones).
* ``answer``: index the scenario's homes and ask ``explain`` for every expected file.
* ``compare`` / ``table``: line-by-line differences, printed as a readable table.
* ``score``: the counts behind precision and recall (see ``scripts/accuracy.py``).
* ``self_check``: the expectations agree with git (``blame -w -M -C``) and with the Ledger
  (the named edit really added the line, before the commit, in this repository), so a wrong
  expectation is caught before it is blamed on the engine.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fixtures_repos.gitrepo import git_env
from fixtures_repos.scenarios import Expect, Scenario, split_lines
from fixtures_repos.writers import find_repo

FIELDS = ("kind", "session_id", "tool_call_id", "commit")
ZERO = "0" * 40


# -- environment ----------------------------------------------------------------------------


def env_for(scn: Scenario, store: Path) -> dict[str, str]:
    """Environment variables for indexing ``scn`` into a store folder ``store``."""
    home = store / "home"
    env = {var: str(path) for var, path in scn.homes.items()}
    env.update({"HANSARD_HOME": str(store), "HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share"),
                "XDG_CONFIG_HOME": str(home / ".config"), "TZ": "UTC"})
    return env


@contextlib.contextmanager
def scenario_env(scn: Scenario, store: Path) -> Iterator[None]:
    """Set (and afterwards restore) ``env_for`` in this process."""
    env = env_for(scn, store)
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def answer(scn: Scenario) -> dict[str, dict[str, Any]]:
    """Index the default homes (the environment must already point at the scenario's) and ask
    `why` of every expected file, as `hansard why --json` does (the application registers the
    repository first). Returns path -> the `why` contract dict."""
    from hansard.app.house import Hansard
    from hansard.ingest.run import index

    app = Hansard(sync=False)
    with app.request(write=True) as rq:
        index(rq.store)
        if scn.imports:
            from hansard.ingest.webchat_import import import_export

            for export in scn.imports:
                import_export(rq.store, export)
    with app.request() as rq:
        return {rel: dict(rq.why_answer(rel, rev=scn.rev, cwd=str(scn.repo))) for rel in scn.files}


# -- comparing ------------------------------------------------------------------------------


def actual_fields(line: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(line.get(f) for f in FIELDS)


def expected_fields(e: Expect) -> tuple[Any, ...]:
    return (e.kind, e.session_id, e.tool_call_id, e.commit)


def compare(scn: Scenario, answers: dict[str, dict[str, Any]]) -> dict[str, list[int]]:
    """path -> line numbers whose kind, session, tool call or commit differ (or are missing)."""
    out: dict[str, list[int]] = {}
    for rel, expects in scn.files.items():
        got = {ln["line"]: ln for ln in answers[rel]["lines"]}
        bad = [e.line for e in expects if e.line not in got or actual_fields(got[e.line]) != expected_fields(e)]
        bad += [n for n in got if n > len(expects)]
        if bad:
            out[rel] = sorted(bad)
    return out


class _Labels:
    """Short stable names for long ids (S1, S2 ... for sessions; T1 ... for tool calls)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.names: dict[str, str] = {}

    def __call__(self, value: str | None) -> str:
        if value is None:
            return "-"
        if value not in self.names:
            self.names[value] = f"{self.prefix}{len(self.names) + 1}"
        return self.names[value]

    def legend(self) -> list[str]:
        return [f"  {n} = {v}" for v, n in self.names.items()]


def table(scn: Scenario, rel: str, answer_: dict[str, Any]) -> str:
    """Expected vs actual for every line of one file."""
    got = {ln["line"]: ln for ln in answer_["lines"]}
    sess, tool, com = _Labels("S"), _Labels("T"), _Labels("C")
    rows = [("line", "content", "expected", "actual", "")]
    for e in scn.files[rel]:
        a = got.get(e.line)
        exp = f"{e.kind} {sess(e.session_id)} {tool(e.tool_call_id)} {com(e.commit)}"
        if a is None:
            act, ok = "(missing)", False
        else:
            act = f"{a['kind']} {sess(a.get('session_id'))} {tool(a.get('tool_call_id'))} {com(a.get('commit'))}"
            act += f" [{a.get('rule')}]"
            ok = actual_fields(a) == expected_fields(e)
        content = (a or {}).get("content", "")
        content = content if len(content) <= 44 else content[:41] + "..."
        rows.append((str(e.line), content, exp, act, "" if ok else "<<"))
    for n in sorted(set(got) - {e.line for e in scn.files[rel]}):
        rows.append((str(n), got[n].get("content", ""), "(none)", got[n]["kind"], "<<"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [f"{scn.name}: {rel}" + (f" @ {scn.rev}" if scn.rev else "")]
    for r in rows:
        lines.append("  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4])
    lines += ["sessions:", *sess.legend(), "tool calls:", *tool.legend(), "commits:", *com.legend()]
    return "\n".join(lines)


# -- scoring --------------------------------------------------------------------------------


@dataclass
class Counts:
    lines: int = 0
    positives: int = 0
    session_claims: int = 0
    session_correct: int = 0
    tool_claims: int = 0
    tool_correct: int = 0
    exact: int = 0  # lines whose kind, session, tool call and commit all match
    pasted_claims: int = 0  # lines answered `pasted` (they name a web chat, not an agent's session)
    pasted_correct: int = 0  # ... where the line was expected pasted from that chat

    def add(self, other: Counts) -> None:
        for k in self.__dataclass_fields__:
            setattr(self, k, getattr(self, k) + getattr(other, k))


def is_positive(e: Expect) -> bool:
    return e.kind in ("agent", "agent_modified") or (e.kind == "uncommitted" and e.session_id is not None)


def score(scn: Scenario, answers: dict[str, dict[str, Any]]) -> Counts:
    c = Counts()
    for rel, expects in scn.files.items():
        got = {ln["line"]: ln for ln in answers[rel]["lines"]}
        for e in expects:
            a = got.get(e.line, {})
            pos = is_positive(e)
            c.lines += 1
            c.positives += pos
            c.exact += bool(a) and actual_fields(a) == expected_fields(e)
            if a.get("kind") == "pasted":
                c.pasted_claims += 1
                c.pasted_correct += e.kind == "pasted" and a.get("session_id") == e.session_id
            elif a.get("session_id") is not None:
                c.session_claims += 1
                c.session_correct += pos and a["session_id"] == e.session_id
            if a.get("tool_call_id") is not None:
                c.tool_claims += 1
                c.tool_correct += pos and a["tool_call_id"] == e.tool_call_id
    return c


# -- self-checks ----------------------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=repo, env=git_env(), check=True,
                          capture_output=True, text=True).stdout


def blame_commits(repo: Path, rel: str, rev: str | None = None) -> list[str | None]:
    """The commit of every line per ``git blame --porcelain -w -M -C`` (None: not committed)."""
    out = git(repo, "blame", "--porcelain", "-w", "-M", "-C", *([rev] if rev else []), "--", rel)
    shas: list[str | None] = []
    pending = None
    for line in out.split("\n"):
        if line.startswith("\t"):
            shas.append(None if pending == ZERO else pending)
            continue
        head = line.split(" ", 1)[0]
        if len(head) == 40 and all(ch in "0123456789abcdef" for ch in head):
            pending = head
    return shas


def squash(s: str) -> str:
    return "".join(s.split())


def trivial(s: str) -> bool:
    sq = squash(s)
    return len(sq) < 10 or not any(ch.isalnum() for ch in sq)


def ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, " ".join(a.split()), " ".join(b.split()), autojunk=False).ratio()


def self_check(scn: Scenario) -> list[str]:
    """Problems with the scenario's own expectations (an empty list when it is sound)."""
    problems: list[str] = []
    common = find_repo(scn.repo)[1]
    times: dict[str, int] = {}

    def ctime(sha: str) -> int:
        if sha not in times:
            times[sha] = int(git(scn.repo, "show", "-s", "--format=%ct", sha).strip())
        return times[sha]

    applied = [e for e in scn.ledger.edits if e.status == "applied" and e.repo_common == common]
    for rel, expects in scn.files.items():
        text = git(scn.repo, "show", f"{scn.rev}:{rel}") if scn.rev else (scn.repo / rel).read_bytes().decode()
        content = split_lines(text)
        if [e.line for e in expects] != list(range(1, len(content) + 1)):
            problems.append(f"{rel}: expectations do not cover lines 1..{len(content)} in order")
            continue
        blamed = blame_commits(scn.repo, rel, scn.rev)
        for e, line, sha in zip(expects, content, blamed, strict=True):
            where = f"{rel}:{e.line} {line.strip()[:50]!r}"
            if e.commit != sha:
                problems.append(f"{where}: expected commit {e.commit} but git blame says {sha}")
                continue
            bound = ctime(sha) if sha else None
            before = [x for x in applied if bound is None or x.time.timestamp() <= bound]
            if e.kind in ("agent", "agent_modified") or (e.kind == "uncommitted" and e.tool_call_id):
                recs = [x for x in before if x.tool_call_id == e.tool_call_id]
                if not recs:
                    problems.append(f"{where}: no applied edit {e.tool_call_id} in this repository before the commit")
                    continue
                if any(x.session_id != e.session_id for x in recs):
                    problems.append(f"{where}: edit {e.tool_call_id} belongs to {recs[0].session_id}, not {e.session_id}")
                wrote = any(squash(a) == squash(line) for x in recs for a in x.added)
                if e.kind == "agent_modified":
                    if wrote or not any(ratio(a, line) >= 0.7 for x in recs for a in x.added):
                        problems.append(f"{where}: agent_modified, but {e.tool_call_id} added no similar, different line")
                elif not wrote:
                    problems.append(f"{where}: {e.tool_call_id} did not add this line")
            elif e.kind in ("human", "uncommitted"):
                if e.session_id or e.tool_call_id:
                    problems.append(f"{where}: {e.kind} with a session")
                if not trivial(line):
                    writers = sorted({x.tool_call_id for x in before if squash(line) in map(squash, x.added)})
                    if writers:
                        problems.append(f"{where}: {e.kind}, but edits {writers} added it before the commit")
            elif e.kind == "pasted":
                if not e.session_id or e.tool_call_id:
                    problems.append(f"{where}: pasted names a chat and no tool call")
                if not trivial(line):
                    writers = sorted({x.tool_call_id for x in before if squash(line) in map(squash, x.added)})
                    if writers:
                        problems.append(f"{where}: pasted, but edits {writers} added it before the commit")
            elif e.kind == "unknown":
                # a trivial line, a line an edit did add before the commit while something speaks
                # against that edit (not_the_commits_session, other_branch, readded, ...), or a
                # line like one an edit added, changed since by a hand nothing names
                # (changed_later): evidence either way
                if not trivial(line) and not any(squash(line) in map(squash, x.added)
                                                 or any(ratio(a, line) >= 0.7 for a in x.added) for x in before):
                    problems.append(f"{where}: unknown is reserved for trivial lines, and for lines an edit"
                                    " added before the commit, in these scenarios")
            else:
                problems.append(f"{where}: bad kind {e.kind!r}")
    return problems


def describe(scn: Scenario) -> str:
    """A readable summary of a built scenario: where things are and what every line should be."""
    sess, tool, com = _Labels("S"), _Labels("T"), _Labels("C")
    out = [f"scenario {scn.name}", f"  repo  {scn.repo}" + (f"  (rev {scn.rev})" if scn.rev else "")]
    out += [f"  {k}={v}" for k, v in scn.homes.items()]
    out += [f"  transcript {p}" for p in scn.transcripts]
    if scn.notes:
        out += ["  notes:"] + ["    " + ln for ln in scn.notes.splitlines()]
    for rel, expects in scn.files.items():
        text = git(scn.repo, "show", f"{scn.rev}:{rel}") if scn.rev else (scn.repo / rel).read_bytes().decode()
        out.append(f"  {rel}")
        for e, line in zip(expects, split_lines(text), strict=False):
            out.append(f"    {e.line:3d} {e.kind:15s} {sess(e.session_id):3s} {tool(e.tool_call_id):3s} "
                       f"{com(e.commit):3s} | {line}")
    out += ["  sessions:", *sess.legend(), "  tool calls:", *tool.legend(), "  commits:", *com.legend()]
    return "\n".join(out)
