"""Attribution scenarios for the wrong claims a second reference found: git-ai's own repository,
whose authorship notes (recorded by hooks at commit time) say which session wrote each line of
each commit, graded `hansard why` over sessions rebuilt from the conversations those notes embed
(``scripts/bench_git_ai_notes.py``). Registered in ``SCENARIOS`` beside the others and written the
same way (real repositories, transcripts in each agent's real format, exact expectations):

* context counted as written: an Edit whose ``old_string`` already held a subagent's lines,
  recorded without a ``structuredPatch`` (older versions, transcripts rebuilt from git-ai's
  notes or exported): a line on both sides of the replacement is context, not written;
* a common line from another file: a person moved a block into a new file and wrote a line an
  agent had written into the old one (``runs-on: ubuntu-latest``);
* an agent edit that cannot be read (a Cursor call as git-ai keeps it: the path alone) changes a
  line another session wrote, and adds lines: not a person's change, not a person's lines;
* an edit on another branch, in another worktree, whose base the commit never had;
* a line an old edit wrote, commented out by a commit and brought back by one that also wrote
  new text around it;
* a forked conversation holding a copy of an edit call (new ids, same instant and text);
* a short line an old edit wrote, typed again alone by a person days later, below the edit's
  block and at another indentation (``use std::fs;``), and a session's work set aside for months
  whose lines a person writes again.
"""

from __future__ import annotations

import json

from fixtures_repos.gitrepo import COLLEAGUE, GitRepo
from fixtures_repos.scenarios import Build, Scenario, scenario, src
from fixtures_repos.scenarios_more import cursor
from fixtures_repos.scenarios_precision import go
from fixtures_repos.writers import Add, ClaudeWriter, Update, det_uuid4, encode_cwd

LEDGER_PY = src('''
    """Double-entry ledger."""


    class Ledger:
        def __init__(self):
            self.entries = []

        def post(self, debit, credit, amount):
            self.entries.append((debit, credit, amount))
''')

LEDGER_TESTS = src('''
    from ledger import Ledger


    def test_post_records_both_sides():
        book = Ledger()
        book.post("cash", "revenue", 120)
        assert book.entries == [("cash", "revenue", 120)]
''')


@scenario
def notes_context_is_not_written(b: Build) -> Scenario:
    """A subagent writes a test; another session, whose edit results keep the strings but no
    patch, then appends a second test with an Edit whose ``old_string`` is the whole first test.
    The first test's lines stay the subagent's: they are on both sides of the replacement."""
    r = b.init()
    r.write("ledger.py", LEDGER_PY)
    c0 = b.commit(r, "Ledger")
    cc = b.claude(r.path)
    cc.prompt("Add a test for Ledger.post")
    with cc.task("Write ledger tests", "Write a pytest module for Ledger.post") as sub:
        t1 = sub.write(r.path / "test_ledger.py", LEDGER_TESTS)
    cc.say("The subagent wrote test_ledger.py.")
    b.later(600)
    old = b.claude(r.path, patches=False)
    old.prompt("Also test that amounts must be positive")
    new_test = ('\n\ndef test_post_rejects_negative_amounts():\n    book = Ledger()\n'
                '    book.post("cash", "revenue", -5)\n    assert book.entries == []\n')
    first = LEDGER_TESTS.split("\n\n\n", 1)[1]
    t2 = old.edit(r.path / "test_ledger.py", first, first + new_test)
    c1 = b.commit(r, "Ledger tests")
    return b.scenario(r, {
        "ledger.py": b.expect(r, "ledger.py", b.human(c0, 9)),
        "test_ledger.py": b.expect(r, "test_ledger.py", b.agent(t1, c1, 7), b.agent(t2, c1, 6)),
    }, notes='''
        t2's old_string is lines 4-7 and its new_string the same lines and five more (and two
        blank lines): its own diff adds lines 8-13. Without a patch, every line of new_string
        used to count as added, and t2, the newest edit, took the subagent's test.
    ''')


BUILD_YML = src('''
    name: build
    on: [push]
    jobs:
      test:
        runs-on: ubuntu-latest
        steps:
          - uses: actions/checkout@v4
          - run: cargo test --workspace --all-features
      lint:
        runs-on: ubuntu-latest
        steps:
          - uses: actions/checkout@v4
          - run: cargo clippy --all-targets -- -D warnings
''')


@scenario
def notes_common_line_of_another_file(b: Build) -> Scenario:
    """A person moves the lint job out of build.yml, which an agent wrote, into a new lint.yml,
    and writes a nightly job there with its own ``runs-on: ubuntu-latest``. The moved lines are
    the agent's (blame finds them in build.yml); the person's line is not evidence of the
    agent's edit into build.yml because other lines of lint.yml came from there."""
    r = b.init()
    r.write("README.md", "# ci\n")
    b.commit(r, "Initial commit")
    cx = b.codex(r.path)
    cx.prompt("A GitHub workflow that tests and lints the workspace")
    t1 = cx.apply_patch(Add(r.path / ".github/workflows/build.yml", BUILD_YML))
    cx.end_turn()
    c1 = b.commit(r, "CI workflow")
    lint = BUILD_YML.split("  lint:\n", 1)[1]
    r.write(".github/workflows/build.yml", BUILD_YML.split("  lint:\n", 1)[0])
    r.write(".github/workflows/lint.yml", "name: lint\non: [push, schedule]\njobs:\n  lint:\n" + lint
            + "  nightly-audit:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo audit --deny warnings\n")
    c2 = b.commit(r, "Lint in its own workflow, with a nightly audit")
    return b.scenario(r, {
        ".github/workflows/build.yml": b.expect(r, ".github/workflows/build.yml", b.agent(t1, c1, 8)),
        ".github/workflows/lint.yml": b.expect(r, ".github/workflows/lint.yml", b.human(c2, 3), b.agent(t1, c1, 5),
                                               b.human(c2), b.unknown(c2), b.human(c2, 2)),
    }, notes='''
        c2 moved lines 4-8 of lint.yml from build.yml (blame -C names build.yml at c1: t1's).
        Line 10, `runs-on: ubuntu-latest`, is c2's in lint.yml; t1 added that text to
        build.yml only: unknown (other_path), where it used to be t1's, because build.yml was
        among the file's names for every line (`git log --follow` takes lint.yml for a copy
        of it: a copy's source is another file, not a name of this one).
    ''')


