"""Attribution scenarios for the precision classes of busy repositories, registered
in ``SCENARIOS`` beside the others and written the same way (real repositories, transcripts
in each agent's real format, exact expectations for every line).

* common lines (``if err != nil {``, ``return err``) that an older session also wrote, in a
  commit whose own sessions wrote them there;
* ``agent_modified`` lines whose last agent version came from another session of the commit
  (a MultiEdit, a whole-file Write over a file another session wrote);
* a line removed by one commit and brought back by a later one (``git checkout OLD -- file``);
* a branch rebased while another session wrote the same lines in another worktree;
* a fixup written by a second session and squashed in by ``rebase -i --autosquash``;
* identical lines written by two sessions in parallel worktrees, where the `git commit`
  output of one of them names the commit.

Go source is written with four-space indentation here and committed with tabs, as gofmt would.
"""

from __future__ import annotations

import re

from fixtures_repos.gitrepo import COLLEAGUE
from fixtures_repos.scenarios import Build, Scenario, scenario, src
from fixtures_repos.writers import Add, Update


def go(text: str) -> str:
    """Go source: the literal's four-space indentation becomes tabs."""
    return re.sub(r"(?m)^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), src(text))


def commit_output(branch: str, sha: str, summary: str, files: int = 1, insertions: int = 1) -> str:
    """What `git commit` prints."""
    return (f"[{branch} {sha[:7]}] {summary}\n {files} file changed, {insertions} insertion"
            f"{'s' if insertions != 1 else ''}(+)\n")


STORE_GO = go('''
    package store

    import (
        "errors"
        "os"
    )

    var ErrClosed = errors.New("store: closed")

    type Store struct {
        f      *os.File
        closed bool
    }

    func Open(path string) (*Store, error) {
        f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
        if err != nil {
            return nil, err
        }
        return &Store{f: f}, nil
    }

    func (s *Store) Flush() error {
        if s.closed {
            return ErrClosed
        }
        return nil
    }

    func (s *Store) Close() error {
        s.closed = true
        err := s.f.Sync()
        if err != nil {
            return err
        }
        return s.f.Close()
    }
''')


@scenario
def precision_common_lines(b: Build) -> Scenario:
    """Common Go lines (``if err != nil {``, ``return err``, ``}``) that an older session's
    whole-file Write also added: the commit's own session (Codex, two apply_patch calls) wrote
    them there, although the older Write has more of the surrounding lines."""
    r = b.init()
    r.write("README.md", "# store\n")
    b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("A tiny append-only store in Go: Open and Close")
    path = r.path / "store/store.go"
    t1 = cc.write(path, STORE_GO)
    c1 = b.commit(r, "Store: open and close")
    cx = b.codex(r.path)
    cx.prompt("Add Append(rec) that writes a record")
    t2 = cx.apply_patch(Update(path, ("\t\treturn err\n\t}\n\treturn s.f.Close()\n}\n",
                                      "\t\treturn err\n\t}\n\treturn s.f.Close()\n}\n\n"
                                      "func (s *Store) Append(rec []byte) error {\n"
                                      "\t_, err := s.f.Write(rec)\n\treturn nil\n}\n")))
    cx.prompt("Append swallows write errors; return them")
    t3 = cx.apply_patch(Update(path, ("\t_, err := s.f.Write(rec)\n\treturn nil\n",
                                      "\t_, err := s.f.Write(rec)\n\tif err != nil {\n\t\treturn err\n\t}\n"
                                      "\treturn nil\n")))
    cx.end_turn()
    c2 = b.commit(r, "Store: append records")
    return b.scenario(r, {
        "store/store.go": b.expect(r, "store/store.go",
                                   b.agent(t1, c1, 37), b.agent(t2, c2, 3), b.agent(t3, c2, 3), b.unknown(c2),
                                   b.agent(t3, c2)),
    }, notes='''
        Lines 38-45 live in c2 (git blame -M finds no moved block: the common run is too
        short). `if err != nil {` (41) was added by t1, c1's Write, whose added lines also
        cover `return err`, `}`, `return nil` and the blank lines around it (more block support
        than t3 has), and by t3. The commit's sessions are Codex's alone (its Append lines are
        written by nobody else), so t3 is preferred; `return err` and both `}` inherit from t3.
        `return nil` (44) is trivial and t3 did not add it: unknown.
    ''')


CONFIG_GO = go('''
    package config

    import "time"

    type Config struct {
        Addr    string
        Timeout time.Duration
        Retries int
    }
''')

SERVER_GO = go('''
    package server

    import (
        "net/http"
        "time"
    )

    func New(addr string, h http.Handler) *http.Server {
        return &http.Server{
            Addr:              addr,
            Handler:           h,
            ReadHeaderTimeout: 5 * time.Second,
        }
    }
''')


@scenario
def precision_modified_other_session(b: Build) -> Scenario:
    """Two sessions' edits land in one commit; a person then changes a line the second session
    had rewritten (a MultiEdit; a whole-file Write over the first session's file). The changed
    lines are the second session's, modified: not the first session's, although the commit
    replaced the first session's line."""
    r = b.init()
    r.write("config/config.go", CONFIG_GO)
    c0 = b.commit(r, "Config type")
    cfg = r.path / "config/config.go"
    cc = b.claude(r.path)
    cc.prompt("A Default() config, and a server constructor")
    t1 = cc.edit(cfg, "    Retries int\n}\n".replace("    ", "\t"), go('''
            Retries int
        }

        func Default() Config {
            return Config{
                Addr:    ":8080",
                Timeout: 30 * time.Second,
                Retries: 3,
            }
        }
    ''').replace("    Retries int", "\tRetries int", 1).replace("Retries int", "Retries int", 1))
    srv = r.path / "server/server.go"
    t2 = cc.write(srv, SERVER_GO)
    c1 = b.commit(r, "Default config and server")
    old = b.claude(r.path, style="1.0")
    old.prompt("Slow clients time out; give them longer, and let the environment override the address")
    t3 = old.multi_edit(cfg, [
        ("\t\tTimeout: 30 * time.Second,\n", "\t\tTimeout: 45 * time.Second,\n"),
        ("\t\tRetries: 3,\n\t}\n}\n", go('''
                    Retries: 3,
                }
            }

            // FromEnv is Default with APP_ADDR, when set, as the address.
            func FromEnv(getenv func(string) string) Config {
                c := Default()
                if addr := getenv("APP_ADDR"); addr != "" {
                    c.Addr = addr
                }
                return c
            }
        ''')),
    ])
    t4 = old.write(srv, SERVER_GO.replace("ReadHeaderTimeout: 5 * time.Second,", "ReadHeaderTimeout: 10 * time.Second,")
                   .replace("\t\tHandler:           h,\n", "\t\tHandler:           h,\n\t\tIdleTimeout:       time.Minute,\n"))
    r.replace("config/config.go", "Timeout: 45 * time.Second,", "Timeout: 60 * time.Second,")
    r.replace("server/server.go", "ReadHeaderTimeout: 10 * time.Second,", "ReadHeaderTimeout: 15 * time.Second,")
    c2 = b.commit(r, "Longer timeouts; address from the environment")
    return b.scenario(r, {
        "config/config.go": b.expect(r, "config/config.go", b.human(c0, 9), b.agent(t1, c1, 4),
                                     b.modified(t3, c2), b.agent(t1, c1, 3), b.agent(t3, c2, 9)),
        "server/server.go": b.expect(r, "server/server.go", b.agent(t2, c1, 11), b.agent(t4, c2),
                                     b.modified(t4, c2), b.human(c1, 2)),
    }, notes='''
        config.go:14 and server.go:13 are lines of c2 that a person changed after the second
        session (its MultiEdit t3, its whole-file Write t4) had rewritten them; c2 replaced the
        first session's version, but the session whose edits make up the rest of c2 wrote the
        version the person changed.
    ''')


HANDLER_GO = go('''
    package api

    import "net/http"

    func Health(w http.ResponseWriter, r *http.Request) {
        w.WriteHeader(http.StatusOK)
    }
''')


@scenario
def precision_restored_line(b: Build) -> Scenario:
    """A session's function is removed by a person's commit and brought back later by another
    session running `git checkout OLD -- file`: the lines name the session that wrote them, as
    restored (the commit that first landed them, and the restoring commit)."""
    r = b.init()
    r.write("api/handler.go", HANDLER_GO)
    c0 = b.commit(r, "Health endpoint")
    cx = b.codex(r.path)
    cx.prompt("Validate the Content-Type of JSON requests")
    path = r.path / "api/handler.go"
    t1 = cx.apply_patch(Update(path, ("\tw.WriteHeader(http.StatusOK)\n}\n", go('''
                w.WriteHeader(http.StatusOK)
            }

            func requireJSON(r *http.Request) bool {
                return r.Header.Get("Content-Type") == "application/json"
            }
    '''))))
    cx.end_turn()
    c1 = b.commit(r, "requireJSON helper")
    r.write("api/handler.go", HANDLER_GO)
    b.commit(r, "Drop the unused requireJSON", author=COLLEAGUE)
    cc = b.claude(r.path)
    cc.prompt("We need requireJSON back; restore it from the commit that added it")
    cc.bash(f"git checkout {c1[:9]} -- api/handler.go", run=lambda: r.checkout(c1, paths=["api/handler.go"]))
    c3 = b.commit(r, "Bring back requireJSON")
    cc.bash('git commit -am "Bring back requireJSON"', stdout=commit_output("main", c3, "Bring back requireJSON"))
    return b.scenario(r, {
        "api/handler.go": b.expect(r, "api/handler.go", b.human(c0, 7), b.agent(t1, c3, 4)),
    }, notes='''
        c1 landed t1's function, c2 removed it, c3 restored it (the Claude session ran the
        checkout and printed the commit): the lines are t1's, rule `restored`, with
        original_commit c1 and restoring_commit c3.
    ''')


UTIL_GO = go('''
    package util

    import "strings"

    func Title(s string) string {
        return strings.ToUpper(s[:1]) + s[1:]
    }
''')

TRUNCATE_GO = go('''

    func Truncate(s string, n int) string {
        if len(s) <= n {
            return s
        }
        return s[:n] + "…"
    }
''')


@scenario
def precision_rebase_same_lines_elsewhere(b: Build) -> Scenario:
    """A branch is rebased (every commit gets the rebase's committer time) after another
    session, in another worktree, wrote the same function into the same file and never
    committed it: the lines stay with the session that wrote them before the commit was
    authored."""
    r = b.init()
    r.write("util/strings.go", UTIL_GO)
    c0 = b.commit(r, "Title helper")
    r.checkout("feature", create=True)
    cc = b.claude(r.path, branch="feature")
    cc.prompt("Add Truncate(s, n) with an ellipsis")
    path = r.path / "util/strings.go"
    t1 = cc.edit(path, "\treturn strings.ToUpper(s[:1]) + s[1:]\n}\n",
                 "\treturn strings.ToUpper(s[:1]) + s[1:]\n}\n" + TRUNCATE_GO)
    f1 = b.commit(r, "Truncate helper")
    r.checkout("main")
    wt = r.worktree_add(b.base / "spike", "spike", "main")
    cx = b.codex(wt.path, branch="spike")
    cx.prompt("Spike: a Truncate helper for log lines")
    cx.apply_patch(Update(wt.path / "util/strings.go", ("\treturn strings.ToUpper(s[:1]) + s[1:]\n}\n",
                                                        "\treturn strings.ToUpper(s[:1]) + s[1:]\n}\n" + TRUNCATE_GO)))
    cx.end_turn()
    r.write("README.md", "# util\n")
    b.commit(r, "Readme", author=COLLEAGUE)
    r.checkout("feature")
    r.rebase_interactive("main", b.when(), todo=[f"pick {f1} Truncate helper"])
    rebased = r.head()
    return b.scenario(r, {
        "util/strings.go": b.expect(r, "util/strings.go", b.human(c0, 7), b.agent(t1, rebased, 6)),
    }, notes='''
        The rebased commit keeps the author time of f1; its committer time is the rebase's.
        The Codex session wrote the same lines after f1 was authored and before the rebase:
        nothing ties it to the commit (it did not make, amend or rebase it; an earlier edit
        wrote every line), so it does not count, however new.
    ''')


LRU_GO = go('''
    package cache

    type LRU struct {
        max   int
        items map[string][]byte
        order []string
    }

    func New(max int) *LRU {
        return &LRU{max: max, items: map[string][]byte{}}
    }

    func (c *LRU) Get(k string) ([]byte, bool) {
        v, ok := c.items[k]
        return v, ok
    }
''')


@scenario
def precision_fixup_squashed(b: Build) -> Scenario:
    """A second session writes a fixup for the first session's commit (its `git commit
    --fixup` output names it); a person squashes it in with `rebase -i --autosquash`. The fixup
    lines came after the commit was authored and still count: the session ran the fixup."""
    r = b.init()
    r.write("README.md", "# cache\n")
    b.commit(r, "Initial commit")
    r.checkout("feature", create=True)
    cc = b.claude(r.path, branch="feature")
    cc.prompt("An LRU cache for blobs")
    path = r.path / "cache/lru.go"
    t1 = cc.write(path, LRU_GO)
    f1 = b.commit(r, "LRU cache")
    cc.bash('git add cache && git commit -m "LRU cache"', stdout=commit_output("feature", f1, "LRU cache", 1, 17))
    cx = b.codex(r.path, branch="feature")
    cx.prompt("Get must count as a use: move the key to the back; and add Len")
    t2 = cx.apply_patch(Update(path, ("\tv, ok := c.items[k]\n\treturn v, ok\n}\n", go('''
            v, ok := c.items[k]
            if ok {
                c.touch(k)
            }
            return v, ok
        }

        func (c *LRU) Len() int {
            return len(c.items)
        }
    '''))))
    fx = b.commit(r, "fixup! LRU cache")
    cx.exec(f"git commit -a --fixup {f1[:7]}", output=commit_output("feature", fx, "fixup! LRU cache", 1, 7))
    cx.end_turn()
    r.rebase_interactive("main", b.when(), todo=[f"pick {f1} LRU cache", f"fixup {fx} fixup! LRU cache"])
    squashed = r.head()
    return b.scenario(r, {
        "cache/lru.go": b.expect(r, "cache/lru.go", b.agent(t1, squashed, 14), b.agent(t2, squashed, 3),
                                 b.agent(t1, squashed), b.agent(t2, squashed, 5)),
    }, notes='''
        The squashed commit has f1's author time and the rebase's committer time; t2 came in
        between. It counts: the Codex session printed `fixup! LRU cache` for it.
    ''')


RETRY_GO = go('''
    package retry

    import "time"

    func Backoff(attempt int) time.Duration {
        d := 100 * time.Millisecond << attempt
        if d > 10*time.Second {
            d = 10 * time.Second
        }
        return d
    }
''')


@scenario
def precision_commit_output(b: Build) -> Scenario:
    """Two sessions in parallel worktrees write the same file with the same text; the one that
    wrote first commits it, and its `git commit` output names the commit. The newer session's
    identical edit in the other worktree was never committed."""
    r = b.init()
    r.write("README.md", "# retry\n")
    b.commit(r, "Initial commit")
    wt = r.worktree_add(b.base / "parallel", "parallel")
    cc = b.claude(r.path)
    cc.prompt("Exponential backoff capped at ten seconds, in retry/retry.go")
    t1 = cc.write(r.path / "retry/retry.go", RETRY_GO)
    cx = b.codex(wt.path, branch="parallel")
    cx.prompt("Exponential backoff capped at ten seconds, in retry/retry.go")
    cx.apply_patch(Add(wt.path / "retry/retry.go", RETRY_GO))
    cx.end_turn()
    c1 = b.commit(r, "Backoff helper")
    cc.bash('git add retry && git commit -m "Backoff helper"', stdout=commit_output("main", c1, "Backoff helper", 1, 12))
    return b.scenario(r, {
        "retry/retry.go": b.expect(r, "retry/retry.go", b.agent(t1, c1, 11)),
    }, notes='''
        Both edits added every line before c1, with the same block support, and the Codex one
        is newer; the Claude session's own shell output names c1, which decides.
    ''')


@scenario
def precision_common_line_outside_the_commits_sessions(b: Build) -> Scenario:
    """A common line (``if err != nil {``) that an older session wrote in this file, typed again
    by a person into a commit whose own `git commit` output names another session (from a real
    entireio/cli file, where 4 such lines named the older session)."""
    r = b.init()
    r.write("store/store.go", go('''
        package store

        func Load() error {
            return nil
        }
    '''))
    c0 = b.commit(r, "Initial commit")
    old = b.claude(r.path)
    old.prompt("Load reads the config and fails on a read error")
    t1 = old.edit(r.path / "store/store.go", "\treturn nil\n",
                  "\tcfg, err := readConfig()\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn validate(cfg)\n")
    c1 = b.commit(r, "Load reads the config")
    b.later(3600)
    new = b.claude(r.path)
    new.prompt("Save writes the config back")
    text = (r.path / "store/store.go").read_text()
    t2 = new.edit(r.path / "store/store.go", text,
                  text + "\nfunc Save(cfg Config) error {\n\tdata, err := encodeConfig(cfg)\n")
    r.write("store/store.go", (r.path / "store/store.go").read_text()
            + "\tif err != nil {\n\t\treturn wrapSaveError(cfg, data)\n\t}\n\treturn writeConfig(data)\n}\n")
    c2 = b.commit(r, "Save writes the config")
    new.bash('git commit -am "Save writes the config"', stdout=commit_output("main", c2, "Save writes the config", 1, 9))
    return b.scenario(r, {
        "store/store.go": b.expect(r, "store/store.go", b.human(c0, 3), b.agent(t1, c1, 5), b.human(c0),
                                   b.agent(t2, c2, 3), b.unknown(c2), b.human(c2), b.unknown(c2), b.human(c2),
                                   b.unknown(c2)),
    }, notes='''
        The person's second `if err != nil {` matches only the older session's edit, which wrote
        that text into this file before c2; c2's own output names the newer session, so the older
        one does not get the line: unknown, with the older session as the alternative. The
        newer session's lines are its own.
    ''')



SETTINGS_PY = src('''
    """Uploader settings."""

    ROOT = "/var/lib/uploader"
    WORKERS = 4
    RETRIES = 3
    TIMEOUT_S = 10
''')


@scenario
def precision_session_edits_a_persons_uncommitted_line(b: Build) -> Scenario:
    """A person changes a line and leaves it uncommitted; a session then rewrites that line and
    commits the work, its `git commit` output naming the commit. The line the session replaced
    is in no commit and no edit (the commit's parent has the line before the person's change),
    yet the session made this very commit on this tree: its line is its own."""
    r = b.init()
    r.write("settings.py", SETTINGS_PY)
    c0 = b.commit(r, "Settings")
    b.later(600)
    r.replace("settings.py", "TIMEOUT_S = 10\n", "TIMEOUT_S = 30\n")
    cc = b.claude(r.path)
    cc.prompt("Large uploads time out: make the timeout scale with the file size")
    t1 = cc.edit(r.path / "settings.py", "TIMEOUT_S = 30\n",
                 "TIMEOUT_S = 30\nTIMEOUT_S_PER_GB = 20\n")
    t2 = cc.edit(r.path / "settings.py", "TIMEOUT_S = 30\n", "TIMEOUT_BASE_S = 30\n")
    c1 = b.commit(r, "Timeouts scale with size")
    cc.bash('git commit -am "Timeouts scale with size"', stdout=commit_output("main", c1, "Timeouts scale with size", 1, 2))
    return b.scenario(r, {
        "settings.py": b.expect(r, "settings.py", b.human(c0, 5), b.agent(t2, c1), b.agent(t1, c1)),
    }, notes='''
        t2 replaced `TIMEOUT_S = 30`, a line only the person's uncommitted change had; c1's parent
        has `TIMEOUT_S = 10`. Without a record tying the work to c1 that would be an edit made
        on another version of the file (other_branch); the session's own `git commit` output
        names c1.
    ''')
