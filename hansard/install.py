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


def install_command(extra: str) -> str:
    """The shell command that adds ``extra``'s dependencies to this installation."""
    from importlib import metadata

    pip = f"{shlex.quote(sys.executable)} -m pip install"
    try:
        dist = metadata.distribution("hansard")
    except metadata.PackageNotFoundError:
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
    return f"install the {extra} extra: {install_command(extra)}"
