"""Attribution scenarios: small real git repositories plus transcripts in the real formats, each
with the exact expected `hansard why` answer for every line of the files it names.

``SCENARIOS[name](base)`` builds one scenario inside the folder ``base`` and returns a
``Scenario``: the repository to ask in, the agent homes to index (env var -> folder), and per
file one ``Expect`` per line of the file (in the working tree, or at ``rev``).

How expectations are written (fail closed, the README's `kind` and `rule`):

* ``agent``: an applied edit added exactly this line (whitespace aside) to this file (renames
  followed), before the committer time of the commit the line lives in (``git blame -w -M
  -C``), in a session that ran in this repository. The newest such edit wins, but block
  locality wins first (the edit whose added block surrounds the line).
* Trivial lines (< 10 non-whitespace characters, or no letter/digit) are ``agent`` only when
  the same edit also added them and they sit next to (or between, across other trivial lines)
  that edit's matched lines in one run of lines blamed to the same commit. A trivial line in a
  run with agent lines that is not inherited is ``unknown``; in a run without agent evidence it
  is ``human``.
* ``agent_modified``: an agent wrote the line and a human then changed it (difflib ratio of
  the normal forms >= 0.7); it names that edit.
* ``uncommitted``: a working-tree line not yet committed; with the session and tool call when
  an edit wrote it, without when a human typed it. ``commit`` is None.
* Everything nobody wrote is ``human``.

Nothing is hard-coded: session and tool-call ids come from the writers (and the ``Ledger``
that records every edit attempt), commit ids from the repository. Dates, identities and ids
are fixed, so a scenario built twice has the same commits and transcripts.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from fixtures_repos.gitrepo import COLLEAGUE, HUMAN, GitRepo
from fixtures_repos.writers import (
    Add,
    ClaudeWriter,
    Clock,
    CodexWriter,
    GeminiWriter,
    Ledger,
    Update,
    det_uuid4,
    det_uuid7,
)

START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)

KINDS = ("agent", "agent_modified", "human", "unknown", "uncommitted", "pasted")


@dataclass
class Expect:
    line: int
    kind: str  # agent | agent_modified | human | unknown | uncommitted | pasted
    session_id: str | None = None
    tool_call_id: str | None = None
    commit: str | None = None  # full sha per `git blame -w -M -C`; None when uncommitted


@dataclass
class Scenario:
    name: str
    repo: Path
    homes: dict[str, Path]  # env var -> folder: CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME
    files: dict[str, list[Expect]]  # repo-relative path -> one Expect per line
    rev: str | None = None
    notes: str = ""
    ledger: Ledger = field(default_factory=Ledger, repr=False)
    repos: list[Path] = field(default_factory=list, repr=False)  # every git repository built (for fsck)
    transcripts: list[Path] = field(default_factory=list, repr=False)  # every session file in the homes
    imports: list[Path] = field(default_factory=list)  # web chat exports, read by `hansard import`


Seg = list[tuple[str, str | None, str | None, str | None]]  # (kind, session, tool call, commit) per line


def src(text: str) -> str:
    """A file's text written as an indented literal in this module."""
    return textwrap.dedent(text).lstrip("\n")


def split_lines(text: str) -> list[str]:
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


class Build:
    """One scenario under construction: its clock, ledger, agent homes and repositories."""

    def __init__(self, name: str, base: Path) -> None:
        self.name = name
        self.base = Path(base)
        self.base.mkdir(parents=True, exist_ok=True)
        self.clock = Clock(START)
        self.ledger = Ledger()
        home = self.base / "home"
        self.homes = {"CLAUDE_CONFIG_DIR": home / ".claude", "CODEX_HOME": home / ".codex",
                      "GEMINI_CLI_HOME": home / "gemini"}
        for p in self.homes.values():
            p.mkdir(parents=True, exist_ok=True)
        self.repos: list[GitRepo] = []
        self._n = 0

    # -- building -------------------------------------------------------------------------

    def init(self, rel: str = "repo", *, author: tuple[str, str] = HUMAN, bare: bool = False) -> GitRepo:
        repo = GitRepo.init(self.base / rel, author=author, bare=bare)
        self.repos.append(repo)
        return repo

    def when(self, gap: float = 20.0) -> datetime:
        """A commit date: ``gap`` seconds on, at a whole second, after everything so far."""
        return self.clock.next_second(gap)

    def commit(self, repo: GitRepo, message: str, *, gap: float = 20.0, all: bool = True,
               author: tuple[str, str] | None = None) -> str:
        return repo.commit(message, self.when(gap), all=all, author=author)

    def later(self, seconds: float) -> None:
        self.clock.advance(seconds)

    def _next(self) -> int:
        self._n += 1
        return self._n

    def claude(self, cwd: Path | str, *, style: str = "2.1", branch: str = "main", patches: bool = True) -> ClaudeWriter:
        self.later(30)
        sid = det_uuid4(self.name, "claude", self._next())
        w = ClaudeWriter(self.homes["CLAUDE_CONFIG_DIR"], cwd, sid, self.clock, ledger=self.ledger, style=style,
                         git_branch=branch, patches=patches)
        return w

    def codex(self, cwd: Path | str, *, branch: str = "main") -> CodexWriter:
        self.later(30)
        sid = det_uuid7(self.clock.now(), self.name, "codex", self._next())
        w = CodexWriter(self.homes["CODEX_HOME"], cwd, sid, self.clock, ledger=self.ledger, git_branch=branch)
        return w

    def gemini(self, root: Path | str) -> GeminiWriter:
        self.later(30)
        sid = det_uuid4(self.name, "gemini", self._next())
        w = GeminiWriter(self.homes["GEMINI_CLI_HOME"], root, sid, self.clock, ledger=self.ledger)
        return w

    # -- expectations ---------------------------------------------------------------------

    def session_of(self, tool_call_id: str) -> str:
        recs = [e for e in self.ledger.by_call(tool_call_id) if e.status == "applied"]
        if not recs:
            raise AssertionError(f"{tool_call_id}: no applied edit in the ledger")
        return recs[0].session_id

    def agent(self, tid: str, commit: str, n: int = 1) -> Seg:
        return [("agent", self.session_of(tid), tid, commit)] * n

    def modified(self, tid: str, commit: str, n: int = 1) -> Seg:
        return [("agent_modified", self.session_of(tid), tid, commit)] * n

    def human(self, commit: str, n: int = 1) -> Seg:
        return [("human", None, None, commit)] * n

    def unknown(self, commit: str, n: int = 1) -> Seg:
        return [("unknown", None, None, commit)] * n

    def uncommitted(self, tid: str | None = None, n: int = 1) -> Seg:
        return [("uncommitted", self.session_of(tid) if tid else None, tid, None)] * n

    def expect(self, repo: GitRepo, rel: str, *segments: Seg, rev: str | None = None) -> list[Expect]:
        flat = [x for seg in segments for x in seg]
        text = repo.show(rev, rel) if rev else repo.read(rel)
        n = len(split_lines(text))
        if len(flat) != n:
            raise AssertionError(f"{self.name}: {rel} has {n} lines, expectations cover {len(flat)}")
        return [Expect(i + 1, *x) for i, x in enumerate(flat)]

    def scenario(self, repo: GitRepo, files: dict[str, list[Expect]], *, rev: str | None = None,
                 notes: str = "") -> Scenario:
        return Scenario(
            name=self.name, repo=repo.path, homes=dict(self.homes), files=files, rev=rev,
            notes=textwrap.dedent(notes).strip(), ledger=self.ledger, repos=[r.path for r in self.repos],
            transcripts=sorted(p for home in self.homes.values() for p in ([home] if home.is_file() else home.rglob("*"))
                               if p.is_file() and not p.name.endswith((".meta.json", "-wal", "-shm"))),
        )


SCENARIOS: dict[str, Callable[[Path], Scenario]] = {}


def scenario(fn: Callable[[Build], Scenario]) -> Callable[[Path], Scenario]:
    def build(base: Path) -> Scenario:
        return fn(Build(fn.__name__, Path(base)))

    build.__name__ = fn.__name__
    build.__doc__ = fn.__doc__
    SCENARIOS[fn.__name__] = build
    return build


# =============================================================================================
# basic


@scenario
def basic_create(b: Build) -> Scenario:
    """An agent creates a file with a Write; every line, blank ones included, is its."""
    r = b.init()
    r.write("README.md", "# uploader\n\nUpload files to the archive service.\n")
    c0 = b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("Add a retry helper with capped exponential backoff for flaky uploads")
    t1 = cc.write(r.path / "src/retry.py", src('''
        import random
        import time


        def backoff(attempt: int, base: float = 0.5, cap: float = 30.0) -> float:
            """Seconds to wait before retry number `attempt`, capped, with jitter."""
            delay = min(cap, base * 2 ** attempt)
            return delay * random.uniform(0.5, 1.0)


        def retry(fn, attempts: int = 5):
            for attempt in range(attempts):
                try:
                    return fn()
                except ConnectionError:
                    if attempt == attempts - 1:
                        raise
                    time.sleep(backoff(attempt))
            return None
    '''))
    cc.say("Added src/retry.py with backoff() and retry().")
    c1 = b.commit(r, "Add retry helper")
    return b.scenario(r, {
        "src/retry.py": b.expect(r, "src/retry.py", b.agent(t1, c1, 19)),
        "README.md": b.expect(r, "README.md", b.human(c0, 3)),
    }, notes="Trivial lines (blank, try:, raise) inherit from the Write's matched lines around them.")