PARSE_RS = src('''
    pub fn parse_agent(name: &str) -> Option<&'static str> {
        match name {
            "claude" => Some("claude_code"),
            "codex" => Some("codex"),
            _ => None,
        }
    }
''')


@scenario
def notes_unreadable_edit(b: Build) -> Scenario:
    """A Claude session writes a match on agent names; a Cursor session (its conversation as
    git-ai's notes keep it: the edit calls name their file and nothing more) renames one arm's
    value and adds an arm. Hansard cannot read what Cursor wrote, so the changed line is not
    "the Claude line, changed by a person", and the new arm is not a person's: both unknown."""
    r = b.init()
    r.write("README.md", "# agents\n")
    c0 = b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("A parse_agent(name) that maps our agent names to providers")
    t1 = cc.write(r.path / "src/parse.rs", PARSE_RS)
    c1 = b.commit(r, "parse_agent")
    cu = cursor(b, "Cursor support", wait=60)
    cu.prompt("@src/parse.rs call codex codex_cli, and add cursor")
    cu.say("I'll rename the codex provider and add a cursor arm.")
    cu.search_replace_as_git_ai_keeps_it(r.path / "src/parse.rs", '        "codex" => Some("codex"),\n',
                                         '        "codex" => Some("codex_cli"),\n        "cursor" => Some("cursor"),\n')
    c2 = b.commit(r, "Codex CLI and Cursor")
    return b.scenario(r, {
        "src/parse.rs": b.expect(r, "src/parse.rs", b.agent(t1, c1, 3), b.unknown(c2, 2), b.unknown(c1), b.human(c1, 2)),
        "README.md": b.expect(r, "README.md", b.human(c0)),
    }, notes='''
        Lines 4-5 are c2's. The Cursor call is an applied edit of src/parse.rs (status
        completed) whose text git-ai did not keep: line 4 used to be t1's line modified by a
        person, line 5 a person's; both are unknown (unreadable_edit), the Cursor session and
        t1's among the alternatives. Lines 6-8 are short lines of c1 cut off from t1's block
        by c2's: `_ => None,` is unknown (a short line of the commit's session), the braces
        are anyone's.
    ''')


FLAGS_PY = src('''
    DEFAULTS = {
        "verbose": False,
        "color": True,
    }
''')


@scenario
def notes_edit_on_another_branch(b: Build) -> Scenario:
    """A session, in a worktree of a branch that is never merged, rewrites a block that only that
    branch has, and writes a line there. Days later a person writes the same line on main,
    whose history never had the block the session replaced: that edit is not evidence."""
    r = b.init()
    r.write("flags.py", FLAGS_PY)
    c0 = b.commit(r, "Flags")
    wt = r.worktree_add(b.base / "experiment", "experiment", "main")
    wt.replace("flags.py", '    "color": True,\n', '    "color": True,\n    "pager": "less -R",\n')
    b.commit(wt, "Experiment: a pager flag")
    cc = b.claude(wt.path, branch="experiment")
    cc.prompt("Make the pager configurable and default it off")
    cc.edit(wt.path / "flags.py", '    "pager": "less -R",\n', '    "pager": None,\n    "timeout_s": 30,\n')
    b.commit(wt, "Pager off by default; a timeout")
    b.later(3 * 86400)
    r.replace("flags.py", '    "color": True,\n', '    "color": True,\n    "timeout_s": 30,\n')
    c1 = b.commit(r, "Thirty-second timeout", author=COLLEAGUE)
    return b.scenario(r, {
        "flags.py": b.expect(r, "flags.py", b.human(c0, 3), b.unknown(c1), b.human(c0)),
    }, notes='''
        t1 removed `"pager": "less -R",`, a line only the experiment branch has. c1's parent
        never had it, so t1 did not write c1's line 4 (unknown, other_branch: the session's text
        is the same, so not human either). It used to be t1's: same path, made before c1.
        (wt is a worktree of this repository: its sessions are this repository's.)
    ''')


RETRY_PY = src('''
    import time


    def fetch(client, url):
        return client.get(url)
''')


