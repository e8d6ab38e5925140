#!/usr/bin/env python3
"""Regenerate hansard/ingest/secret_rules/gitleaks.json from a gitleaks checkout.

gitleaks (github.com/gitleaks/gitleaks, MIT) keeps its rules in config/gitleaks.toml. This
reads that file, translates each rule's Go (RE2) regex for Python's ``re`` (see
hansard/ingest/gitleaks.py), writes the vendored JSON, copies gitleaks' LICENSE beside it, and
prints how many rules were taken and, by reason, how many were left out.

It also keeps the patterns of the detect-secrets plugins hansard reuses as data
(secret_rules/detect_secrets.json, from the installed package, with --detect-secrets): importing
the plugins costs ~0.1 s at a process's first redaction.

Either way (and alone with --screen) it writes secret_rules/screen.json, the literals and gates
of the redactor's rules that hansard/ingest/secret_screen.py screens served text with, and the
digest of the redactor that cached answers are keyed by (after any change to a rule or to
hansard/ingest/redact.py: tests/test_redaction.py checks the file matches them).

Usage
  python scripts/update_gitleaks_rules.py --screen
  python scripts/update_gitleaks_rules.py --detect-secrets
  python scripts/update_gitleaks_rules.py PATH_TO_GITLEAKS_CHECKOUT
  python scripts/update_gitleaks_rules.py --git-dir BARE_REPO.git [--rev HEAD]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hansard.ingest import gitleaks  # noqa: E402


def _read(args: argparse.Namespace, path: str) -> bytes:
    if args.git_dir:
        return subprocess.run(["git", "--git-dir", args.git_dir, "show", f"{args.rev}:{path}"],
                              check=True, capture_output=True).stdout
    return (Path(args.checkout) / path).read_bytes()


def _describe(args: argparse.Namespace) -> str:
    git = ["git", "--git-dir", args.git_dir] if args.git_dir else ["git", "-C", args.checkout]
    try:
        sha = subprocess.run([*git, "rev-parse", args.rev], check=True, capture_output=True, text=True).stdout.strip()
        tag = subprocess.run([*git, "describe", "--tags", args.rev], capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "github.com/gitleaks/gitleaks config/gitleaks.toml"
    return f"github.com/gitleaks/gitleaks config/gitleaks.toml at {sha}" + (f" ({tag})" if tag else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout", nargs="?", help="a gitleaks work tree")
    ap.add_argument("--git-dir", help="a gitleaks git directory (bare is fine) instead of a work tree")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--out", default=gitleaks.DATA)
    ap.add_argument("--detect-secrets", action="store_true",
                    help="write secret_rules/detect_secrets.json from the installed detect-secrets instead")
    ap.add_argument("--screen", action="store_true", help="only write secret_rules/screen.json from the rules")
    a = ap.parse_args(argv)
    if a.screen:
        return _write_screen()
    if a.detect_secrets:
        from hansard.ingest import redact

        doc = redact.detect_secrets_patterns()
        out = Path(gitleaks.DATA).with_name(redact.DS_DATA)
        out.write_text(json.dumps({**doc, "licence": "Apache-2.0, Copyright 2017-2018 Yelp Inc.; see "
                                                     "LICENSE.detect-secrets beside this file"}, indent=1) + "\n")
        print(f"detect-secrets {doc['version']}: {sum(map(len, doc['plugins'].values()))} patterns of "
              f"{len(doc['plugins'])} plugins vendored to {out}")
        return _write_screen()
    if not (a.checkout or a.git_dir):
        ap.error("give a gitleaks checkout or --git-dir")
    config = tomllib.loads(_read(a, "config/gitleaks.toml").decode())
    doc = gitleaks.convert(config, _describe(a))
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
    (out.parent / "LICENSE").write_bytes(_read(a, "LICENSE"))
    total = len(config.get("rules", []))
    print(f"{len(doc['rules'])} of {total} gitleaks rules vendored to {out}")
    reasons = Counter(s["reason"].split(":")[0] if s["reason"].startswith("cannot") else s["reason"].split(" matching")[0]
                      for s in doc["skipped"])
    for reason, n in reasons.most_common():
        print(f"  skipped {n}: {reason}")
    for s in doc["skipped"]:
        print(f"    {s['id']}: {s['reason']}")
    return _write_screen()


def _write_screen() -> int:
    """secret_rules/screen.json from the rules as they are now (a fresh process: the rule
    files just written are the ones read)."""
    code = ("import json, sys; from hansard.ingest import redact; "
            "sys.stdout.write(json.dumps(redact.screen_data(), indent=0, ensure_ascii=True) + '\\n')")
    doc = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                         cwd=ROOT).stdout
    out = Path(gitleaks.DATA).with_name("screen.json")
    out.write_text(doc, encoding="utf-8")
    print(f"{len(json.loads(doc)['words'])} literals and {len(json.loads(doc)['gates'])} gates written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