@scenario
def basic_edit_human_file(b: Build) -> Scenario:
    """Two Edits to a human's file: a replaced line plus an added one, and an appended function."""
    r = b.init()
    r.write("src/config.py", src('''
        """Settings for the upload client."""

        import os

        API_URL = os.environ.get("UPLOAD_API_URL", "https://uploads.example.com")
        TIMEOUT_SECONDS = 30
        CHUNK_SIZE = 8 * 1024 * 1024


        def headers(token: str) -> dict[str, str]:
            return {"Authorization": f"Bearer {token}"}
    '''))
    c0 = b.commit(r, "Upload client settings")
    cc = b.claude(r.path)
    cc.prompt("Large uploads time out; raise the timeout, make retries configurable and send a User-Agent")
    path = r.path / "src/config.py"
    t1 = cc.edit(path, "TIMEOUT_SECONDS = 30\n",
                 'TIMEOUT_SECONDS = 120  # large files on slow links\n'
                 'MAX_RETRIES = int(os.environ.get("UPLOAD_MAX_RETRIES", "5"))\n')
    t2 = cc.edit(path, '    return {"Authorization": f"Bearer {token}"}\n',
                 '    return {"Authorization": f"Bearer {token}"}\n\n\n'
                 'def user_agent(version: str) -> str:\n'
                 '    return f"uploader/{version} (+https://example.com/bot)"\n')
    c1 = b.commit(r, "Longer timeout, configurable retries, User-Agent")
    return b.scenario(r, {
        "src/config.py": b.expect(r, "src/config.py",
                                  b.human(c0, 5), b.agent(t1, c1, 2), b.human(c0, 5), b.agent(t2, c1, 4)),
    })


@scenario
def basic_duplicate_lines(b: Build) -> Scenario:
    """The same lines written several times: by a human first, then by two agents' edits."""
    r = b.init()
    r.write("src/api.py", src('''
        import requests

        SESSION = requests.Session()


        def get_user(user_id):
            response = SESSION.get(f"/users/{user_id}", timeout=10)
            response.raise_for_status()
            return response.json()
    '''))
    c0 = b.commit(r, "API client: users")
    path = r.path / "src/api.py"
    cc = b.claude(r.path)
    cc.prompt("Add get_team, like get_user, but return None for a missing team")
    t1 = cc.edit(path, "    return response.json()\n", src('''
            return response.json()


        def get_team(team_id):
            response = SESSION.get(f"/teams/{team_id}", timeout=10)
            if response.status_code == 404:
                return None
            response.raise_for_status()
            return response.json()
    '''))
    cx = b.codex(r.path)
    cx.prompt("Add get_project in the same style as get_team")
    tail = "        return None\n    response.raise_for_status()\n    return response.json()\n"
    t2 = cx.apply_patch(Update(path, (tail, src('''
                return None
            response.raise_for_status()
            return response.json()


        def get_project(project_id):
            response = SESSION.get(f"/projects/{project_id}", timeout=10)
            if response.status_code == 404:
                return None
            response.raise_for_status()
            return response.json()
    '''))))
    cx.end_turn()
    c1 = b.commit(r, "API client: teams and projects")
    return b.scenario(r, {
        "src/api.py": b.expect(
            r, "src/api.py",
            b.human(c0, 9),
            b.agent(t1, c1, 6), b.human(c0, 2),
            b.agent(t2, c1, 6), b.human(c0, 2)),
    }, notes='''
        Three kinds of duplicate. (1) `response.raise_for_status()` / `return response.json()`
        existed in c0 (get_user, a human's). Both agents' copies of that two-line tail are
        traced by `git blame -M` to c0, the text's first appearance: the line lives in c0, every
        edit that added it came after c0, so by the rules it is the human's (fail closed: the
        agents copied a human's text). (2) `if response.status_code == 404:` and `return None`
        are new in c1 and were added by both t1 (get_team) and t2 (get_project) in the same
        commit: the newest edit (t2) would win on time alone, but block locality decides first,
        so each copy goes to the edit whose block surrounds it. (3) The blank lines before each
        function inherit from that function's edit.
    ''')


@scenario
def precision_short_line_of_the_commits_session(b: Build) -> Scenario:
    """An agent adds one short import line (too short to be evidence) and, in the same commit,
    a function: the import line is not called a person's."""
    r = b.init()
    r.write("store/store.go", src('''
        package store

        import (
        	"encoding/json"
        	"os"
        )

        func Load(path string) (map[string]any, error) {
        	data, err := os.ReadFile(path)
        	if err != nil {
        		return nil, err
        	}
        	var out map[string]any
        	return out, json.Unmarshal(data, &out)
        }
    '''))
    c0 = b.commit(r, "Load the store")
    path = r.path / "store/store.go"
    cc = b.claude(r.path)
    cc.prompt("Add a Write that encodes the store to any writer")
    cc.edit(path, '\t"encoding/json"\n', '\t"encoding/json"\n\t"io"\n')
    t2 = cc.edit(path, "\treturn out, json.Unmarshal(data, &out)\n}\n", src('''
        	return out, json.Unmarshal(data, &out)
        }

        func Write(w io.Writer, store map[string]any) error {
        	return json.NewEncoder(w).Encode(store)
        }
    '''))
    c1 = b.commit(r, "Write the store")
    return b.scenario(r, {
        "store/store.go": b.expect(r, "store/store.go", b.human(c0, 4), b.unknown(c1), b.human(c0, 11),
                                   b.agent(t2, c1, 4)),
    }, notes='''
        `\t"io"` is trivial (under ten significant characters): never evidence on its own, and
        no matched block of its hunk lends it one. But an edit of the session that made c1 added
        exactly that line to this file, so it is unknown, not a person's. A blank line or a lone
        brace in such a commit stays human: everyone writes those.
    ''')


@scenario
def claude_bash_edit_diff(b: Build) -> Scenario:
    """Claude Code 2.1.288 reports the files a Bash command changed on its result
    (``bashEditDiff``): a python heredoc's edit is that Bash call's, line by line."""
    r = b.init()
    r.write("src/config.py", src('''
        REQUEST_TIMEOUT_SECONDS = 30
        MAX_RETRIES = 3


        def settings() -> dict:
            return {"timeout": REQUEST_TIMEOUT_SECONDS, "retries": MAX_RETRIES}
    '''))
    c0 = b.commit(r, "Request settings")
    path = r.path / "src/config.py"
    cc = b.claude(r.path)
    cc.prompt("Raise the timeout to a minute and add a backoff factor")
    t1 = cc.bash("python3 - <<'EOF'\nfrom pathlib import Path\np = Path('src/config.py')\n"
                 "p.write_text(p.read_text().replace('= 30\\n', '= 60\\nRETRY_BACKOFF_FACTOR = 2.0\\n'))\nEOF",
                 run=lambda: r.replace("src/config.py", "REQUEST_TIMEOUT_SECONDS = 30\n",
                                       "REQUEST_TIMEOUT_SECONDS = 60\nRETRY_BACKOFF_FACTOR = 2.0\n"),
                 edit_diff=[path])
    c1 = b.commit(r, "Longer timeout, backoff factor")
    return b.scenario(r, {
        "src/config.py": b.expect(r, "src/config.py", b.agent(t1, c1, 2), b.human(c0, 5)),
    }, notes='''
        The Bash call's result lists src/config.py with its hunk; the two lines it added are its
        own. Without that report (older versions) a shell edit leaves no evidence and the lines
        would be unknown.
    ''')


@scenario
def codex_code_mode(b: Build) -> Scenario:
    """Codex in code mode (as a real 0.147 rollout records it): each patch is applied by an
    ``exec`` script calling ``tools.apply_patch``, reported only by an ``item_completed``
    ``FileChange`` event under the nested call's id, and the script prints ``{}``."""
    r = b.init()
    r.write("src/limits.py", src('''
        MAX_UPLOAD = 10


        def allowed(size: int) -> bool:
            return size <= MAX_UPLOAD
    '''))
    c0 = b.commit(r, "Upload limits")
    path = r.path / "src/limits.py"
    cx = b.codex(r.path)
    cx.prompt("Sizes are in megabytes now; say so, and refuse negative sizes")
    t1 = cx.apply_patch(Update(path, ("MAX_UPLOAD = 10\n", "MAX_UPLOAD_MB = 10  # megabytes\n"),
                               ("    return size <= MAX_UPLOAD\n",
                                "    if size < 0:\n        raise ValueError(size)\n    return size <= MAX_UPLOAD_MB\n")),
                        script=True)
    t2 = cx.apply_patch(Add(r.path / "tests/test_limits.py", src('''
        from src.limits import allowed


        def test_ten_megabytes_is_allowed():
            assert allowed(10)
    ''')), script=True)
    cx.end_turn()
    c1 = b.commit(r, "Limits in megabytes")
    return b.scenario(r, {
        "src/limits.py": b.expect(r, "src/limits.py", b.agent(t1, c1), b.human(c0, 3), b.agent(t1, c1, 3)),
        "tests/test_limits.py": b.expect(r, "tests/test_limits.py", b.agent(t2, c1, 5)),
    }, notes='''
        Each line goes to the `exec` call whose script applied the patch: the FileChange event
        names the nested apply_patch call ("exec-<uuid>"), which no other record names; the one
        pending script whose patch names the changed file owns it.
    ''')


