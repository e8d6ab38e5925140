"""The story behind `hansard demo`, and the generator of its shipped data.

``hansard/demo/data/`` holds what the writers produce from ``STORY``: ``story.json`` (each
commit's message, author, date and changed files; where each transcript goes; what to ask)
and the transcripts, with the repository's path written as ``@REPO@``. `hansard demo` copies
them into a temporary folder and builds the git repository; it needs nothing from here.
Regenerate after changing the story or the writers (a test checks they agree):

    python -m fixtures_repos.demo hansard/demo/data
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from fixtures_repos.writers import Story

REPO = "upload-service"
PLACEHOLDER = "@REPO@"

STORY: list[dict[str, Any]] = [
    {"do": "write", "path": "app/retry.py", "text": (
        "import time\n\n\ndef upload(send, payload, attempts=5):\n    \"\"\"Send payload, retrying failed responses.\"\"\"\n"
        "    for attempt in range(attempts):\n        response = send(payload)\n        if response.ok:\n"
        "            return response\n    raise RuntimeError(\"upload failed after %d attempts\" % attempts)\n")},
    {"do": "write", "path": "README.md", "text": "# upload-service\n\nUploads payloads with retries.\n"},
    {"do": "commit", "message": "Initial upload helper", "author": "Alice Example <alice@example.com>",
     "date": "2026-11-10T09:30:00+01:00"},
    {"do": "claude", "session": "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11", "start": "2026-11-12T13:02:41.000Z",
     "prompt": "uploads fail on the first 502; add a capped exponential backoff",
     "reply": "I added a capped exponential backoff between attempts.",
     "edits": [
         {"path": "app/retry.py",
          "old": "def upload(send, payload, attempts=5):\n",
          "new": "def upload(send, payload, attempts=5, base=0.5, cap=8.0):\n"},
         {"path": "app/retry.py",
          "old": "        if response.ok:\n            return response\n",
          "new": "        if response.ok:\n            return response\n        backoff = min(cap, base * 2 ** attempt)\n"
                 "        time.sleep(backoff)\n"},
     ]},
    {"do": "replace", "path": "app/retry.py", "old": "        time.sleep(backoff)\n",
     "new": "        time.sleep(backoff)  # jitter later\n"},
    {"do": "commit", "message": "Add capped backoff to upload retry", "author": "Alice Example <alice@example.com>",
     "date": "2026-11-12T14:09:00+01:00"},
    {"do": "codex", "session": "019e7a44-5b20-7c31-8d2e-3f6a9b1c0d42", "start": "2026-11-13T10:15:02.000Z",
     "prompt": "write a test that the backoff never exceeds the cap",
     "reply": "Added tests/test_retry.py.",
     "add": {"path": "tests/test_retry.py", "text": (
         "from app import retry\n\n\ndef test_backoff_is_capped(monkeypatch):\n    sleeps = []\n"
         "    monkeypatch.setattr(retry.time, \"sleep\", sleeps.append)\n"
         "    failing = lambda payload: type(\"R\", (), {\"ok\": False})()\n    try:\n"
         "        retry.upload(failing, b\"x\", attempts=8, cap=3.0)\n    except RuntimeError:\n        pass\n"
         "    assert max(sleeps) == 3.0\n")}},
    {"do": "commit", "message": "Test the backoff cap", "author": "Bob Example <bob@example.com>",
     "date": "2026-11-13T11:20:00+01:00"},
]

ASK = ["app/retry.py:10", "app/retry.py"]


def generate() -> dict[str, str]:
    """Every file of ``hansard/demo/data`` by its relative name, as text."""
    saved = dict(os.environ)
    try:
        with tempfile.TemporaryDirectory(prefix="hansard-demo-data-") as tmp:
            story = Story(Path(tmp), REPO)
            story.run(STORY)
            repo = json.dumps(str(story.repo))[1:-1]
            out: dict[str, str] = {}
            transcripts = []
            for path in story.transcripts:
                for var, home in (("CLAUDE_CONFIG_DIR", "claude"), ("CODEX_HOME", "codex")):  # noqa: B007 - read after the break
                    if path.is_relative_to(os.environ[var]):
                        rel = path.relative_to(os.environ[var])
                        break
                else:
                    raise AssertionError(f"{path} is in no agent home")
                if home == "claude":  # the project folder is named after the repository's path
                    rel = Path("projects", "{project}", rel.name)
                name = f"transcripts/{path.name}"
                out[name] = path.read_text().replace(repo, PLACEHOLDER)
                transcripts.append({"home": home, "path": rel.as_posix(), "file": name})
            manifest = {"repo": REPO, "commits": story.commits, "transcripts": transcripts, "ask": ASK}
            out["story.json"] = json.dumps(manifest, indent=1, ensure_ascii=False) + "\n"
            return out
    finally:
        os.environ.clear()
        os.environ.update(saved)


def write(folder: Path) -> None:
    for name, text in generate().items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


if __name__ == "__main__":
    write(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "hansard" / "demo" / "data"))