@scenario
def notes_readded_among_new_text(b: Build) -> Scenario:
    """A session's retry loop is commented out by one commit; a later commit uncomments it and
    rewrites the loop's body around it. The loop's own lines were not brought back as they
    were (the commit wrote new text with them): the session that first wrote them is not
    evidence of who wrote them again."""
    r = b.init()
    r.write("fetch.py", RETRY_PY)
    c0 = b.commit(r, "fetch")
    cx = b.codex(r.path)
    cx.prompt("Retry fetch three times with a backoff")
    cx.apply_patch(Update(r.path / "fetch.py", ("def fetch(client, url):\n    return client.get(url)\n",
                                                     "def fetch(client, url, attempts=3):\n"
                                                     "    for attempt in range(attempts):\n"
                                                     "        try:\n"
                                                     "            return client.get(url)\n"
                                                     "        except ConnectionError:\n"
                                                     "            time.sleep(2 ** attempt)\n"
                                                     "    raise ConnectionError(url)\n")))
    cx.end_turn()
    b.commit(r, "Retry fetch")
    body = r.read("fetch.py").split("\n\n\n", 1)[1]
    r.write("fetch.py", "import time\n\n\n" + "".join(f"# {x}\n" for x in body.splitlines()))
    b.commit(r, "Disable retries while the proxy is down", author=COLLEAGUE)
    r.write("fetch.py", "import time\n\n\n" + "def fetch(client, url, attempts=3):\n"
            "    for attempt in range(attempts):\n"
            "        try:\n"
            "            return client.get(url, timeout=10)\n"
            "        except ConnectionError:\n"
            "            time.sleep(2 ** attempt)\n"
            "    raise ConnectionError(url)\n")
    c3 = b.commit(r, "Retries again, with a timeout")
    return b.scenario(r, {
        "fetch.py": b.expect(r, "fetch.py", b.human(c0, 3), b.unknown(c3, 3), b.human(c3), b.unknown(c3, 3)),
    }, notes='''
        c3 replaced the commented lines with t1's lines and a new one (line 7, a person's, not
        t1's line modified: who wrote the lines around it again is not known). Its
        hunk adds text the commit that commented them out never took away, so it is no
        checkout of the old version: lines 4-6 and 8-10 are unknown (readded), where they used
        to be t1's, restored.
    ''')


@scenario
def notes_forked_conversation(b: Build) -> Scenario:
    """A session edits a file; its conversation is forked, and the fork's transcript holds a copy
    of every record under new ids (the call at the same instant, with the same text). The fork
    then edits another line. The first line is the original session's, shown once (the copy is
    not an alternative); the fork's own line is the fork's."""
    r = b.init()
    r.write("app/config.py", 'PORT = 8000\nDEBUG = False\n')
    b.commit(r, "Config")
    cc = b.claude(r.path)
    cc.prompt("Read the port from the environment")
    t1 = cc.edit(r.path / "app/config.py", "PORT = 8000\n", 'PORT = int(os.environ.get("PORT", "8000"))\n')
    b.later(120)
    fork_id = "f" + cc.session_id[1:]
    fork_path = cc.path.parent / f"{fork_id}.jsonl"
    renamed: dict[str, str] = {}

    def fresh(value: str) -> str:
        return renamed.setdefault(value, det_uuid4(b.name, "fork", value))

    with cc.path.open() as src_fh, fork_path.open("w") as out:
        for line in src_fh:
            rec = json.loads(line)
            if "sessionId" in rec:
                rec["sessionId"] = fork_id
            for key in ("uuid", "parentUuid", "messageId", "sourceToolAssistantUUID"):
                if isinstance(rec.get(key), str):
                    rec[key] = fresh(rec[key])
            for block in (rec.get("message") or {}).get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    block["id"] = "toolu_01" + fresh(block["id"]).replace("-", "")[:22]
                elif isinstance(block, dict) and block.get("type") == "tool_result":
                    block["tool_use_id"] = "toolu_01" + fresh(block["tool_use_id"]).replace("-", "")[:22]
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    fork = ClaudeWriter(cc.home, cc.cwd, fork_id, b.clock, ledger=b.ledger)
    fork.last_uuid = fresh(cc.last_uuid or "")
    fork.prompt("Debug on when DEBUG=1")
    t2 = fork.edit(r.path / "app/config.py", "DEBUG = False\n", 'DEBUG = os.environ.get("DEBUG") == "1"\n')
    r.write("app/config.py", "import os\n\n" + r.read("app/config.py"))
    c1 = b.commit(r, "Port and debug from the environment")
    assert encode_cwd(cc.cwd) in str(fork_path)
    return b.scenario(r, {
        "app/config.py": b.expect(r, "app/config.py", b.unknown(c1, 2), b.agent(t1, c1), b.agent(t2, c1)),
    }, notes='''
        The fork's copy of t1 has its own uuids and tool_use id, the same time and text: the
        two are one call. It used to tie with t1, the newest (the copy) winning with t1's
        session as an alternative. Both transcripts start at the same instant: the copy read
        first (the original's file sorts first) stands for the call. Lines 1-2 (the person's
        import and a blank line) are short lines in a run of agent lines: unknown.
    ''')


CLEAN_GO = go('''
    package strategy

    import (
        "fmt"
        "regexp"
    )

    var shadowBranchPattern = regexp.MustCompile(`^entire/[0-9a-fA-F]{7,}$`)

    func IsShadowBranch(name string) bool {
        return shadowBranchPattern.MatchString(name)
    }
''')

CLEANUP_TYPES_GO = go('''
    // CleanupType says what kind of leftover an item is.
    type CleanupType string

    const (
        CleanupShadowBranch CleanupType = "shadow-branch"
        CleanupSessionState CleanupType = "session-state"
    )

    // CleanupItem is one leftover that `entire clean` can remove.
    type CleanupItem struct {
        Type   CleanupType
        ID     string
        Reason string
    }
''')