@scenario
def basic_multi_edit_one_message(b: Build) -> Scenario:
    """Two Edit calls in one assistant message (Claude Code 2.1) and a MultiEdit (1.0.x)."""
    r = b.init()
    r.write("src/models.py", src('''
        from dataclasses import dataclass


        @dataclass
        class Upload:
            path: str
            size: int


        @dataclass
        class Batch:
            uploads: list[Upload]
    '''))
    r.write("src/naming.py", src('''
        import re

        SAFE = re.compile(r"[^A-Za-z0-9._-]+")


        def safe_name(name):
            return SAFE.sub("_", name)


        def stem(name):
            return name.rsplit(".", 1)[0]
    '''))
    c0 = b.commit(r, "Models and naming")
    cc = b.claude(r.path)
    cc.prompt("Track a checksum per upload and give Batch a total size")
    models = r.path / "src/models.py"
    with cc.message():
        t1 = cc.edit(models, "    size: int\n", '    size: int\n    checksum: str = ""\n')
        t2 = cc.edit(models, "    uploads: list[Upload]\n",
                     "    uploads: list[Upload]\n\n    def total_size(self) -> int:\n"
                     "        return sum(u.size for u in self.uploads)\n")
    old = b.claude(r.path, style="1.0")
    old.prompt("Type-annotate naming.py and strip leading/trailing dots from safe names")
    t3 = old.multi_edit(r.path / "src/naming.py", [
        ('def safe_name(name):\n    return SAFE.sub("_", name)\n',
         'def safe_name(name: str) -> str:\n    return SAFE.sub("_", name).strip("._")\n'),
        ("def stem(name):\n", "def stem(name: str) -> str:\n"),
    ])
    c1 = b.commit(r, "Checksums, batch size, typed naming helpers")
    return b.scenario(r, {
        "src/models.py": b.expect(r, "src/models.py",
                                  b.human(c0, 7), b.agent(t1, c1), b.human(c0, 5), b.agent(t2, c1, 3)),
        "src/naming.py": b.expect(r, "src/naming.py",
                                  b.human(c0, 5), b.agent(t3, c1, 2), b.human(c0, 2), b.agent(t3, c1),
                                  b.human(c0)),
    }, notes="t1 and t2 are two tool_use blocks of one API message (same message.id); t3 is one MultiEdit call.")


@scenario
def basic_write_overwrite(b: Build) -> Scenario:
    """A Write that overwrites a human's file (kept lines stay the human's), and an agent's own
    file overwritten by a later Write (unchanged lines keep the first Write and its commit)."""
    r = b.init()
    r.write("src/report.py", src('''
        def render(rows):
            out = []
            for row in rows:
                out.append(", ".join(str(x) for x in row))
            return "\\n".join(out)
    '''))
    c0 = b.commit(r, "Plain report renderer")
    cc = b.claude(r.path)
    cc.prompt("Render the report as proper CSV, and add a human-readable size formatter")
    t1 = cc.write(r.path / "src/report.py", src('''
        """Render rows as CSV text."""
        import csv
        import io


        def render(rows):
            buf = io.StringIO()
            writer = csv.writer(buf)
            for row in rows:
                writer.writerow(row)
            return buf.getvalue()
    '''))
    t2 = cc.write(r.path / "src/fmt.py", src('''
        def human_size(n: int) -> str:
            for unit in ("B", "KiB", "MiB", "GiB"):
                if n < 1024:
                    return f"{n} {unit}"
                n //= 1024
            return f"{n} TiB"
    '''))
    c1 = b.commit(r, "CSV report, size formatter")
    cc.prompt("Show one decimal in human_size")
    t3 = cc.write(r.path / "src/fmt.py", src('''
        def human_size(n: float) -> str:
            for unit in ("B", "KiB", "MiB", "GiB"):
                if n < 1024:
                    return f"{n:.1f} {unit}"
                n /= 1024
            return f"{n:.1f} TiB"
    '''))
    c2 = b.commit(r, "One decimal in sizes")
    return b.scenario(r, {
        "src/report.py": b.expect(r, "src/report.py",
                                  b.agent(t1, c1, 5), b.human(c0), b.agent(t1, c1, 2), b.human(c0),
                                  b.agent(t1, c1, 2)),
        "src/fmt.py": b.expect(r, "src/fmt.py", b.agent(t3, c2), b.agent(t2, c1, 2), b.agent(t3, c2, 3)),
    })


# =============================================================================================
# a human after the agent


@scenario
def human_modifies_line(b: Build) -> Scenario:
    """A human changes an agent's line before committing it, another one a commit later, and
    renames a parameter across five consecutive lines of another agent file before committing."""
    r = b.init()
    r.write("README.md", "# shop\n")
    b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("Add gross price and discount helpers using Decimal")
    t1 = cc.write(r.path / "src/pricing.py", src('''
        from decimal import Decimal

        VAT_RATE = Decimal("0.20")


        def gross(net: Decimal) -> Decimal:
            return (net * (1 + VAT_RATE)).quantize(Decimal("0.01"))


        def discount(price: Decimal, percent: int) -> Decimal:
            return price * (100 - percent) / 100
    '''))
    r.replace("src/pricing.py", 'VAT_RATE = Decimal("0.20")', 'VAT_RATE = Decimal("0.21")')
    cc.prompt("And a shipping cost by weight")
    t2 = cc.write(r.path / "src/shipping.py", src('''
        from decimal import Decimal


        def shipping_cost(weight_kg: float, express: bool = False) -> Decimal:
            if weight_kg <= 0:
                raise ValueError("weight_kg must be positive")
            base = Decimal("4.90") + Decimal("1.10") * Decimal(str(weight_kg))
            if express and weight_kg > 20:
                base += Decimal("15.00")
            return base * 2 if express else base
    '''))
    r.replace("src/shipping.py", "weight_kg", "weight", count=5)
    c1 = b.commit(r, "Pricing and shipping helpers")
    r.replace("src/pricing.py", "return price * (100 - percent) / 100", "return price * (100 - percent) / Decimal(100)")
    c2 = b.commit(r, "Keep discounts in Decimal")
    return b.scenario(r, {
        "src/pricing.py": b.expect(r, "src/pricing.py",
                                   b.agent(t1, c1, 2), b.modified(t1, c1), b.agent(t1, c1, 7), b.unknown(c2)),
        "src/shipping.py": b.expect(r, "src/shipping.py", b.agent(t2, c1, 3), b.modified(t2, c1, 5), b.agent(t2, c1, 2)),
    }, notes='''
        pricing.py: line 3 was changed in the working tree before c1 (agent_modified); line 11 in a
        later commit c2, whose author nothing here names: a person did it, but an agent whose
        edits are not archived or cannot be read would look the same (unknown, changed_later).
        shipping.py: the human renamed weight_kg -> weight on lines 4-8 before c1; each of those
        lines is still similar (>= 0.7) to the agent's line it replaced, whatever its distance to
        the nearest unchanged agent line.
    ''')


@scenario
def human_deletes_and_replaces(b: Build) -> Scenario:
    """A human deletes three of an agent's lines and writes different code in their place."""
    r = b.init()
    r.write("README.md", "# cache\n")
    b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("Write a ttl_cache decorator")
    t1 = cc.write(r.path / "src/cache.py", src('''
        import functools
        import time


        def ttl_cache(seconds: int):
            def decorator(fn):
                store = {}

                @functools.wraps(fn)
                def wrapper(*args):
                    hit = store.get(args)
                    if hit and time.monotonic() - hit[0] < seconds:
                        return hit[1]
                    value = fn(*args)
                    store[args] = (time.monotonic(), value)
                    return value

                return wrapper

            return decorator
    '''))
    c1 = b.commit(r, "TTL cache decorator")
    r.replace("src/cache.py", "import time\n", src('''
        import time

        _MISSING = object()


        def _lookup(store, key, seconds):
            stamp, value = store.get(key, (0.0, _MISSING))
            return value if time.monotonic() - stamp < seconds else _MISSING
    '''))
    r.replace("src/cache.py",
              "            hit = store.get(args)\n"
              "            if hit and time.monotonic() - hit[0] < seconds:\n"
              "                return hit[1]\n",
              "            cached = _lookup(store, args, seconds)\n"
              "            if cached is not _MISSING:\n"
              "                return cached\n")
    c2 = b.commit(r, "Cache lookups through _lookup")
    return b.scenario(r, {
        "src/cache.py": b.expect(r, "src/cache.py",
                                 b.agent(t1, c1, 3), b.human(c2, 7), b.agent(t1, c1, 7), b.human(c2, 3),
                                 b.agent(t1, c1, 7)),
    }, notes='''
        The replacement lines are dissimilar (< 0.7) to the deleted ones, so they are the human's,
        not agent_modified. Git's diff keeps the blank line after `import time` from c1 and counts
        the blank before `def ttl_cache` as inserted in c2: line 3 inherits t1, line 10 is human.
    ''')


@scenario
def human_interleaves(b: Build) -> Scenario:
    """A human inserts lines between an agent's lines, before the commit and in a later one."""
    r = b.init()
    r.write("README.md", "# forms\n")
    b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("Validate form records: name required, email well-formed")
    t1 = cc.write(r.path / "src/validate.py", src(r'''
        import re

        EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.I)


        def validate(record: dict) -> list[str]:
            errors = []
            if not record.get("name"):
                errors.append("name is required")
            if not EMAIL.match(record.get("email", "")):
                errors.append("email is invalid")
            return errors
    '''))
    r.replace("src/validate.py", "    errors = []\n", "    errors = []\n    # checks run in the order the form shows them\n")
    r.replace("src/validate.py", '        errors.append("name is required")\n',
              '        errors.append("name is required")\n    if len(record.get("name", "")) > 80:\n'
              '        errors.append("name is too long")\n    # FIXME\n')
    c1 = b.commit(r, "Validate form records")
    r.replace("src/validate.py", "    return errors\n",
              '    if record.get("age") is not None and record["age"] < 0:\n'
              '        errors.append("age must not be negative")\n\n    return errors\n')
    c2 = b.commit(r, "Reject negative ages")
    return b.scenario(r, {
        "src/validate.py": b.expect(r, "src/validate.py",
                                    b.agent(t1, c1, 7), b.human(c1), b.agent(t1, c1, 2), b.human(c1, 2),
                                    b.unknown(c1), b.agent(t1, c1, 2), b.human(c2, 3), b.agent(t1, c1)),
    }, notes='''
        Lines 8, 11-12 were typed by the human before c1, inside the agent's block: no edit wrote
        them, so human. Line 13 `# FIXME` is trivial, in a c1 run with agent lines, and no edit
        added it: unknown. Lines 16-18 came in c2 (18 is a blank line in a run with no agent
        evidence: human).
    ''')


