"""Fuzzing the readers of the other sources (recorders, Entire's checkpoints) as the transcript parsers are fuzzed: agent
commit trailers (read by git's own parser), qwen-code's ``refs/notes/ai-attribution`` notes
and SpecStory histories, mangled every way (odd keys and values, folded and CRLF lines,
unicode, huge values, JSON of any type, notes on trees and blobs, histories cut anywhere), in a
repository indexed and asked `why` without an error; the readers' pure parts on random input;
and the repository left as it was.

``HANSARD_RECORDED_FUZZ=2000 pytest tests/test_recorded_fuzz.py`` runs a longer campaign."""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import orjson
from fuzzing import ALL_OPS, MutationContext, mutate

from fixtures_repos.fastimport import FastImport
from fixtures_repos.gitrepo import GitRepo, git_env
from hansard.agents.specstory.history import parse as parse_history
from hansard.agents.trailers.coauthors import agent_of, parse
from hansard.recorders.qwen_code.notes import parse_note
from tests.helpers import git_dir_files, run_cli

N = int(os.environ.get("HANSARD_RECORDED_FUZZ", "300"))
SAMPLE = Path(__file__).parent / "specstory_samples" / "2025-11-15_06-33Z-check-and-fix-tag-format-in-config.md"
KEYS = ["Co-authored-by", "Co-Authored-By", "co-authored-by", "CO-AUTHORED-BY", "Claude-Session", "claude-session",
        "Claude-session", "Signed-off-by", "Entire-Checkpoint", "Co-authored-by ", "Co-authored-by\t"]
VALUES = ["Claude <noreply@anthropic.com>", "Claude Opus 4.8 <noreply@anthropic.com>", "Codex <noreply@openai.com>",
          "Cursor Agent <cursoragent@cursor.com>", "Copilot <198982749+Copilot@users.noreply.github.com>",
          "aider (gpt-4o) <noreply@aider.chat>", "aider ((()) <aider@aider.chat>", "Gemini <noreply@google.com>",
          "Qwen-Coder <qwen-coder@alibabacloud.com>", "Dana <dana@example.com>", "https://claude.ai/code/session_01163By7fL9BGukpxNd3duHY",
          "session_01163By7fL9BGukpxNd3duHY", "https://claude.ai/code/session_", "https://evil.example/code/session_0123456789",
          "", " ", "<>", "<<a@b>>", "\u202e", "💥", "x" * 5000, "Claude <noreply@anthropic.com> <x@y>", "\x1e\x1f",
          "Claude\n <noreply@anthropic.com>", "a\r\nb"]
WEIRD: list[Any] = [None, True, 0, -1, 2**63 - 1, 1.5, "", "x", "\x00", "\u202e", [], {}, [None], {"": None}, "9" * 40,
                    "../../etc/passwd", -0.0, 1e308]


def _message(rnd: random.Random) -> str:
    subject = rnd.choice(["fix", "", "a" * 300, "x\x1fy", "Merge branch 'x'", "💥"])
    body = rnd.choice(["", "\n\nbody text\n", "\n\nCo-authored-by: in the body\nmore prose\n"])
    lines = []
    for _ in range(rnd.randint(0, 5)):
        lines.append(f"{rnd.choice(KEYS)}:{rnd.choice(['', ' ', '  '])}{rnd.choice(VALUES)}")
        if rnd.random() < 0.1:
            lines.append("  folded continuation")
    sep = rnd.choice(["\n", "\r\n"])
    return subject + body + ("\n\n" + sep.join(lines) + "\n" if lines else "")


def _note(rnd: random.Random, path: str) -> bytes:
    note: dict[str, Any] = {"version": 1, "generator": "Qwen-Coder",
                            "files": {path: {"aiChars": rnd.randint(0, 300), "humanChars": rnd.randint(0, 300),
                                             "percent": 50, "surface": "cli"}},
                            "summary": {"aiPercent": 50}, "excludedGenerated": [], "promptCount": 1}
    r = rnd.random()
    if r < 0.1:
        return bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 60)))
    entry = note["files"][path]
    for _ in range(rnd.randint(0, 3)):
        target = entry if rnd.random() < 0.5 else note
        target[rnd.choice([*target, "x"])] = copy.deepcopy(rnd.choice(WEIRD))
    if rnd.random() < 0.1:
        note["files"] = {rnd.choice(["", "a\x00b", "../x", "\\w\\in", path.upper()]): copy.deepcopy(rnd.choice(WEIRD))}
    return orjson.dumps(note)


