"""`hansard demo`: a small repository and real-format transcripts, built in a temporary
folder from the story shipped in ``demo_data/story.json``, then indexed and explained.

The transcripts are written the way Claude Code and Codex write them (the same records and
fields as in shared/samples), so the demo runs the real ingest and `why` code end to end. It
never touches the user's own agent homes or store: every location points into the folder.
"""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def structured_patch(before: str, after: str) -> list[dict[str, Any]]:
    """Claude Code's jsdiff hunks: three lines of context, post-edit line numbers."""
    a, b = before.splitlines(), after.splitlines()
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines: list[str] = []
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                lines += [" " + ln for ln in a[x1:x2]]
            else:
                lines += ["-" + ln for ln in a[x1:x2]] + ["+" + ln for ln in b[y1:y2]]
        hunks.append({"oldStart": i1 + 1, "oldLines": i2 - i1, "newStart": j1 + 1, "newLines": j2 - j1, "lines": lines})
    return hunks


class Story:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.repo = root / "upload-service"
        self.env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
        for var, sub in (("CLAUDE_CONFIG_DIR", ".claude"), ("CODEX_HOME", ".codex"), ("GEMINI_CLI_HOME", "gemini"),
                         ("HANSARD_HOME", "hansard")):
            os.environ[var] = str(root / "home" / sub)

    def git(self, *args: str, env: dict[str, str] | None = None) -> None:
        subprocess.run(["git", *args], cwd=self.repo, env=env or self.env, check=True, capture_output=True)

    def run(self, steps: list[dict[str, Any]]) -> None:
        self.repo.mkdir(parents=True)
        self.git("init", "-q", "-b", "main")
        for step in steps:
            getattr(self, "do_" + step["do"])(step)

    def do_write(self, s: dict[str, Any]) -> None:
        p = self.repo / s["path"]
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(s["text"])

    def do_replace(self, s: dict[str, Any]) -> None:
        p = self.repo / s["path"]
        p.write_text(p.read_text().replace(s["old"], s["new"]))

    def do_commit(self, s: dict[str, Any]) -> None:
        name, _, mail = s["author"].partition(" <")
        env = dict(self.env, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=mail.rstrip(">"), GIT_COMMITTER_NAME=name,
                   GIT_COMMITTER_EMAIL=mail.rstrip(">"), GIT_AUTHOR_DATE=s["date"], GIT_COMMITTER_DATE=s["date"])
        self.git("add", "-A")
        self.git("commit", "-q", "-m", s["message"], env=env)

    def do_claude(self, s: dict[str, Any]) -> None:
        cwd = str(self.repo)
        t = datetime.fromisoformat(s["start"].replace("Z", "+00:00"))
        sid = s["session"]
        base = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid, "version": "2.1.119",
                "gitBranch": "main", "entrypoint": "cli"}
        recs: list[dict[str, Any]] = []
        parent = None

        def add(rec: dict[str, Any]) -> str:
            nonlocal parent, t
            t += timedelta(seconds=3)
            uuid = f"{sid[:8]}-0000-4000-8000-{len(recs):012d}"
            recs.append({"parentUuid": parent, **base, **rec, "uuid": uuid, "timestamp": _iso(t)})
            parent = uuid
            return uuid

        add({"type": "user", "message": {"role": "user", "content": s["prompt"]}, "permissionMode": "default"})
        for n, e in enumerate(s["edits"]):
            path = self.repo / e["path"]
            before = path.read_text()
            after = before.replace(e["old"], e["new"], 1)
            call = f"toolu_01{sid[:6]}{n:04d}Demo"
            add({"type": "assistant", "message": {"id": f"msg_demo{n}", "type": "message", "role": "assistant",
                 "model": "claude-opus-4-5", "content": [{"type": "tool_use", "id": call, "name": "Edit",
                 "input": {"file_path": str(path), "old_string": e["old"], "new_string": e["new"], "replace_all": False}}]}})
            path.write_text(after)
            add({"type": "user", "message": {"role": "user", "content": [{"tool_use_id": call, "type": "tool_result",
                 "content": f"The file {path} has been updated successfully."}]},
                 "toolUseResult": {"filePath": str(path), "oldString": e["old"], "newString": e["new"], "originalFile": before,
                                   "structuredPatch": structured_patch(before, after), "userModified": False,
                                   "replaceAll": False}})
        add({"type": "assistant", "message": {"id": "msg_demo_end", "type": "message", "role": "assistant",
             "model": "claude-opus-4-5", "content": [{"type": "text", "text": s["reply"]}]}})
        folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / cwd.replace("/", "-").replace(".", "-")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))

    def do_codex(self, s: dict[str, Any]) -> None:
        cwd = str(self.repo)
        t = datetime.fromisoformat(s["start"].replace("Z", "+00:00"))
        sid = s["session"]
        path = self.repo / s["add"]["path"]
        text = s["add"]["text"]
        patch = f"*** Begin Patch\n*** Add File: {path}\n" + "".join("+" + ln + "\n" for ln in text.splitlines()) + "*** End Patch\n"
        lines: list[dict[str, Any]] = []

        def add(kind: str, payload: dict[str, Any]) -> None:
            nonlocal t
            t += timedelta(seconds=2)
            lines.append({"timestamp": _iso(t), "type": kind, "payload": payload})

        add("session_meta", {"id": sid, "timestamp": _iso(t), "cwd": cwd, "originator": "codex-tui", "cli_version": "0.125.0",
                             "source": "cli", "model_provider": "openai",
                             "git": {"branch": "main", "repository_url": "https://example.com/upload-service.git"}})
        add("turn_context", {"turn_id": "turn-1", "cwd": cwd, "approval_policy": "on-request", "model": "gpt-5.4"})
        add("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": s["prompt"]}]})
        add("event_msg", {"type": "user_message", "message": s["prompt"], "images": []})
        add("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "call_demo0001",
                              "name": "apply_patch", "input": patch})
        add("event_msg", {"type": "patch_apply_begin", "call_id": "call_demo0001", "auto_approved": True,
                          "changes": {str(path): {"add": {"content": text}}}})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        add("event_msg", {"type": "patch_apply_end", "call_id": "call_demo0001", "turn_id": "turn-1",
                          "stdout": f"Success. Updated the following files:\nA {path}\n", "stderr": "", "success": True,
                          "changes": {str(path): {"type": "add", "content": text}}})
        add("response_item", {"type": "custom_tool_call_output", "call_id": "call_demo0001",
                              "output": json.dumps({"output": f"Success. Updated the following files:\nA {path}\n",
                                                    "metadata": {"exit_code": 0, "duration_seconds": 0.1}})})
        add("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": s["reply"]}]})
        day = Path(os.environ["CODEX_HOME"]) / "sessions" / s["start"][:4] / s["start"][5:7] / s["start"][8:10]
        day.mkdir(parents=True, exist_ok=True)
        (day / f"rollout-{s['start'][:19].replace(':', '-')}-{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def run_demo(keep: bool = False) -> int:
    from hansard.render import answers as render
    from hansard.answers.why import explain
    from hansard.ingest.run import index
    from hansard.store.sqlite.db import connect

    story = json.loads(resources.files("hansard").joinpath("demo_data/story.json").read_text())
    tmp = tempfile.mkdtemp(prefix="hansard-demo-")
    s = Story(Path(tmp))
    s.run(story["steps"])
    print(f"Built a repository with {len(story['steps'])} steps and two agent sessions in {tmp}\n")
    db = connect()
    summary = index(db)
    assert summary is not None
    print("$ hansard index")
    print(render.index_summary(summary.as_dict()))
    from hansard.store.sqlite.queries import list_sessions

    print("\n$ hansard sessions")
    print(render.sessions(list_sessions(db)))
    for ask in story["ask"]:
        print(f"\n$ hansard why {ask}")
        ans = explain(db, ask, cwd=str(s.repo))
        print(render.why_line(ans, ans["lines"][0]) if ":" in ask else render.why_file(ans))
    if keep:
        print(f"\nKept {tmp}. Try: cd {s.repo} && HANSARD_HOME={os.environ['HANSARD_HOME']} hansard why app/retry.py:9")
    else:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    sys.stdout.flush()
    return 0