# =============================================================================================
# staging


UPLOAD_PY = src('''
    import os

    from uploader.client import Client


    def upload(path: str, client: Client) -> str:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            return client.put(os.path.basename(path), fh, size=size)


    def describe(path: str) -> str:
        name = os.path.basename(path)
        return f"{name} ({os.path.getsize(path)} bytes)"


    def upload_many(paths: list[str], client: Client) -> list[str]:
        results = []
        for path in paths:
            results.append(upload(path, client))
        return results
''')


@scenario
def staging_split_commits(b: Build) -> Scenario:
    """One session's three edits land in two commits: one hunk staged first, the rest later."""
    r = b.init()
    r.write("src/upload.py", UPLOAD_PY)
    c0 = b.commit(r, "Upload helpers")
    cc = b.claude(r.path)
    cc.prompt("Resume interrupted uploads, dedupe upload_many, and add a test")
    path = r.path / "src/upload.py"
    t1 = cc.edit(path, '    size = os.path.getsize(path)\n    with open(path, "rb") as fh:\n',
                 '    size = os.path.getsize(path)\n    offset = client.uploaded_bytes(os.path.basename(path))\n'
                 '    with open(path, "rb") as fh:\n        fh.seek(offset)\n')
    t2 = cc.write(r.path / "tests/test_upload.py", src('''
        from uploader.upload import upload_many


        class FakeClient:
            def __init__(self):
                self.calls = []

            def uploaded_bytes(self, name):
                return 0

            def put(self, name, fh, size):
                self.calls.append(name)
                return name


        def test_upload_many_dedupes(tmp_path):
            f = tmp_path / "a.txt"
            f.write_text("x")
            assert upload_many([str(f), str(f)], FakeClient()) == [str(f)]
    '''))
    t3 = cc.edit(path, "    for path in paths:\n", "    for path in sorted(set(paths)):\n")
    r.stage_hunks("src/upload.py", [0])
    c1 = b.commit(r, "Resume interrupted uploads", all=False)
    c2 = b.commit(r, "Dedupe upload_many; test it")
    return b.scenario(r, {
        "src/upload.py": b.expect(r, "src/upload.py",
                                  b.human(c0, 7), b.agent(t1, c1), b.human(c0), b.agent(t1, c1), b.human(c0, 10),
                                  b.agent(t3, c2), b.human(c0, 2)),
        "tests/test_upload.py": b.expect(r, "tests/test_upload.py", b.agent(t2, c2, 19)),
    }, notes="Only t1's hunk of src/upload.py was staged for c1; t3's hunk and the new test went into c2.")


@scenario
def staging_two_sessions_one_commit(b: Build) -> Scenario:
    """Two Claude sessions, interleaved in time, edit one file; one commit takes both. The second
    session also appends a route right after the first session's appended route."""
    r = b.init()
    r.write("src/server.py", src('''
        from http import HTTPStatus

        ROUTES = {}


        def route(path):
            def register(fn):
                ROUTES[path] = fn
                return fn

            return register


        @route("/")
        def index(request):
            return HTTPStatus.OK, "uploader"
    '''))
    c0 = b.commit(r, "Tiny router")
    path = r.path / "src/server.py"
    a = b.claude(r.path)
    a.prompt("Add a /health route")
    other = b.claude(r.path)
    other.prompt("Routes should record their allowed methods")
    t2 = other.edit(path, "def route(path):\n", 'def route(path, methods=("GET",)):\n')
    t3 = other.edit(path, "        ROUTES[path] = fn\n", "        ROUTES[path] = (fn, methods)\n")
    t1 = a.edit(path, '    return HTTPStatus.OK, "uploader"\n',
                '    return HTTPStatus.OK, "uploader"\n\n\n@route("/health")\ndef health(request):\n'
                '    return HTTPStatus.OK, "ok"\n')
    other.prompt("Add a /version route after /health")
    t4 = other.edit(path, '    return HTTPStatus.OK, "ok"\n',
                    '    return HTTPStatus.OK, "ok"\n\n\n@route("/version")\ndef version(request):\n'
                    '    return HTTPStatus.OK, "1.0"\n')
    c1 = b.commit(r, "Health and version routes; methods per route")
    return b.scenario(r, {
        "src/server.py": b.expect(r, "src/server.py",
                                  b.human(c0, 5), b.agent(t2, c1), b.human(c0), b.agent(t3, c1), b.human(c0, 8),
                                  b.agent(t1, c1, 5), b.agent(t4, c1, 5)),
    }, notes='''
        Lines 22-23 are the blank lines t4 (the second session) added between the first session's
        /health block and its own /version block, all in one commit. t1 also added blank lines
        and sits right above, so both edits are adjacent candidates; the newer edit, t4, made
        this junction (the ledger says so) and wins, as for non-trivial lines.
    ''')


@scenario
def staging_partial_hunks(b: Build) -> Scenario:
    """One apply_patch call makes two hunks; only the first is staged for the first commit."""
    r = b.init()
    r.write("src/jobs.py", src('''
        import time


        class Job:
            def __init__(self, name, fn):
                self.name = name
                self.fn = fn
                self.runs = 0

            def run(self):
                self.runs += 1
                return self.fn()


        class Scheduler:
            def __init__(self):
                self.jobs = []

            def add(self, job):
                self.jobs.append(job)

            def run_all(self):
                for job in self.jobs:
                    job.run()
    '''))
    c0 = b.commit(r, "Jobs and scheduler")
    path = r.path / "src/jobs.py"
    cx = b.codex(r.path)
    cx.prompt("Track each job's last error, and have run_all record when it ran and return the job count")
    t1 = cx.apply_patch(Update(
        path,
        ("        self.runs = 0\n", "        self.runs = 0\n        self.last_error = None\n"),
        ("            job.run()\n", "            job.run()\n        self.last_run = time.monotonic()\n"
                                   "        return len(self.jobs)\n"),
    ))
    cx.end_turn()
    r.replace("src/jobs.py", "        self.jobs = []\n", "        self.jobs = []\n        self.paused = False\n")
    r.stage_hunks("src/jobs.py", [0])
    c1 = b.commit(r, "Job.last_error", all=False)
    c2 = b.commit(r, "Scheduler bookkeeping")
    return b.scenario(r, {
        "src/jobs.py": b.expect(r, "src/jobs.py",
                                b.human(c0, 8), b.agent(t1, c1), b.human(c0, 9), b.human(c2), b.human(c0, 7),
                                b.agent(t1, c2, 2)),
    }, notes="Hunk 0 (t1's first change) went into c1; t1's second hunk and the human's line into c2.")


# =============================================================================================
# several agents


@scenario
def agents_claude_and_codex_same_file(b: Build) -> Scenario:
    """Claude Code writes a file, Codex changes it, Claude Code edits Codex's part of it."""
    r = b.init()
    r.write("README.md", "# queue\n")
    b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("A bounded, thread-safe work queue")
    path = r.path / "src/queue.py"
    t1 = cc.write(path, src('''
        import collections
        import threading


        class WorkQueue:
            def __init__(self, maxsize: int = 100):
                self.items = collections.deque()
                self.lock = threading.Lock()
                self.maxsize = maxsize

            def put(self, item) -> bool:
                with self.lock:
                    if len(self.items) >= self.maxsize:
                        return False
                    self.items.append(item)
                    return True

            def get(self):
                with self.lock:
                    return self.items.popleft() if self.items else None
    '''))
    c1 = b.commit(r, "Bounded work queue")
    cx = b.codex(r.path)
    cx.prompt("Count dropped items and support len()")
    t2 = cx.apply_patch(Update(
        path,
        ("        self.maxsize = maxsize\n", "        self.maxsize = maxsize\n        self.dropped = 0\n"),
        ("                return False\n", "                self.dropped += 1\n                return False\n"),
        ("            return self.items.popleft() if self.items else None\n",
         "            return self.items.popleft() if self.items else None\n\n"
         "    def __len__(self) -> int:\n        with self.lock:\n            return len(self.items)\n"),
    ))
    cx.end_turn()
    c2 = b.commit(r, "Dropped counter, len()")
    cc.prompt("Make get() easier to read")
    t3 = cc.edit(path, "            return self.items.popleft() if self.items else None\n",
                 "            if not self.items:\n                return None\n            return self.items.popleft()\n")
    c3 = b.commit(r, "Clearer get()")
    return b.scenario(r, {
        "src/queue.py": b.expect(r, "src/queue.py",
                                 b.agent(t1, c1, 9), b.agent(t2, c2), b.agent(t1, c1, 4), b.agent(t2, c2),
                                 b.agent(t1, c1, 6), b.agent(t3, c3, 3), b.agent(t2, c2, 4)),
    }, notes="`with self.lock:` is written three times: twice by t1 (c1) and once by t2 in its own block (c2).")


