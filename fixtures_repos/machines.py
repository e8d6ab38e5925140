"""Transcripts as another machine records them. The writers of ``fixtures_repos.writers`` and
``writers_more`` run here, in a real work tree (their edits are real); ``Machine.rewrite`` then
turns every path below that work tree into the form the other machine writes, in whatever the
agent keeps (JSON lines, a JSON document, a folder of JSON files, SQLite rows whose values are
JSON, Markdown), nested JSON texts included, the way the agent there would have written them.

Forms (shared/FORMATS.md, "Paths"): ``windows`` (``C:\\Users\\dana\\app\\src\\a.py``),
``windows_slash`` (``c:/users/dana/app/src/a.py``, another case), ``long`` (``\\\\?\\C:\\...``),
``unc`` (``\\\\fileserver\\home\\dana\\app\\...``), ``uri`` (``file:///c%3A/Users/dana/app/...``,
Cursor's), ``wsl`` (``/mnt/c/Users/dana/app/...``), ``mac`` (``/Users/dana/app/...``).
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

FORMS = ("windows", "windows_slash", "long", "unc", "uri", "wsl", "mac")


def foreign(form: str, name: str, rel: str = "") -> str:
    """The path ``rel`` (``/``-separated, may be empty) below the folder ``name`` (a path below
    it too) of user dana's home on a machine of ``form``."""
    bits = [b for b in rel.split("/") if b]
    name, *below = [b for b in name.split("/") if b]
    bits = below + bits
    if form == "windows":
        return "\\".join(["C:\\Users\\dana", name, *bits])
    if form == "windows_slash":
        return "/".join(["c:/users/dana", name.lower(), *bits])
    if form == "long":
        return "\\".join(["\\\\?\\C:\\Users\\dana", name, *bits])
    if form == "unc":
        return "\\".join(["\\\\fileserver\\home\\dana", name, *bits])
    if form == "uri":
        return "/".join(["file:///c%3A/Users/dana", name, *bits])
    if form == "wsl":
        return "/".join(["/mnt/c/Users/dana", name, *bits])
    if form == "mac":
        return "/".join(["/Users/dana", name, *bits])
    raise ValueError(form)


class Machine:
    """Folders of this machine (``here``) as another machine of ``form`` names them: each is
    ``foreign(form, <its name>)``, or the name ``names`` gives it (``app/.claude/worktrees/w``),
    so two work trees of one repository keep their own names."""

    def __init__(self, form: str, *here: Path, names: dict[Path, str] | None = None) -> None:
        self.form = form
        self.names = {str(k): v for k, v in (names or {}).items()}
        self.here = sorted({*(str(h) for h in here), *self.names}, key=len, reverse=True)
        alts = "|".join(re.escape(h) for h in self.here)
        # A path below one of the folders, up to where a path of a transcript ends.
        self._re = re.compile(rf"(?:{alts})(?:/[^\s\"'`<>|,;)\]]*)?")

    def root(self, here: Path) -> str:
        """How the other machine names the folder ``here``."""
        return foreign(self.form, self.names.get(str(here), Path(here).name))

    def path(self, local: str) -> str:
        for h in self.here:
            if local == h or local.startswith(h + "/"):
                return foreign(self.form, self.names.get(h, Path(h).name), local[len(h):])
        return local

    def text(self, s: str) -> str:
        return self._re.sub(lambda m: self.path(m.group(0)), s)

    def value(self, v: Any) -> Any:
        """A JSON value with every path rewritten; a string holding a JSON object or array (a
        tool's raw arguments) is rewritten inside and written back as JSON."""
        if isinstance(v, dict):
            return {self.text(k): self.value(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, str):
            t = v.lstrip()
            if t[:1] in ("{", "[") and any(h in v for h in self.here):
                try:
                    return json.dumps(self.value(json.loads(v)), ensure_ascii=False)
                except ValueError:
                    pass
            return self.text(v)
        return v

    def rewrite(self, path: Path) -> None:
        """Rewrite a transcript in place: JSON lines, a JSON document, every JSON file below a
        folder, a SQLite file's text values, or text."""
        path = Path(path)
        if path.is_dir():
            for p in sorted(path.rglob("*.json")):
                self.rewrite(p)
            return
        raw = path.read_bytes()
        if raw[:16] == b"SQLite format 3\x00":
            self._sqlite(path)
            return
        text = raw.decode("utf-8")
        try:
            doc = json.loads(text)
        except ValueError:
            doc = None
        if doc is not None:
            path.write_text(json.dumps(self.value(doc), ensure_ascii=False, indent=2), encoding="utf-8")
            return
        if path.suffix == ".jsonl":
            lines = [json.dumps(self.value(json.loads(x)), ensure_ascii=False) if x.strip() else x
                     for x in text.split("\n")]
            path.write_text("\n".join(lines), encoding="utf-8")
            return
        path.write_text(self.text(text), encoding="utf-8")

    def _sqlite(self, path: Path) -> None:
        con = sqlite3.connect(path)
        try:
            with con:
                tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
                for t in tables:
                    cols = [r[1] for r in con.execute(f"PRAGMA table_info({t})")]
                    for row in con.execute(f"SELECT rowid, * FROM {t}").fetchall():
                        new = [self.value(v) if isinstance(v, str) else
                               self.value(v.decode("utf-8")) if isinstance(v, bytes) and _is_text(v) else v
                               for v in row[1:]]
                        if list(row[1:]) != new:
                            sets = ", ".join(f"{c}=?" for c in cols)
                            con.execute(f"UPDATE {t} SET {sets} WHERE rowid=?", (*new, row[0]))
        finally:
            con.close()


def _is_text(b: bytes) -> bool:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