LIST_ALL_GO = go('''
    // ListAll returns every leftover found in the repository.
    func ListAll(branches []string) ([]CleanupItem, error) {
        if len(branches) == 0 {
            return nil, nil
        }
        var errNoRepo = fmt.Errorf("not a git repository")
        return nil, errNoRepo
    }
''')


@scenario
def moved_into_a_new_file(b: Build) -> Scenario:
    """A session adds a block of types to strategy/clean.go; before committing, a person deletes
    clean.go and writes strategy/cleanup.go, which holds the session's block and new code of
    their own (too little of clean.go for git to call it a rename). The block is the session's
    edit, moved by the commit into the file it created; a line the person wrote that the
    session also wrote into clean.go, far from its block, stays an honest unknown."""
    r = b.init()
    r.write("strategy/clean.go", CLEAN_GO)
    b.commit(r, "Shadow branch pattern")
    cc = b.claude(r.path)
    cc.prompt("Add the cleanup item types for `entire clean` to strategy/clean.go")
    t1 = cc.edit(r.path / "strategy/clean.go", '\t"regexp"\n)\n',
                 '\t"regexp"\n)\n\n' + CLEANUP_TYPES_GO + '\nvar errNoRepo = fmt.Errorf("not a git repository")\n')
    cc.say("Added CleanupType and CleanupItem.")
    r.remove("strategy/clean.go")
    r.write("strategy/cleanup.go", 'package strategy\n\nimport "fmt"\n\n' + CLEANUP_TYPES_GO + "\n" + LIST_ALL_GO)
    c1 = b.commit(r, "cleanup more, make it owned by strategy")
    return b.scenario(r, {
        "strategy/cleanup.go": b.expect(r, "strategy/cleanup.go", b.human(c1), b.unknown(c1), b.human(c1),
                                        b.agent(t1, c1, 16), b.human(c1, 4), b.unknown(c1, 2), b.human(c1),
                                        b.unknown(c1)),
    }, notes='''
        c1 deletes strategy/clean.go and adds strategy/cleanup.go; git pairs them as no rename.
        Lines 4-19 (the types, and the blank lines t1 wrote around them) are t1's, written into
        clean.go: the commit that deleted the path t1 edited moved them here, as a block. Line
        25 is text t1 also wrote into clean.go, but alone among the person's lines: unknown
        (other_path), not t1's. Lines 2, 24 and 27 are short lines of a commit an agent wrote
        lines of (unknown, trivial).
    ''')


CLI_PY = src('''
    import sys


    def main(argv):
        if not argv:
            print("usage: tool FILE")
            sys.exit(2)
        run(check(argv[0]))
''')

CHECK_PY = src('''
    def check(path):
        if not path.endswith(".toml"):
            print("not a TOML file: " + path)
            sys.exit(2)
        return path
''')


@scenario
def notes_common_line_in_its_commits_block(b: Build) -> Scenario:
    """A session adds a function whose ``sys.exit(2)`` the file already has; a person later
    rewrites every other line of that function. At HEAD the common line sits among the
    person's lines, but in its own commit it was inside the session's block: it is the
    session's, not an honest unknown."""
    r = b.init()
    r.write("tool.py", CLI_PY)
    c0 = b.commit(r, "Command line")
    cc = b.claude(r.path)
    cc.prompt("Refuse files that are not TOML")
    t1 = cc.edit(r.path / "tool.py", "import sys\n\n\n", "import sys\n\n\n" + CHECK_PY + "\n\n")
    c1 = b.commit(r, "Only TOML files")
    r.replace("tool.py", "def check(path):\n", "def check(path: str) -> str:\n")
    r.replace("tool.py", '    if not path.endswith(".toml"):\n', '    if not path.lower().endswith((".toml", ".tml")):\n')
    r.replace("tool.py", '        print("not a TOML file: " + path)\n',
              '        print(f"not a TOML file: {path}", file=sys.stderr)\n')
    r.replace("tool.py", "    return path\n", "    return path.strip()\n")
    c2 = b.commit(r, "Typed check, errors to stderr", author=COLLEAGUE)
    return b.scenario(r, {
        "tool.py": b.expect(r, "tool.py", b.human(c0, 3), b.unknown(c2, 2), b.human(c2), b.agent(t1, c1), b.unknown(c2),
                            b.human(c1, 2), b.human(c0, 5)),
    }, notes='''
        Line 7, ``sys.exit(2)``, is c1's; the file has it twice, and every non-trivial line within
        three of it is c2's now. In c1's own version of the file the lines around it are t1's:
        it is t1's (it used to be unknown, common_line). Lines 4, 5 and 8 are t1's lines c2
        changed (unknown, changed_later); line 6, changed past likeness, is the person's, and
        so are the blank lines after the function, cut off from t1's block.
    ''')


REPORT_PY = src('''
    def report(rows):
        for row in rows:
            print(row)
''')


def _report_edited(b: Build) -> tuple[GitRepo, str]:
    """A repository whose report.py a person has started but not committed, and a session's edit
    of its loop (the tool call)."""
    r = b.init()
    r.write("README.md", "# reports\n")
    b.commit(r, "Initial commit")
    r.write("report.py", REPORT_PY)
    cc = b.claude(r.path)
    cc.prompt("Print the rows as an aligned table")
    t1 = cc.edit(r.path / "report.py", "    for row in rows:\n        print(row)\n",
                 "    width = max((len(str(row[0])) for row in rows), default=0)\n"
                 "    for name, value in rows:\n        print(f\"{name:<{width}}  {value}\")\n")
    return r, t1