@scenario
def agents_subagent_edit(b: Build) -> Scenario:
    """A Claude Code subagent (Task) edits files; its lines belong to session agent-<agentId>."""
    r = b.init()
    r.write("src/app.py", src('''
        from flask import Flask

        app = Flask(__name__)


        @app.get("/")
        def home():
            return "uploader"
    '''))
    c0 = b.commit(r, "Flask app")
    cc = b.claude(r.path)
    cc.prompt("Allow big uploads, and have a subagent add timing metrics to the home route")
    app = r.path / "src/app.py"
    t1 = cc.edit(app, "app = Flask(__name__)\n",
                 'app = Flask(__name__)\napp.config["MAX_CONTENT_LENGTH"] = 512 * 1024 * 1024\n')
    with cc.task("Add metrics", "Create src/metrics.py with a timed() decorator and use it on home()") as sub:
        s1 = sub.write(r.path / "src/metrics.py", src('''
            import time

            COUNTERS: dict[str, int] = {}


            def count(name: str) -> None:
                COUNTERS[name] = COUNTERS.get(name, 0) + 1


            def timed(name: str):
                def wrap(fn):
                    def inner(*args, **kwargs):
                        start = time.perf_counter()
                        try:
                            return fn(*args, **kwargs)
                        finally:
                            count(f"{name}.calls")
                            COUNTERS[f"{name}.ms"] = int((time.perf_counter() - start) * 1000)

                    return inner

                return wrap
        '''))
        s2 = sub.edit(app, '@app.get("/")\n', '@app.get("/")\n@timed("home")\n')
        s3 = sub.edit(app, "from flask import Flask\n", "from flask import Flask\nfrom metrics import timed\n")
        sub.say("Added metrics.py and decorated home().")
    cc.say("Done: uploads up to 512 MiB, and home() is timed.")
    c1 = b.commit(r, "Bigger uploads; time the home route")
    sub_session = sub.attributed_session
    assert sub_session == f"agent-{sub.agent_id}" and b.session_of(s1) == sub_session
    return b.scenario(r, {
        "src/app.py": b.expect(r, "src/app.py",
                               b.human(c0), b.agent(s3, c1), b.human(c0, 2), b.agent(t1, c1), b.human(c0, 3),
                               b.agent(s2, c1), b.human(c0, 2)),
        "src/metrics.py": b.expect(r, "src/metrics.py", b.agent(s1, c1, 22)),
    }, notes="The subagent's transcript is <session>/subagents/agent-<agentId>.jsonl; its session id is agent-<agentId>.")


# =============================================================================================
# formatters


@scenario
def formatter_reflow(b: Build) -> Scenario:
    """The agent writes sloppy code, runs a formatter through its shell, and the result is
    committed: the re-indented, re-spaced lines are still its (rule: formatted)."""
    r = b.init()
    r.write("src/billing.py", "TAX_RATE=0.2\n\n\ndef net(amount):\n    return round(amount, 2)\n")
    c0 = b.commit(r, "Billing basics")
    cc = b.claude(r.path)
    cc.prompt("Add gross() and invoice_lines(), then run the formatter")
    path = r.path / "src/billing.py"
    t1 = cc.edit(path, "    return round(amount, 2)\n",
                 "    return round(amount, 2)\n\n\n"
                 "def gross(amount,rate=TAX_RATE):\n\ttotal=net(amount)*(1+rate)\n\treturn round(total,2)\n\n\n"
                 'def invoice_lines(items):\n\treturn [f"{name}: {gross(price):.2f}" for name,price in items]\n')
    formatted = src('''
        TAX_RATE = 0.2


        def net(amount):
            return round(amount, 2)


        def gross(amount, rate=TAX_RATE):
            total = net(amount) * (1 + rate)
            return round(total, 2)


        def invoice_lines(items):
            return [f"{name}: {gross(price):.2f}" for name, price in items]
    ''')
    cc.bash("ruff format src/billing.py", description="Format billing.py", stdout="1 file reformatted\n",
            run=lambda: r.write("src/billing.py", formatted))
    c1 = b.commit(r, "Gross amounts and invoice lines")
    return b.scenario(r, {
        "src/billing.py": b.expect(r, "src/billing.py", b.human(c0, 5), b.agent(t1, c1, 9)),
    }, notes='''
        The formatter also re-spaced the human's `TAX_RATE=0.2`; `git blame -w` keeps that line in
        c0, so it stays the human's. The agent's lines match after whitespace normalisation.
    ''')


# =============================================================================================
# history rewrites


@scenario
def rewrite_amend(b: Build) -> Scenario:
    """A commit is amended after a second agent and the human added to it. The amended commit
    keeps the original author date; the committer date (the bound) is the amend's."""
    r = b.init()
    r.write("README.md", "# limits\n")
    b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("Upload size and parallelism limits")
    path = r.path / "src/limits.py"
    t1 = cc.write(path, src('''
        MAX_FILE_BYTES = 5 * 1024 ** 3
        MAX_PARALLEL_UPLOADS = 4


        def allowed(size: int) -> bool:
            return 0 < size <= MAX_FILE_BYTES
    '''))
    b.commit(r, "Upload limits")
    cx = b.codex(r.path)
    cx.prompt("Also cap the queue length")
    t2 = cx.apply_patch(Update(path, ("MAX_FILE_BYTES = 5 * 1024 ** 3\n",
                                      "MAX_FILE_BYTES = 5 * 1024 ** 3\nMAX_QUEUE_LENGTH = 1000\n")))
    cx.end_turn()
    r.replace("src/limits.py", "def allowed(size: int) -> bool:\n",
              "def allowed(size: int) -> bool:\n    # zero-byte uploads are rejected by the storage API\n")
    c1 = r.amend(b.when())
    return b.scenario(r, {
        "src/limits.py": b.expect(r, "src/limits.py",
                                  b.agent(t1, c1), b.agent(t2, c1), b.agent(t1, c1, 4), b.human(c1), b.agent(t1, c1)),
    }, notes="t2 came after the original commit but before the amend: it counts.")


@scenario
def rewrite_rebase_reorder_squash_fixup(b: Build) -> Scenario:
    """Interactive rebase onto a moved main: commits reordered, a fixup and a squash folded in."""
    r = b.init()
    r.write("README.md", "# sizes\n")
    b.commit(r, "Initial commit")
    r.checkout("feature", create=True)
    cc = b.claude(r.path, branch="feature")
    cc.prompt("Parse sizes like 10k, 5M, 2G")
    t1 = cc.write(r.path / "src/parse.py", src('''
        def parse_size(text: str) -> int:
            units = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
            text = text.strip().lower()
            if text[-1:] in units:
                return int(text[:-1]) * units[text[-1]]
            return int(text)
    '''))
    a = b.commit(r, "Parse human sizes")
    cx = b.codex(r.path, branch="feature")
    cx.prompt("Emit events as sorted JSON")
    t2 = cx.apply_patch(Add(r.path / "src/emit.py", src('''
        import json


        def emit(event: str, **fields) -> str:
            return json.dumps({"event": event, **fields}, sort_keys=True)
    ''')))
    cx.end_turn()
    bb = b.commit(r, "Emit JSON events")
    cc.prompt("Support terabytes too")
    t3 = cc.edit(r.path / "src/parse.py", '"g": 1024 ** 3}', '"g": 1024 ** 3, "t": 1024 ** 4}')
    c = b.commit(r, "fixup! Parse human sizes")
    r.replace("src/emit.py", "    return json.dumps", "    # keys sorted so log lines diff cleanly\n    return json.dumps")
    d = b.commit(r, "squash! Emit JSON events")
    r.checkout("main")
    r.write("README.md", "# sizes\n\nSize parsing and event output.\n")
    b.commit(r, "Describe the project", author=COLLEAGUE)
    r.checkout("feature")
    r.rebase_interactive("main", b.when(), todo=[
        f"pick {bb} Emit JSON events", f"squash {d} squash! Emit JSON events",
        f"pick {a} Parse human sizes", f"fixup {c} fixup! Parse human sizes",
    ])
    new_a, new_b = r.rev_parse("HEAD"), r.rev_parse("HEAD~1")
    return b.scenario(r, {
        "src/parse.py": b.expect(r, "src/parse.py", b.agent(t1, new_a), b.agent(t3, new_a), b.agent(t1, new_a, 4)),
        "src/emit.py": b.expect(r, "src/emit.py", b.agent(t2, new_b, 4), b.human(new_b), b.agent(t2, new_b)),
    }, notes="Todo: pick B, squash D, pick A, fixup C; every line now lives in a rewritten commit.")


@scenario
def rewrite_cherry_pick(b: Build) -> Scenario:
    """An agent's commit is cherry-picked from a feature branch to main; asked with --rev main
    while the feature branch is checked out."""
    r = b.init()
    r.write("src/auth.py", src('''
        import hmac


        def check_token(given: str, expected: str) -> bool:
            return given == expected
    '''))
    c0 = b.commit(r, "Token check")
    r.checkout("feature", create=True)
    cc = b.claude(r.path, branch="feature")
    cc.prompt("The token check leaks timing; fix it")
    t1 = cc.edit(r.path / "src/auth.py", "    return given == expected\n",
                 '    """Compare in constant time so the check leaks no timing."""\n'
                 "    return hmac.compare_digest(given.encode(), expected.encode())\n")
    f1 = b.commit(r, "Constant-time token check")
    cx = b.codex(r.path, branch="feature")
    cx.prompt("Log failed token checks")
    cx.apply_patch(Add(r.path / "src/audit.py", 'import logging\n\nlog = logging.getLogger("audit")\n'))
    cx.end_turn()
    b.commit(r, "Audit logger")
    r.checkout("main")
    picked = r.cherry_pick(f1, b.when())
    r.checkout("feature")
    return b.scenario(r, {
        "src/auth.py": b.expect(r, "src/auth.py", b.human(c0, 4), b.agent(t1, picked, 2), rev="main"),
    }, rev="main", notes="Answered at --rev main (the cherry-pick), with the feature branch checked out.")


