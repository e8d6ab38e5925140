#!/usr/bin/env python3
"""Refresh hansard/trace/schema/ from a copy of the Agent Trace specification's repository.

Agent Trace (github.com/cursor/agent-trace, CC BY 4.0) publishes its JSON schema as the
``json`` block of README.md section "6.1 Trace Record Schema" (schemas.ts, the zod source the
site builds it from, is not JSON). This takes that block, checks that it parses and is the
record schema, and writes beside it the licence notice and a README naming the source repository,
commit and path. The repository has no LICENSE file: its README's "License" section is the
licence statement, copied whole.

Usage
  python scripts/update_agent_trace_schema.py [--git-dir /work/.mirror/cursor+agent-trace/repo] [--rev HEAD]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "hansard" / "trace" / "schema"
SOURCE = "README.md"
SECTION = "### 6.1 Trace Record Schema"


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True, text=True).stdout


def schema_block(readme: str) -> str:
    """The first ```json block after the section's heading, as written."""
    at = readme.index(SECTION)
    m = re.compile(r"```json\n(.*?)\n```", re.S).search(readme, at)
    if m is None:
        raise SystemExit(f"no json block after {SECTION!r}")
    return m.group(1) + "\n"


def licence_section(readme: str) -> str:
    m = re.search(r"^## License\n(.*?)(?=^## |\Z)", readme, re.S | re.M)
    if m is None:
        raise SystemExit("no License section in the README")
    return m.group(1).strip() + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git-dir", default="/work/.mirror/cursor+agent-trace/repo")
    ap.add_argument("--rev", default="HEAD")
    args = ap.parse_args()
    sha = _git(args.git_dir, "rev-parse", f"{args.rev}^{{commit}}").strip()
    date = _git(args.git_dir, "show", "-s", "--format=%cI", sha).strip()
    readme = _git(args.git_dir, "show", f"{sha}:{SOURCE}")
    block = schema_block(readme)
    schema = json.loads(block)
    if schema.get("title") != "Agent Trace Record" or "files" not in schema.get("required", ()):
        raise SystemExit("the block is not the trace record schema")
    version = re.search(r"\*\*Version\*\*:\s*([0-9.]+)", readme)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "trace-record.json").write_text(block, encoding="utf-8")
    (OUT / "LICENSE.md").write_text(
        "The file trace-record.json in this folder is the JSON schema of the Agent Trace\n"
        "specification, copied unchanged from the specification's README.md (section 6.1).\n\n"
        "Source: Agent Trace, https://github.com/cursor/agent-trace (https://agent-trace.dev),\n"
        f"commit {sha}.\n\n"
        "The specification's licence statement, from its README (the repository has no LICENSE file):\n\n"
        + licence_section(readme)
        + "\nCC BY 4.0: https://creativecommons.org/licenses/by/4.0/ (legal code:\n"
        "https://creativecommons.org/licenses/by/4.0/legalcode). No changes were made to the schema.\n",
        encoding="utf-8")
    (OUT / "README.md").write_text(
        "# Agent Trace schema (vendored)\n\n"
        f"- source: https://github.com/cursor/agent-trace, commit `{sha}` ({date})\n"
        f"- path: `{SOURCE}`, the `json` block of \"6.1 Trace Record Schema\" (specification version "
        f"{version.group(1) if version else '?'})\n"
        "- licence: CC BY 4.0, see LICENSE.md\n"
        "- refresh: `python scripts/update_agent_trace_schema.py --git-dir MIRROR [--rev REV]`\n\n"
        "`schemas.ts` in the same repository is the zod source of this schema; its version regex is\n"
        "written with doubled backslashes (`/^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$/`), which in a JavaScript\n"
        "regex literal asks for a backslash, so the JSON block, which says `^[0-9]+\\.[0-9]+\\.[0-9]+$`,\n"
        "is taken as the schema. hansard validates with it (hansard/trace/validate.py), with its own\n"
        "checks of the `uuid`, `date-time` and `uri` formats.\n",
        encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}/trace-record.json from {sha} ({len(block)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