@scenario
def notes_edit_of_a_file_new_in_its_commit(b: Build) -> Scenario:
    """A person starts a new file and, before it is ever committed, a session rewrites its
    loop. The edit's base is in no commit (the file is new in the working tree), which is no
    evidence of another branch: the commit that creates the file holds the session's lines."""
    r, t1 = _report_edited(b)
    c1 = b.commit(r, "Reports")
    return b.scenario(r, {
        "report.py": b.expect(r, "report.py", b.human(c1), b.agent(t1, c1, 3)),
    }, notes='''
        t1 replaced lines 2-3 of a file no commit had yet; c1 created the file. Line 1 is the
        person's; lines 2-4 are t1's (they used to be unknown, other_branch: t1's replaced
        lines are not in c1's parent, which has no report.py at all).
    ''')


@scenario
def notes_old_edit_of_a_file_new_in_its_commit(b: Build) -> Scenario:
    """As above, but another commit lands between the session's edit and the commit that
    creates the file: the edit was made on a tree older than the commit's parent, whose
    history has no version of the file to check its base against. It is not evidence."""
    r, _t1 = _report_edited(b)
    b.later(3600)
    r.write("README.md", "# reports\n\nPrints tables.\n")
    r.add("README.md")
    b.commit(r, "README", all=False)
    c2 = b.commit(r, "Reports")
    return b.scenario(r, {
        "report.py": b.expect(r, "report.py", b.human(c2), b.unknown(c2, 3)),
    }, notes='''
        t1 replaced lines of report.py, a file no commit had; then "README" was committed, and
        only after it "Reports", which created report.py. t1's base cannot be checked and t1
        is older than the commit's parent: lines 2-4 are unknown (other_branch, t1's session
        in alternatives), not t1's.
    ''')


STATS_RS = src('''
    pub fn added(lines: &[&str]) -> usize {
        lines.len()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn counts_the_added_lines() {
            let stats = added(&["a", "b"]);
            assert_eq!(stats, 2);
        }
    }
''')


@scenario
def notes_readded_in_a_copys_source(b: Build) -> Scenario:
    """A session writes two lines of a test in ``stats.rs``; one person's commit changes them,
    a later one changes them back and writes a comment above them; then the tests move to a new
    file. Blame follows the moved lines to ``stats.rs``, whose history, not the new file's, shows
    the lines removed and brought back among new text: the session is not evidence of who wrote
    them again."""
    r = b.init()
    r.write("src/stats.rs", STATS_RS)
    c0 = b.commit(r, "Stats")
    cc = b.claude(r.path, patches=False)
    cc.prompt("Add a test for one line")
    cc.edit(r.path / "src/stats.rs", "        assert_eq!(stats, 2);\n",
            "        assert_eq!(stats, 2);\n        let filtered = added(&[\"a\"]);\n"
            "        assert_eq!(filtered, 1);\n")
    b.commit(r, "One line")
    b.later(86400)
    r.replace("src/stats.rs", "        let filtered = added(&[\"a\"]);\n        assert_eq!(filtered, 1);\n",
              "        let filtered = added(&[]);\n        assert_eq!(filtered, 0);\n")
    b.commit(r, "No lines", author=COLLEAGUE)
    b.later(86400)
    r.replace("src/stats.rs", "        let filtered = added(&[]);\n        assert_eq!(filtered, 0);\n",
              "        // one line added, one counted again\n        let filtered = added(&[\"a\"]);\n"
              "        assert_eq!(filtered, 1);\n")
    c3 = b.commit(r, "One line again", author=COLLEAGUE)
    b.later(86400)
    text = r.read("src/stats.rs")
    head, tests = text.split("\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n")
    r.write("src/stats.rs", head)
    body = "".join(x[4:] + "\n" if x.strip() else "\n" for x in tests.rstrip("\n").split("\n")[:-1])
    r.write("tests/stats_unit.rs", "use stats::added;\n\n" + body)
    c4 = b.commit(r, "Tests in their own file")
    return b.scenario(r, {
        "tests/stats_unit.rs": b.expect(r, "tests/stats_unit.rs", b.human(c4), b.human(c0, 5), b.human(c3),
                                        b.unknown(c3, 2), b.human(c0)),
    }, notes='''
        t1 wrote `let filtered = added(&["a"]);` and `assert_eq!(filtered, 1);` into
        src/stats.rs; "No lines" changed them; c3 brought them back under a new comment; c4 moved
        the tests into tests/stats_unit.rs, unindented. Blame takes lines 3-10 from src/stats.rs.
        Lines 8-9 are unknown (readded: c3 wrote new text with them), where they used to be
        t1's: the new file's history has no commit that removed them.
    ''')


LEDGER_POST_CHECKED = ('    def post(self, debit, credit, amount):\n'
                       '        if amount <= 0:\n'
                       '            raise ValueError("amount must be positive")\n'
                       '        if debit == credit:\n'
                       '            raise ValueError("debit and credit must differ")\n'
                       '        self.entries.append((debit, credit, amount))\n')