@scenario
def rewrite_revert_and_revert_of_revert(b: Build) -> Scenario:
    """An agent's commit is reverted, then the revert is reverted: its lines live in the last."""
    r = b.init()
    r.write("src/flags.py", src('''
        ENABLE_NEW_UPLOADER = False
        ENABLE_METRICS = True


        def enabled(name: str) -> bool:
            return bool(globals().get(name.upper()))
    '''))
    c0 = b.commit(r, "Feature flags")
    cc = b.claude(r.path)
    cc.prompt("Turn on the new uploader, with resumable uploads")
    t1 = cc.edit(r.path / "src/flags.py", "ENABLE_NEW_UPLOADER = False\nENABLE_METRICS = True\n",
                 "ENABLE_NEW_UPLOADER = True\nENABLE_METRICS = True\nENABLE_RESUMABLE_UPLOADS = True\n")
    c1 = b.commit(r, "Enable the new uploader")
    c2 = r.revert(c1, b.when(3600))
    c3 = r.revert(c2, b.when(3600))
    return b.scenario(r, {
        "src/flags.py": b.expect(r, "src/flags.py", b.agent(t1, c3), b.human(c0), b.agent(t1, c3), b.human(c0, 4)),
    }, notes=f"c1 {c1[:10]} -> revert c2 {c2[:10]} -> revert of the revert c3 {c3[:10]}.")


@scenario
def rewrite_squash_merge(b: Build) -> Scenario:
    """A feature branch (Claude, Codex, a human fix) lands on main as one squash commit."""
    r = b.init()
    r.write("src/pagination.py", "def paginate(items, page: int):\n    return items[page * 20:(page + 1) * 20]\n")
    b.commit(r, "Pagination")
    r.checkout("feature", create=True)
    cc = b.claude(r.path, branch="feature")
    cc.prompt("Make the page size configurable")
    t1 = cc.write(r.path / "src/pagination.py", src('''
        DEFAULT_PAGE_SIZE = 50


        def paginate(items, page: int, size: int = DEFAULT_PAGE_SIZE):
            start = page * size
            return items[start:start + size]
    '''))
    b.commit(r, "Configurable page size")
    cx = b.codex(r.path, branch="feature")
    cx.prompt("Helper for page links")
    t2 = cx.apply_patch(Add(r.path / "src/links.py", src('''
        from urllib.parse import urlencode


        def page_link(base: str, page: int) -> str:
            return f"{base}?{urlencode({'page': page})}"
    ''')))
    cx.end_turn()
    b.commit(r, "Page links")
    r.replace("src/pagination.py", "DEFAULT_PAGE_SIZE = 50", "DEFAULT_PAGE_SIZE = 100")
    b.commit(r, "Bigger default pages")
    r.checkout("main")
    s = r.merge_squash("feature", "Pagination improvements (#12)", b.when())
    return b.scenario(r, {
        "src/pagination.py": b.expect(r, "src/pagination.py", b.modified(t1, s), b.agent(t1, s, 5)),
        "src/links.py": b.expect(r, "src/links.py", b.agent(t2, s, 5)),
    }, notes="The human's 50 -> 100 change on the branch makes line 1 agent_modified in the squash commit.")


@scenario
def rewrite_pull_rebase(b: Build) -> Scenario:
    """A local agent commit is replayed on top of a colleague's pushed commit (pull --rebase)."""
    origin = b.init("origin.git", bare=True)
    r = b.init()
    r.write("src/storage.py", src('''
        import shutil
        from pathlib import Path

        ROOT = Path("/var/lib/uploader")


        def store(src: Path, name: str) -> Path:
            dest = ROOT / name
            shutil.copyfile(src, dest)
            return dest


        def remove(name: str) -> None:
            (ROOT / name).unlink()
    '''))
    c0 = b.commit(r, "Local storage")
    r.remote_add("origin", origin.path)
    r.push()
    mate = GitRepo.clone(origin.path, b.base / "colleague", author=COLLEAGUE)
    b.repos.append(mate)
    mate.replace("src/storage.py", "(ROOT / name).unlink()", "(ROOT / name).unlink(missing_ok=True)")
    k = b.commit(mate, "Removing a missing file is fine")
    mate.push(set_upstream=False)
    cc = b.claude(r.path)
    cc.prompt("store() fails when the folder does not exist yet")
    t1 = cc.edit(r.path / "src/storage.py", "    dest = ROOT / name\n",
                 "    dest = ROOT / name\n    dest.parent.mkdir(parents=True, exist_ok=True)\n")
    b.commit(r, "Create folders on store")
    rebased = r.pull_rebase(b.when())
    assert r.rev_parse("HEAD~1") == k
    return b.scenario(r, {
        "src/storage.py": b.expect(r, "src/storage.py",
                                   b.human(c0, 8), b.agent(t1, rebased), b.human(c0, 5), b.human(k)),
    }, notes="The colleague's line (commit by Sam) is human; the agent's line lives in the rebased commit.")


# =============================================================================================
# renames


@scenario
def rename_mv_then_edit(b: Build) -> Scenario:
    """An agent's file is renamed with `git mv`, then another agent edits it under its new name."""
    r = b.init()
    r.write("README.md", "# text\n")
    b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("Text helpers: squash whitespace, slugs")
    t1 = cc.write(r.path / "src/helpers.py", src(r'''
        import re

        _WS = re.compile(r"\s+")


        def squash_spaces(text: str) -> str:
            return _WS.sub(" ", text).strip()


        def slug(text: str) -> str:
            return squash_spaces(text).lower().replace(" ", "-")
    '''))
    c1 = b.commit(r, "Text helpers")
    r.mv("src/helpers.py", "src/text_utils.py")
    b.commit(r, "helpers.py -> text_utils.py")
    cx = b.codex(r.path)
    cx.prompt("Add truncate() to text_utils")
    t2 = cx.apply_patch(Update(r.path / "src/text_utils.py", (
        '    return squash_spaces(text).lower().replace(" ", "-")\n',
        '    return squash_spaces(text).lower().replace(" ", "-")\n\n\n'
        'def truncate(text: str, limit: int = 80) -> str:\n'
        '    return text if len(text) <= limit else text[: limit - 1] + "…"\n')))
    cx.end_turn()
    c3 = b.commit(r, "truncate()")
    return b.scenario(r, {
        "src/text_utils.py": b.expect(r, "src/text_utils.py", b.agent(t1, c1, 11), b.agent(t2, c3, 4)),
    })


@scenario
def rename_edit_and_move_same_commit(b: Build) -> Scenario:
    """Edit and move in one commit: a Codex patch with `*** Move to:`, and a Claude Edit followed
    by a human's `git mv`."""
    r = b.init()
    r.write("src/legacy_io.py", src('''
        import os


        def read_text(path):
            with open(path, encoding="utf-8") as fh:
                return fh.read()


        def write_text(path, text):
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
    '''))
    r.write("lib/fmt.py", src('''
        def pct(part, whole):
            return 100.0 * part / whole if whole else 0.0


        def plural(n, word):
            return f"{n} {word}" + ("" if n == 1 else "s")
    '''))
    c0 = b.commit(r, "IO and formatting helpers")
    cx = b.codex(r.path)
    cx.prompt("Rename legacy_io.py to textio.py and make write_text atomic")
    t1 = cx.apply_patch(Update(
        r.path / "src/legacy_io.py",
        ('    with open(path, "w", encoding="utf-8") as fh:\n        fh.write(text)\n',
         '    tmp = f"{path}.tmp"\n    with open(tmp, "w", encoding="utf-8") as fh:\n        fh.write(text)\n'
         "    os.replace(tmp, path)\n"),
        move_to=r.path / "src/textio.py"))
    cx.end_turn()
    cc = b.claude(r.path)
    cc.prompt("Round percentages to one decimal")
    t2 = cc.edit(r.path / "lib/fmt.py", "    return 100.0 * part / whole if whole else 0.0\n",
                 "    return round(100.0 * part / whole, 1) if whole else 0.0\n")
    r.mv("lib/fmt.py", "lib/formatting.py")
    c1 = b.commit(r, "textio.py with atomic writes; lib/formatting.py")
    return b.scenario(r, {
        "src/textio.py": b.expect(r, "src/textio.py",
                                  b.human(c0, 9), b.agent(t1, c1, 2), b.human(c0), b.agent(t1, c1)),
        "lib/formatting.py": b.expect(r, "lib/formatting.py", b.human(c0), b.agent(t2, c1), b.human(c0, 4)),
    })


@scenario
def rename_delete_recreate(b: Build) -> Scenario:
    """Files deleted and re-created: one re-written by another agent (the newest edit wins for
    lines both wrote), one restored by a human from history (the original Write still counts)."""
    r = b.init()
    r.write("README.md", "# settings\n")
    b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("Settings and defaults modules")
    cc.write(r.path / "src/settings.py", 'DEBUG = False\nLOG_LEVEL = "info"\nUPLOAD_DIR = "/var/lib/uploader"\n')
    t3 = cc.write(r.path / "src/defaults.py", 'DEFAULT_BUCKET = "uploads"\nDEFAULT_REGION = "eu-west-1"\n')
    c1 = b.commit(r, "Settings and defaults")
    r.rm("src/settings.py")
    r.rm("src/defaults.py")
    b.commit(r, "Drop settings modules (moving to env vars)")
    cx = b.codex(r.path)
    cx.prompt("Bring back src/settings.py, uploads now go to /srv/uploads, keep them 30 days")
    t2 = cx.apply_patch(Add(r.path / "src/settings.py",
                            'DEBUG = False\nLOG_LEVEL = "info"\nUPLOAD_DIR = "/srv/uploads"\nRETENTION_DAYS = 30\n'))
    cx.end_turn()
    r.checkout(c1, paths=["src/defaults.py"])
    c3 = b.commit(r, "Settings modules are back")
    return b.scenario(r, {
        "src/settings.py": b.expect(r, "src/settings.py", b.agent(t2, c3, 4)),
        "src/defaults.py": b.expect(r, "src/defaults.py", b.agent(t3, c3, 2)),
    }, notes="settings.py lines 1-2 were added by t1 (Claude) and again by t2 (Codex): the newest, t2, wins.")