def test_fuzz_trailers_notes_and_histories_in_a_repository(tmp_path: Path, monkeypatch) -> None:
    rnd = random.Random(24)
    repo = GitRepo.init(tmp_path / "app")
    ctx = MutationContext(types=["x"], ids=["80f30514-fcad-482a-8822-0444aaaba3db"], pool=[], big=64 << 10)
    sample = SAMPLE.read_bytes()
    s = FastImport()
    files = [f"src/m{k}.py" for k in range(5)]
    text = {f: "" for f in files}
    commits: list[int] = []
    when = 1_794_000_000
    for k in range(N):
        f = rnd.choice(files)
        text[f] += f"value_{k} = compute({k})\n"
        changed: list[tuple[str, str, int | str]] = [("100644", f, s.blob(text[f].encode()))]
        if rnd.random() < 0.05:  # a mangled SpecStory history committed with the code
            hist = mutate(sample, [rnd.choice(ALL_OPS) for _ in range(rnd.randint(0, 3))], rnd, ctx)
            changed.append(("100644", f".specstory/history/h{k % 7}.md", s.blob(hist)))
        s.commit("refs/heads/main", changed, when + k, message=_message(rnd), who="Dana <dana@example.com>")
        commits.append(s.mark)
    # qwen notes: on most commits, some on marks that are no commit at all
    parts = [b"commit refs/notes/ai-attribution\ncommitter Q <q@example.com> %d +0000\ndata 5\nnotes\n" % (when + N)]
    for mark in commits:
        if rnd.random() < 0.7:
            data = _note(rnd, rnd.choice(files))
            parts.append(b"N inline :%d\ndata %d\n%s\n" % (mark, len(data), data))
    stream = s.stream().removesuffix(b"done\n") + b"".join(parts) + b"\ndone\n"
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo.path, env=git_env(), input=stream, check=True,
                   capture_output=True)
    repo.git("checkout", "-q", "main")
    # a note on the notes tree's own blob: what a note is attached to is never assumed to be a commit
    repo.git("notes", "--ref=refs/notes/ai-attribution", "add", "-f", "-m", "{}", "HEAD^{tree}")

    before = git_dir_files(repo.path / ".git")
    refs = repo.git("for-each-ref")
    for args in (("index", str(repo.path)), ("index", str(repo.path)), ("index",)):
        rc, out, err = run_cli(*args)
        assert rc == 0, (args, out, err)
    monkeypatch.chdir(repo.path)
    recorded = set()
    for f in files:
        rc, out, err = run_cli("why", f, "--json")
        assert rc == 0, (f, out, err)
        for ln in json.loads(out)["lines"]:
            rec = ln.get("recorded")
            if rec is not None:
                recorded.add(rec["by"])
                assert rec["commit"] == ln.get("commit", rec["commit"]) and isinstance(rec.get("agent"), str)
                assert "session_id" not in ln or ln["session_id"] is None or rec["by"] != "trailer"
    assert recorded == {"trailer", "qwen-code"}  # the campaign reached both readers
    rc, out, _ = run_cli("sessions", "--provider", "specstory", "--json")
    assert rc == 0
    assert git_dir_files(repo.path / ".git") == before and repo.git("for-each-ref") == refs


def test_fuzz_pure_readers() -> None:
    rnd = random.Random(240)
    ctx = MutationContext(types=["x"], ids=["a"], pool=[], big=64 << 10)
    seed_note = _note(random.Random(1), "a.py")
    seed_hist = SAMPLE.read_bytes()
    for _ in range(N * 10):
        field = "\x1e".join(f"{rnd.choice(KEYS)}: {rnd.choice(VALUES)}" for _ in range(rnd.randint(0, 4)))
        if rnd.random() < 0.3:
            field = "".join(chr(rnd.randrange(0x20, 0x3000)) for _ in range(rnd.randint(0, 80)))
        t = parse(field)
        assert t is None or (t.agents and t.recorded("0" * 40)["agent"] == t.agents[0])
        agent_of(rnd.choice(VALUES) + rnd.choice(["", ">", "<", " (x)"]))
        n = parse_note(mutate(seed_note, [rnd.choice(ALL_OPS)], rnd, ctx))
        assert n is None or all(s.ai_chars >= 0 and s.human_chars >= 0 and 0 <= s.percent <= 100 for s in n.files.values())
        raw = mutate(seed_hist[:rnd.randrange(len(seed_hist))], [rnd.choice(ALL_OPS)], rnd, ctx)
        items = parse_history(raw.decode("utf-8", "replace"), "f.md", "/r")
        assert len({i.session_id for i in items}) == 1