def _subagent_then_its_session(b: Build, keep_subagent: bool) -> tuple[GitRepo, str, str, str, str]:
    """c0 holds the ledger; a session's subagent (Task) adds two checks to ``post``, then the
    session itself rewrites the subagent's second check. (repo, c0, c1, the subagent's edit, the
    session's edit.) Without ``keep_subagent`` the subagent's transcript is gone, as Entire's
    checkpoints keep none."""
    r = b.init()
    r.write("ledger.py", LEDGER_PY)
    c0 = b.commit(r, "Ledger")
    cc = b.claude(r.path)
    cc.prompt("Validate what Ledger.post is given")
    with cc.task("Add validation", "Make Ledger.post reject bad amounts and same-account posts",
                 summary="ledger.py: Ledger.post now rejects non-positive amounts and same-account posts.") as sub:
        t_sub = sub.edit(r.path / "ledger.py", "    def post(self, debit, credit, amount):\n",
                         LEDGER_POST_CHECKED.rsplit("        self.entries", 1)[0])
    if not keep_subagent:
        import shutil

        shutil.rmtree(cc.path.parent / cc.session_id)
    cc.say("Same-account posts should be allowed for adjustments; only the amount check stays.")
    t_own = cc.edit(r.path / "ledger.py",
                    '        if debit == credit:\n            raise ValueError("debit and credit must differ")\n',
                    '        if not isinstance(amount, int):\n            raise TypeError("amount must be whole cents")\n')
    c1 = b.commit(r, "Validate ledger postings")
    return r, c0, c1, t_sub, t_own


@scenario
def subagent_lines_then_its_session_edits_them(b: Build) -> Scenario:
    """A session rewrites lines its own subagent wrote minutes before, on the tree the commit
    grew from: the subagent's edit holds the lines the session's edit replaced, so the session's
    new lines are its own, and the subagent's are the subagent's."""
    r, c0, c1, t_sub, t_own = _subagent_then_its_session(b, keep_subagent=True)
    return b.scenario(r, {
        "ledger.py": b.expect(r, "ledger.py", b.human(c0, 8), b.agent(t_sub, c1, 2), b.agent(t_own, c1, 2),
                              b.human(c0)),
    }, notes='''
        t_own's old_string is two lines the commit's parent lacks. They are not another branch's:
        the session's subagent wrote them (t_sub), before t_own, in the same work.
    ''')


@scenario
def unread_subagent_lines_then_its_session_edits_them(b: Build) -> Scenario:
    """The same work, with the subagent's transcript gone (Entire keeps none): the lines the
    session's edit replaced are in no transcript, but the session started a subagent after the
    parent was committed and before its edit, and that subagent could have written them on the
    same tree. The session's own lines are its own; the subagent's are no one's it can name."""
    r, c0, c1, _t_sub, t_own = _subagent_then_its_session(b, keep_subagent=False)
    return b.scenario(r, {
        "ledger.py": b.expect(r, "ledger.py", b.human(c0, 8), b.unknown(c1, 2), b.agent(t_own, c1, 2),
                              b.human(c0)),
    }, notes='''
        Without the subagent's own transcript, t_own's base is explained only by the subagent
        its session started (the Task call, kept in the session's transcript) between c0 and
        t_own: t_own fits. The subagent's two lines were not written by any edit held here,
        but its report names ledger.py: unknown (unreadable_edit, the session in alternatives),
        not a person's.
    ''')


MERGE_PY = src('''
    import os


    def merge(a, b):
        return {**a, **b}
''')


@scenario
def notes_short_line_of_an_old_edit(b: Build) -> Scenario:
    """A session writes a scratch folder helper, then a cleaning function that starts with
    ``import shutil``; the person commits the helper alone and drops the rest. Three days later
    they write their own cleaning under the helper's comment, ``import shutil`` first. The
    dropped edit wrote that exact line, but the file's commit before the person's came after it
    and did not take it: a short line alone in the person's commit is not the session's."""
    r = b.init()
    r.write("merge.py", MERGE_PY)
    c0 = b.commit(r, "Merge")
    cc = b.claude(r.path, patches=False)
    cc.prompt("Keep merges in a scratch folder, and clean it")
    t1 = cc.edit(r.path / "merge.py", "import os\n",
                 "import os\n\n\ndef scratch_folder():\n    # Resolve conflicts in a scratch folder\n"
                 "    return os.path.join(os.getcwd(), \"scratch\")\n")
    cleaning = "\n\ndef clean():\n    import shutil\n    shutil.rmtree(scratch_folder())\n"
    cc.edit(r.path / "merge.py", "    return os.path.join(os.getcwd(), \"scratch\")\n",
            "    return os.path.join(os.getcwd(), \"scratch\")\n" + cleaning)
    r.replace("merge.py", cleaning, "")
    c1 = b.commit(r, "Scratch folder")
    b.later(3 * 86400)
    r.replace("merge.py", "    # Resolve conflicts in a scratch folder\n",
              "    # Resolve conflicts in a scratch folder\n    import shutil\n"
              "    shutil.rmtree(os.path.join(os.getcwd(), \"scratch\"), ignore_errors=True)\n")
    c2 = b.commit(r, "Start from an empty scratch folder", author=COLLEAGUE)
    return b.scenario(r, {
        "merge.py": b.expect(r, "merge.py", b.human(c0, 3), b.agent(t1, c1, 2), b.unknown(c2), b.human(c2),
                             b.agent(t1, c1, 3), b.human(c0, 2)),
    }, notes='''
        Line 6, ``import shutil``, is c2's, a person's commit three days after c1, which took t1
        and not t2, the edit that wrote ``import shutil`` (in a function the person dropped). The
        line was t2's (wrote). It is unknown now (stale_edit): t2 is older than c1, the file's
        commit before c2, and in c2 the line has four words or fewer and no line of t2's session
        around it.
    ''')