# =============================================================================================
# negative controls


@scenario
def negative_read_only_session(b: Build) -> Scenario:
    """Sessions that only read the file (Claude's Read tool, Codex's shell) never count."""
    r = b.init()
    r.write("src/settings.py", "REQUEST_TIMEOUT = 30\nMAX_RETRIES = 3\nBACKOFF_FACTOR = 0.5\n")
    c0 = b.commit(r, "Client settings")
    cc = b.claude(r.path)
    cc.prompt("What timeout do we use for uploads?")
    cc.read(r.path / "src/settings.py")
    cc.say("REQUEST_TIMEOUT is 30 seconds; for large files I'd raise it to 60 and cap the backoff.")
    cx = b.codex(r.path)
    cx.prompt("How many retries do we do?")
    read = "sed -n '1,80p' src/settings.py"
    cx.exec(read, output=r.read("src/settings.py"),
            parsed_cmd=[{"type": "read", "cmd": read, "name": "settings.py", "path": "src/settings.py"}])
    cx.say("MAX_RETRIES = 3, with a 0.5 backoff factor.", phase="final_answer")
    r.write("src/settings.py", "REQUEST_TIMEOUT = 60\nMAX_RETRIES = 3\nBACKOFF_FACTOR = 0.5\nBACKOFF_CAP = 30.0\n")
    c1 = b.commit(r, "Longer timeout, capped backoff")
    return b.scenario(r, {
        "src/settings.py": b.expect(r, "src/settings.py", b.human(c1), b.human(c0, 2), b.human(c1)),
    }, notes='''
        The human typed exactly what the Claude session suggested; reading and suggesting is not
        writing. Codex reads files through its shell (`sed -n`, recorded by Codex itself as
        parsed_cmd type "read"): a read-only command is no edit either. Lines 2-3 are from c0,
        before any session existed.
    ''')


@scenario
def negative_wrote_after_commit(b: Build) -> Scenario:
    """Sessions that wrote the committed text only after the commit: a no-op Write of the same
    content, and a Codex change that was undone. Neither counts; a later human commit in the same
    file does not make them count either."""
    r = b.init()
    r.write("README.md", "# quota\n")
    b.commit(r, "Initial commit")
    body = src('''
        DAILY_QUOTA_BYTES = 50 * 1024 ** 3


        def over_quota(used: int) -> bool:
            return used > DAILY_QUOTA_BYTES
    ''')
    r.write("src/quota.py", body)
    c1 = b.commit(r, "Daily quota")
    b.later(2 * 3600)
    cc = b.claude(r.path)
    cc.prompt("Rewrite src/quota.py cleanly")
    cc.write(r.path / "src/quota.py", body)
    cx = b.codex(r.path)
    cx.prompt("Try a 20 GiB quota")
    path = r.path / "src/quota.py"
    cx.apply_patch(Update(path, ("DAILY_QUOTA_BYTES = 50 * 1024 ** 3\n", "DAILY_QUOTA_BYTES = 20 * 1024 ** 3\n")))
    cx.prompt("No, put it back")
    cx.apply_patch(Update(path, ("DAILY_QUOTA_BYTES = 20 * 1024 ** 3\n", "DAILY_QUOTA_BYTES = 50 * 1024 ** 3\n")))
    cx.end_turn()
    b.later(600)
    r.write("src/quota.py", body + "\n\ndef remaining(used: int) -> int:\n    return max(0, DAILY_QUOTA_BYTES - used)\n")
    c2 = b.commit(r, "remaining()")
    return b.scenario(r, {
        "src/quota.py": b.expect(r, "src/quota.py", b.human(c1, 5), b.human(c2, 4)),
    }, notes="All session edits are hours after c1; c2 is after them but its lines were never written by a session.")


@scenario
def negative_human_dependency_bump(b: Build) -> Scenario:
    """A human bumps two pinned versions in a file an agent also edited (it added a different
    dependency). The bumped lines belong to nobody's session."""
    r = b.init()
    r.write("requirements.txt", "requests==2.31.0\nclick==8.1.7\nrich==13.7.1\npydantic==2.6.4\nsix==1.16.0\n")
    c0 = b.commit(r, "Pin dependencies")
    cc = b.claude(r.path)
    cc.prompt("Add a fetch command using httpx")
    t1 = cc.write(r.path / "src/cli.py", src('''
        import click
        import httpx


        @click.command()
        @click.argument("url")
        def fetch(url: str) -> None:
            click.echo(httpx.get(url, timeout=10).text)
    '''))
    t2 = cc.edit(r.path / "requirements.txt", "six==1.16.0\n", "six==1.16.0\nhttpx==0.27.0\n")
    cc.bash("pytest -q", stdout="3 passed in 0.12s\n")
    c1 = b.commit(r, "fetch command")
    b.later(86400)
    r.replace("requirements.txt", "requests==2.31.0", "requests==2.32.3")
    r.replace("requirements.txt", "pydantic==2.6.4", "pydantic==2.7.1")
    c2 = b.commit(r, "Bump requests and pydantic")
    return b.scenario(r, {
        "requirements.txt": b.expect(r, "requirements.txt",
                                     b.human(c2), b.human(c0, 2), b.human(c2), b.human(c0), b.agent(t2, c1)),
        "src/cli.py": b.expect(r, "src/cli.py", b.agent(t1, c1, 8)),
    })


@scenario
def negative_trivial_lines(b: Build) -> Scenario:
    """Trivial lines: an agent's inherit from its block; a human's trivial line inside the agent's
    run is unknown; the human's trivial lines elsewhere are human even where an agent's edit
    added the very same text (`return 0.0`, blank lines) earlier."""
    r = b.init()
    r.write("src/shapes.py", src('''
        import math


        class Circle:
            def __init__(self, radius: float) -> None:
                self.radius = radius
    '''))
    c0 = b.commit(r, "Circle")
    cc = b.claude(r.path)
    cc.prompt("Add Circle.area")
    t1 = cc.edit(r.path / "src/shapes.py", "        self.radius = radius\n",
                 "        self.radius = radius\n\n    def area(self) -> float:\n        if self.radius <= 0:\n"
                 "            return 0.0\n        return math.pi * self.radius ** 2\n")
    r.replace("src/shapes.py", "            return 0.0\n", "            return 0.0\n        # fast path\n")
    c1 = b.commit(r, "Circle.area")
    r.write("src/shapes.py", r.read("src/shapes.py") + (
        "\n"
        "    def diameter(self) -> float:\n"
        "        if not self.radius:\n"
        "            return 0.0\n"
        "        return 2 * self.radius\n"
        "\n"
        "    def grow(self, by: float) -> None:\n"
        "        if by <= 0:\n"
        "            return\n"
        "        self.radius += by\n"))
    c2 = b.commit(r, "diameter() and grow()")
    return b.scenario(r, {
        "src/shapes.py": b.expect(r, "src/shapes.py",
                                  b.human(c0, 6), b.agent(t1, c1, 4), b.unknown(c1), b.agent(t1, c1),
                                  b.human(c2, 10)),
    })


@scenario
def negative_other_repo_same_path(b: Build) -> Scenario:
    """A session in another repository wrote the same text at the same relative path."""
    other = b.init("other")
    other.write("README.md", "# other project\n\nA different repository with its own history.\n")
    b.commit(other, "Other project")
    cc = b.claude(other.path)
    cc.prompt("A tiny CLI entry point")
    body = src('''
        import sys


        def main(argv: list[str]) -> int:
            print("hello", *argv[1:])
            return 0
    ''')
    cc.write(other.path / "src/app.py", body)
    b.commit(other, "Entry point")
    r = b.init()
    r.write("README.md", "# app\n")
    c0 = b.commit(r, "Initial commit")
    r.write("src/app.py", body)
    c1 = b.commit(r, "Entry point")
    here = b.claude(r.path)  # a session of this repository that wrote nothing: its lines can be a person's
    here.prompt("What is in the README?")
    here.read(r.path / "README.md")
    return b.scenario(r, {
        "src/app.py": b.expect(r, "src/app.py", b.human(c1, 6)),
        "README.md": b.expect(r, "README.md", b.human(c0)),
    }, notes="Same relative path, same text, edit before our commit, but a different repository (root commit).")


@scenario
def negative_rejected_edit_typed_by_human(b: Build) -> Scenario:
    """A rejected Claude Edit and a failed Codex patch; the human then typed the same text."""
    r = b.init()
    r.write("src/retry_policy.py", src('''
        RETRYABLE = {502, 503, 504}


        def should_retry(status: int, attempt: int) -> bool:
            return status in RETRYABLE and attempt < 3
    '''))
    c0 = b.commit(r, "Retry policy")
    path = r.path / "src/retry_policy.py"
    cc = b.claude(r.path)
    cc.prompt("Retry on 429 too")
    cc.edit(path, "RETRYABLE = {502, 503, 504}", "RETRYABLE = {429, 502, 503, 504}", reject="I'll do it myself")
    cx = b.codex(r.path)
    cx.prompt("Make the attempt limit a constant of 5")
    cx.apply_patch(Update(path, ("RETRYABLE = {502, 503, 504}\n", "RETRYABLE = {502, 503, 504}\nMAX_ATTEMPTS = 5\n"),
                          ("attempt < 3\n", "attempt < MAX_ATTEMPTS\n")), fail=True)
    cx.end_turn()
    r.replace("src/retry_policy.py", "RETRYABLE = {502, 503, 504}\n", "RETRYABLE = {429, 502, 503, 504}\nMAX_ATTEMPTS = 5\n")
    r.replace("src/retry_policy.py", "attempt < 3\n", "attempt < MAX_ATTEMPTS\n")
    c1 = b.commit(r, "Retry 429; MAX_ATTEMPTS")
    return b.scenario(r, {
        "src/retry_policy.py": b.expect(r, "src/retry_policy.py", b.human(c1, 2), b.human(c0, 3), b.human(c1)),
    })