@scenario
def notes_work_set_aside_for_months(b: Build) -> Scenario:
    """A session writes a function; the person does not keep it and commits another change to
    the file that day, and another 40 days later. Three weeks after that a person's commit
    writes the function again, line for line. The file's commit before it came more than a
    month after the edit and did not take it: the session's work was set aside, and who wrote
    it again is not known."""
    r = b.init()
    r.write("merge.py", MERGE_PY)
    c0 = b.commit(r, "Merge")
    cc = b.claude(r.path, patches=False)
    cc.prompt("Merge lists of settings too")
    deep = ("\n\ndef merge_deep(a, b):\n    out = dict(a)\n    for key, value in b.items():\n"
            "        out[key] = merge_deep(out[key], value) if isinstance(value, dict) else value\n    return out\n")
    cc.edit(r.path / "merge.py", "    return {**a, **b}\n", "    return {**a, **b}\n" + deep)
    r.replace("merge.py", deep, "")
    b.later(3600)
    r.replace("merge.py", "import os\n", "import os\nimport sys\n")
    c1 = b.commit(r, "Import sys")
    b.later(40 * 86400)
    r.replace("merge.py", "import sys\n", "import sys\nimport json\n")
    c2 = b.commit(r, "Import json", author=COLLEAGUE)
    b.later(20 * 86400)
    r.replace("merge.py", "    return {**a, **b}\n", "    return {**a, **b}\n" + deep)
    c3 = b.commit(r, "Deep merge", author=COLLEAGUE)
    return b.scenario(r, {
        "merge.py": b.expect(r, "merge.py", b.human(c0), b.human(c1), b.human(c2), b.human(c0, 4), b.human(c3, 2),
                             b.unknown(c3, 5)),
    }, notes='''
        Lines 8-14 are c3's, 20 days after c2, the file's commit before it, 40 days after t1,
        which c1 and c2 did not take. t1 wrote them exactly: they were t1's (wrote, the blank
        lines and ``return out`` inherited), and are unknown now (stale_edit; ``return out``
        trivial), the blank lines human.
    ''')


HANDLERS_RS = src('''
    fn dispatch(args: &[String]) {
        match args[0].as_str() {
            "install-hooks" => {
                if let Err(e) = install_hooks::run(&args[1..]) {
                    eprintln!("Install hooks failed: {}", e);
                    std::process::exit(1);
                }
            }
            _ => usage(),
        }
    }
''')

INSTALL_ARM = '''        "install-hooks" => {
            if let Err(e) = install_hooks::run(&args[1..]) {
                eprintln!("Install hooks failed: {}", e);
                std::process::exit(1);
            }
        }
'''


@scenario
def notes_work_redone_with_a_line_alike(b: Build) -> Scenario:
    """A session in a contributor's checkout adds an ``uninstall-hooks`` arm beside
    ``install-hooks``; it never lands. Eleven days later a person commits another change to the
    file, and two days after that another person writes the arm their own way, a ``match`` on
    the result, whose error line is the session's verbatim. The commit brought in one of the
    three lines the session's edit added that the file lacked: the work was redone, not landed."""
    r = b.init()
    r.write("handlers.rs", HANDLERS_RS)
    c0 = b.commit(r, "Dispatch")
    cc = b.claude(r.path, patches=False)
    cc.prompt("Add an uninstall-hooks command")
    cc.edit(r.path / "handlers.rs", INSTALL_ARM,
            INSTALL_ARM + '''        "uninstall-hooks" => {
            if let Err(e) = install_hooks::uninstall(&args[1..]) {
                eprintln!("Uninstall hooks failed: {}", e);
                std::process::exit(1);
            }
        }
''')
    r.write("handlers.rs", HANDLERS_RS)  # the contributor's checkout: this one never had it
    b.later(11 * 86400)
    r.replace("handlers.rs", "        _ => usage(),\n", "        \"status\" => status::run(&args[1..]),\n        _ => usage(),\n")
    c1 = b.commit(r, "Status command")
    b.later(2 * 86400)
    arm = "        \"uninstall-hooks\" => match install_hooks::run_uninstall(&args[1..]) {\n"
    arm += "            Ok(statuses) => log_statuses(\"uninstall-hooks\", &statuses),\n"
    r.replace("handlers.rs", "        \"status\" =>", arm + '''            Err(e) => {
                eprintln!("Uninstall hooks failed: {}", e);
                std::process::exit(1);
            }
        },
        "status" =>''')
    c2 = b.commit(r, "Hooks refactor with uninstall", author=COLLEAGUE)
    return b.scenario(r, {
        "handlers.rs": b.expect(r, "handlers.rs", b.human(c0, 8), b.human(c2, 3), b.unknown(c2, 2), b.human(c2, 2),
                                b.human(c1), b.human(c0, 3)),
    }, notes='''
        Line 12, ``eprintln!("Uninstall hooks failed: {}", e);``, is c2's. The session's edit wrote
        it, 13 days before c2 and before c1, the file's commit before c2, which did not take the
        edit. Of the three lines the edit added that c2's parent lacks, c2 brought in this one
        alone (its arm is a ``match``): the line was the edit's (wrote, and the ``}`` lines
        around it inherited), and is unknown now (stale_edit, the session in alternatives).
        Line 13, ``std::process::exit(1);``, is text the file has more than once (readded).
    ''')


HOOKS_RS = src('''
    use std::collections::HashMap;

    pub fn run(args: &[String]) -> Result<HashMap<String, String>, HooksError> {
        let mut statuses = HashMap::new();
        for arg in args {
            statuses.insert(arg.clone(), install_one(arg)?);
            println!();
        }
        Ok(statuses)
    }
''')


@scenario
def notes_like_a_line_of_a_session_with_common_lines(b: Build) -> Scenario:
    """A session in a contributor's checkout writes ``uninstall`` below ``run``; it never lands.
    Two days later a person renames ``run`` and writes ``run_uninstall``; the renamed line is
    like the session's, and the only lines of the commit the session also wrote are ones the
    file has many times (``println!();``). Those do not make the session one of the commit's:
    its line, changed, is not how the person's line came."""
    r = b.init()
    r.write("hooks.rs", HOOKS_RS)
    c0 = b.commit(r, "Install hooks")
    cc = b.claude(r.path, patches=False)
    cc.prompt("Add an uninstall command")
    cc.edit(r.path / "hooks.rs", "    Ok(statuses)\n}\n", '''    Ok(statuses)
}

/// Uninstall git-ai hooks from all detected agents
pub fn uninstall(args: &[String]) -> Result<(), HooksError> {
    for arg in args {
        remove_one(arg)?;
        println!();
    }
    Ok(())
}
''')
    r.write("hooks.rs", HOOKS_RS)  # the contributor's checkout: this one never had it
    b.later(2 * 86400)
    r.replace("hooks.rs", "pub fn run(", "pub fn run_install(")
    r.write("hooks.rs", r.read("hooks.rs") + '''
pub fn run_uninstall(args: &[String]) -> Result<HashMap<String, String>, HooksError> {
    let mut statuses = HashMap::new();
    for arg in args {
        statuses.insert(arg.clone(), remove_one(arg)?);
        println!();
    }
    Ok(statuses)
}
''')
    c1 = b.commit(r, "Hooks refactor with uninstall", author=COLLEAGUE)
    return b.scenario(r, {
        "hooks.rs": b.expect(r, "hooks.rs", b.human(c0, 2), b.human(c1), b.human(c0, 7), b.human(c1, 2),
                             b.human(c0, 2), b.human(c1), b.unknown(c1), b.human(c1, 3)),
    }, notes='''
        Line 3, ``pub fn run_install(...)``, is c1's, which removed ``pub fn run(`` (a rename):
        it is like the session's ``pub fn uninstall(...)``, which the file does not have. The
        session's only lines in c1 are ``println!();`` and ``for arg in args {`` (blame takes
        lines 13-14 from c0's copy), each in the file twice: they made it one of c1's sessions,
        and line 3 its line changed by a person (agent_modified). Neither the commit's record nor
        a line the file has once ties the session to c1: line 3 is a person's. Line 16 is the
        session's text, common, in no block of its (common_line).
        the session to c1: the line is a person's.
    ''')


NOTES_RS = src('''
    pub fn notes_ref() -> String {
        "refs/notes/ai".to_string()
    }
''')


@scenario
def notes_brought_back_days_later(b: Build) -> Scenario:
    """A session writes a notes merge; it lands. Months later a person's commit replaces its
    body with a fallback, and two days after that another commit brings the body back exactly
    as it was, beside the fallback. Undoing a removal comes soon after it; a line back days
    later came with new work, and who brought it back is not known."""
    r = b.init()
    r.write("refs.rs", NOTES_RS)
    c0 = b.commit(r, "Notes ref")
    cc = b.claude(r.path, patches=False)
    cc.prompt("Merge notes from a remote ref")
    body = ('''    let mut args = vec!["notes".to_string()];
    args.push(format!("--ref={}", notes_ref()));
    args.push("merge".to_string());
    args.push("-s".to_string());
    args.push("ours".to_string());
    exec_git(&args)
''')
    t1 = cc.edit(r.path / "refs.rs", "    \"refs/notes/ai\".to_string()\n}\n",
                 "    \"refs/notes/ai\".to_string()\n}\n\npub fn merge_notes(source: &str) -> Result<(), GitError> {\n"
                 + body + "    tracing::debug!(\"merged notes from {}\", source);\n}\n")
    c1 = b.commit(r, "Merge notes")
    b.later(180 * 86400)
    r.replace("refs.rs", body, "    fallback_merge_notes(source)\n")
    b.commit(r, "Merge notes by fast-import", author=COLLEAGUE)
    b.later(2 * 86400)
    r.replace("refs.rs", "    fallback_merge_notes(source)\n", body)
    c3 = b.commit(r, "Only reconstruct the tree as a fallback", author=COLLEAGUE)
    return b.scenario(r, {
        "refs.rs": b.expect(r, "refs.rs", b.human(c0, 3), b.agent(t1, c1, 2), b.unknown(c3, 6), b.agent(t1, c1, 2)),
    }, notes='''
        Lines 6-11 are t1's, landed by c1, removed by c2 180 days later and brought back by c3,
        two days after c2, exactly as c2 took them out. They were t1's (restored, c1 and c3); a
        line out of the file for more than a day came back with new work: unknown now (readded,
        the session in alternatives).
    ''')