# =============================================================================================
# environment


@scenario
def env_worktree(b: Build) -> Scenario:
    """Sessions ran in a linked worktree; the branch was fast-forwarded into main, and the line
    is asked in the main checkout (the worktree is kept)."""
    r = b.init()
    r.write("src/app.py", 'def greet(name: str) -> str:\n    return f"Hello, {name}"\n')
    c0 = b.commit(r, "Greeting")
    wt = r.worktree_add(b.base / "repo-farewell", "farewell")
    cc = b.claude(wt.path, branch="farewell")
    cc.prompt("Add farewell()")
    t1 = cc.edit(wt.path / "src/app.py", '    return f"Hello, {name}"\n',
                 '    return f"Hello, {name}"\n\n\ndef farewell(name: str) -> str:\n    return f"Goodbye, {name}"\n')
    cx = b.codex(wt.path, branch="farewell")
    cx.prompt("A CLI that greets and says goodbye")
    t2 = cx.apply_patch(Add(wt.path / "src/cli.py", src('''
        import sys

        from app import farewell, greet


        if __name__ == "__main__":
            print(greet(sys.argv[1]))
            print(farewell(sys.argv[1]))
    ''')))
    cx.end_turn()
    c1 = b.commit(wt, "farewell() and a CLI")
    r.merge_ff("farewell")
    return b.scenario(r, {
        "src/app.py": b.expect(r, "src/app.py", b.human(c0, 2), b.agent(t1, c1, 4)),
        "src/cli.py": b.expect(r, "src/cli.py", b.agent(t2, c1, 8)),
    }, notes="Transcripts name the worktree's paths; the question is asked in the main checkout after the merge.")


@scenario
def env_parent_folder(b: Build) -> Scenario:
    """Sessions started in the folder above the repository, naming files by absolute path."""
    work = b.base / "work"
    r = b.init("work/api")
    web = b.init("work/web")
    web.write("index.html", "<!doctype html>\n")
    b.commit(web, "Landing page")
    r.write("src/handlers.py", 'def handle_ping(request):\n    return {"ok": True}\n')
    c0 = b.commit(r, "Ping handler")
    cc = b.claude(work)
    cc.prompt("In the api repo, add an echo handler")
    t1 = cc.edit(r.path / "src/handlers.py", '    return {"ok": True}\n',
                 '    return {"ok": True}\n\n\ndef handle_echo(request):\n    return {"echo": request.body}\n')
    cx = b.codex(work)
    cx.prompt("Register the api handlers in a routes table")
    t2 = cx.apply_patch(Add(r.path / "src/routes.py",
                            'from handlers import handle_echo, handle_ping\n\n'
                            'ROUTES = {"/ping": handle_ping, "/echo": handle_echo}\n'))
    cx.end_turn()
    c1 = b.commit(r, "Echo handler and routes")
    return b.scenario(r, {
        "src/handlers.py": b.expect(r, "src/handlers.py", b.human(c0, 2), b.agent(t1, c1, 4)),
        "src/routes.py": b.expect(r, "src/routes.py", b.agent(t2, c1, 3)),
    }, notes="Both sessions' cwd is work/ (not a repository); their paths are absolute into work/api.")


@scenario
def env_spaces_unicode_paths(b: Build) -> Scenario:
    """A repository and a file whose paths have spaces and non-ASCII characters."""
    r = b.init("my projects/café app")
    r.write("README.md", "# café app\n")
    b.commit(r, "Initial commit")
    rel = "src/my dir/naïve file.py"
    cc = b.claude(r.path)
    cc.prompt("A naïve mean")
    t1 = cc.write(r.path / rel, src('''
        def naïve_mean(values: list[float]) -> float:
            """Arithmetic mean, no outlier handling (that's the naïve part)."""
            return sum(values) / len(values) if values else 0.0
    '''))
    c1 = b.commit(r, "naïve mean")
    cx = b.codex(r.path)
    cx.prompt("Add a médiane too")
    t2 = cx.apply_patch(Update(r.path / rel, (
        "    return sum(values) / len(values) if values else 0.0\n",
        "    return sum(values) / len(values) if values else 0.0\n\n\n"
        "def médiane(values: list[float]) -> float:\n    ordered = sorted(values)\n"
        "    return ordered[len(ordered) // 2] if ordered else 0.0\n")))
    cx.end_turn()
    c2 = b.commit(r, "médiane")
    return b.scenario(r, {rel: b.expect(r, rel, b.agent(t1, c1, 3), b.agent(t2, c2, 5))})


@scenario
def env_crlf(b: Build) -> Scenario:
    """A CRLF file: the agents' edits keep its line endings."""
    r = b.init()
    r.write("src/win.py", src('''
        import ctypes


        def message_box(text: str) -> int:
            return ctypes.windll.user32.MessageBoxW(None, text, "Uploader", 0)
    '''), crlf=True)
    c0 = b.commit(r, "Windows message box")
    path = r.path / "src/win.py"
    cc = b.claude(r.path)
    cc.prompt("Let callers set the title")
    t1 = cc.edit(path,
                 'def message_box(text: str) -> int:\n'
                 '    return ctypes.windll.user32.MessageBoxW(None, text, "Uploader", 0)\n',
                 'def message_box(text: str, title: str = "Uploader") -> int:\n'
                 "    return ctypes.windll.user32.MessageBoxW(None, text, title, 0)\n")
    cx = b.codex(r.path)
    cx.prompt("Add is_windows()")
    t2 = cx.apply_patch(Update(path, ("import ctypes\n", "import ctypes\nimport platform\n"), (
        "    return ctypes.windll.user32.MessageBoxW(None, text, title, 0)\n",
        "    return ctypes.windll.user32.MessageBoxW(None, text, title, 0)\n\n\n"
        'def is_windows() -> bool:\n    return platform.system() == "Windows"\n')))
    cx.end_turn()
    c1 = b.commit(r, "Title parameter, is_windows()")
    assert b"\r\n" in path.read_bytes() and b"\n" not in path.read_bytes().replace(b"\r\n", b"")
    return b.scenario(r, {
        "src/win.py": b.expect(r, "src/win.py",
                               b.human(c0), b.agent(t2, c1), b.human(c0, 2), b.agent(t1, c1, 2), b.agent(t2, c1, 4)),
    }, notes="Lines 7-8 (blank) sit between t1's and t2's lines; only t2 added blank lines, so they are t2's.")


# =============================================================================================
# working tree, Gemini


@scenario
def uncommitted_working_tree(b: Build) -> Scenario:
    """Uncommitted lines: an agent's (kind uncommitted, with its session) and a human's (without)."""
    r = b.init()
    r.write("src/stats.py", "def mean(xs):\n    return sum(xs) / len(xs)\n")
    c0 = b.commit(r, "mean()")
    cc = b.claude(r.path)
    cc.prompt("Add median()")
    path = r.path / "src/stats.py"
    t1 = cc.edit(path, "    return sum(xs) / len(xs)\n", src('''
            return sum(xs) / len(xs)


        def median(xs):
            s = sorted(xs)
            mid = len(s) // 2
            return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2
    '''))
    c1 = b.commit(r, "median()")
    cc.prompt("And spread()")
    t2 = cc.edit(path, "    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2\n",
                 "    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2\n\n\n"
                 "def spread(xs):\n    return max(xs) - min(xs)\n")
    r.replace("src/stats.py", "def mean(xs):\n", "def mean(xs):\n    # mean of an empty list raises ZeroDivisionError\n")
    return b.scenario(r, {
        "src/stats.py": b.expect(r, "src/stats.py",
                                 b.human(c0), b.uncommitted(), b.human(c0), b.agent(t1, c1, 6), b.uncommitted(t2, 4)),
    }, notes="Nothing after c1 is committed: t2's lines and the human's comment are in the working tree only.")


@scenario
def gemini_relative_path(b: Build) -> Scenario:
    """Gemini CLI (legacy single-JSON chat file, only projectHash = sha256(project root), no cwd)
    writes and edits a file named by a path relative to the project root."""
    r = b.init()
    r.write("README.md", "# greeter\n")
    b.commit(r, "Initial commit")
    g = b.gemini(r.path)
    g.prompt("Write src/greet.py with a time-of-day greeting")
    t1 = g.write_file("src/greet.py", src('''
        import datetime


        def greeting(now: datetime.datetime | None = None) -> str:
            hour = (now or datetime.datetime.now()).hour
            if hour < 12:
                return "Good morning"
            return "Good afternoon"
    '''))
    g.prompt("Say good evening after 18:00")
    t2 = g.replace("src/greet.py", '        return "Good morning"\n',
                   '        return "Good morning"\n    if hour >= 18:\n        return "Good evening"\n')
    g.say("Done.")
    c1 = b.commit(r, "Greeting by time of day")
    return b.scenario(r, {
        "src/greet.py": b.expect(r, "src/greet.py", b.agent(t1, c1, 7), b.agent(t2, c1, 2), b.agent(t1, c1)),
    }, notes="The only session in this repository is Gemini's; its chat file records no cwd, only projectHash.")


# The newer agents' scenarios and the pasted web-chat block register themselves in SCENARIOS.
import fixtures_repos.scenarios_more  # noqa: E402
import fixtures_repos.scenarios_notes  # noqa: E402
import fixtures_repos.scenarios_precision  # noqa: E402,F401

__all__ = ["SCENARIOS", "Expect", "Scenario"]
