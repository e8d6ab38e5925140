"""The apply_patch parser and applier (hansard.agents.edits)."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hansard.agents.edits import (
    FileOp,
    PatchError,
    PatchHunk,
    apply_to_text,
    extract_patch,
    parse_patch,
    render_patch,
    scan_headers,
    seek_sequence,
    unwrap_patch,
)

# ---- property tests ---------------------------------------------------------------------------

# Small alphabet with the characters that matter to the format (markers, prefixes, blanks,
# typographic punctuation that Codex normalises); lines never contain a newline.
_CHARS = "ab xy\t*@+-#é—"
_line = st.text(alphabet=_CHARS, max_size=8)
_file = st.lists(_line, unique=True, max_size=12)


def _text(lines: list[str], trailing: bool = True) -> str:
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if trailing else "")


def _codex_text(lines: list[str]) -> str:
    """What Codex writes for the line list: lines joined by LF, plus a final newline unless the
    last line is already empty (a trailing blank line doubles as the final newline)."""
    out = list(lines)
    if not out or out[-1] != "":
        out.append("")
    return "\n".join(out)


def _build_update(data: st.DataObject, a: list[str], b: list[str], path: str) -> FileOp:
    """Render the change a -> b as apply_patch hunks (random context size, random @@ anchors
    and stacked anchors taken from unique lines between hunks, random End of File markers)."""
    n = data.draw(st.integers(1, 3), label="context")
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    hunks = []
    prev_end = 0
    for group in sm.get_grouped_opcodes(n):
        i1, i2 = group[0][1], group[-1][2]
        lines: list[str] = []
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                lines += [" " + x for x in a[x1:x2]]
            else:
                lines += ["-" + x for x in a[x1:x2]] + ["+" + y for y in b[y1:y2]]
        candidates = [k for k in range(prev_end, i1) if a[k] and a[k].strip() == a[k]]
        picked = sorted(data.draw(st.lists(st.sampled_from(candidates), unique=True, max_size=2), label="anchors")) \
            if candidates else []
        eof = i2 == len(a) and bool(a) and data.draw(st.booleans(), label="eof")
        hunks.append(PatchHunk(tuple(lines), tuple(a[k] for k in picked), eof))
        prev_end = i2
    move = data.draw(st.sampled_from([None, path + ".moved"]), label="move")
    return FileOp("update", path, move, tuple(hunks))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), a=_file, b=st.lists(_line, max_size=12), trailing=st.booleans())
def test_random_edit_renders_parses_and_applies(data: st.DataObject, a: list[str], b: list[str], trailing: bool) -> None:
    assume(a != b)
    if a and a[-1] == "":
        trailing = True  # "x\n" + "" is indistinguishable from a trailing newline
    op = _build_update(data, a, b, "src/f.txt")
    text = render_patch([op])
    parsed = parse_patch(text)
    assert parsed == [op]
    assert apply_to_text(_text(a, trailing), parsed[0]) == _codex_text(b)
    # The lines the op adds and removes are the patch's '+' and '-' lines.
    assert list(parsed[0].added) == [ln[1:] for h in op.hunks for ln in h.lines if ln[0] == "+"]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), files=st.lists(st.tuples(_file, st.lists(_line, max_size=10)), min_size=1, max_size=3),
       added=st.lists(_line, max_size=5))
def test_multi_file_patch(data: st.DataObject, files: list[tuple[list[str], list[str]]], added: list[str]) -> None:
    ops = []
    for k, (a, b) in enumerate(files):
        if a == b:
            ops.append(FileOp("delete", f"gone{k}.txt"))
        else:
            ops.append(_build_update(data, a, b, f"/abs/dir/f{k}.txt"))
    ops.append(FileOp("add", "new.txt", hunks=(PatchHunk(tuple("+" + x for x in added)),) if added else (),
                      content="".join(x + "\n" for x in added)))
    parsed = parse_patch(render_patch(ops))
    assert parsed == ops
    for (a, b), op in zip(files, parsed[:-1], strict=True):
        if op.op == "update":
            assert apply_to_text(_text(a), op) == _codex_text(b)
        else:
            assert apply_to_text(_text(a), op) == ""
    assert apply_to_text("old text\n", parsed[-1]) == _text(added)


_SHAPES = ["plain", "no_final_newline", "crlf", "padded", "heredoc", "argv", "argv_heredoc", "bash_heredoc", "cd_heredoc"]


@settings(max_examples=200, deadline=None)
@given(data=st.data(), a=_file, b=st.lists(_line, max_size=8), shape=st.sampled_from(_SHAPES),
       delim=st.sampled_from(["EOF", "PATCH", "END_PATCH", "x1"]), quote=st.sampled_from(["'", '"', ""]))
def test_wrapped_shapes_parse_the_same(data: st.DataObject, a: list[str], b: list[str], shape: str, delim: str,
                                       quote: str) -> None:
    assume(a != b)
    op = _build_update(data, a, b, "f.txt")
    text = render_patch([op])
    heredoc = f"apply_patch <<{quote}{delim}{quote}\n{text}{delim}\n"
    if shape == "plain":
        got = parse_patch(text)
    elif shape == "no_final_newline":
        got = parse_patch(text.rstrip("\n"))
    elif shape == "crlf":
        got = parse_patch(text.replace("\n", "\r\n"))
    elif shape == "padded":
        got = parse_patch("\n \n\t" + text + "\n\n  \n")
    elif shape == "heredoc":
        got = parse_patch(heredoc)
    elif shape == "argv":
        found = extract_patch(["apply_patch", text])
        assert found is not None and found[1] is None
        got = parse_patch(found[0])
    elif shape == "argv_heredoc":
        found = extract_patch(["apply_patch", f"<<{quote}{delim}{quote}\n{text}{delim}\n"])
        assert found is not None
        got = parse_patch(found[0])
    elif shape == "bash_heredoc":
        found = extract_patch(["bash", "-lc", heredoc])
        assert found is not None and found[1] is None
        got = parse_patch(found[0])
    else:
        found = extract_patch(["/bin/zsh", "-lc", "cd sub/dir && " + heredoc])
        assert found is not None and found[1] == "sub/dir"
        got = parse_patch(found[0])
    assert got == [op]


# ---- table tests: tolerated shapes ------------------------------------------------------------

BASIC = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
BASIC_OP = FileOp("update", "a.py", None, (PatchHunk(("-x = 1", "+x = 2")),))


@pytest.mark.parametrize(
    "text",
    [
        BASIC,
        BASIC.rstrip("\n"),  # no newline after End Patch
        BASIC.replace("*** End Patch\n", ""),  # no End Patch at all (lenient)
        BASIC.replace("\n", "\r\n"),  # CRLF
        "\n\n   \n" + BASIC + "\n \n",  # blank lines around
        BASIC.replace("*** Begin Patch", "*** Begin Patch ").replace("*** End Patch", " *** End Patch"),
        BASIC.replace("*** Update File", "  *** Update File"),  # padded file header
        "apply_patch <<'EOF'\n" + BASIC + "EOF\n",
        "apply_patch <<\"EOF\"\n" + BASIC + "EOF",
        "apply_patch <<EOF\n" + BASIC + "EOF\n",
        "apply_patch <<'PATCH_END'\n" + BASIC + "PATCH_END\n",
        "<<'EOF'\n" + BASIC + "EOF\n",  # GPT-4.1 argv heredoc
        "apply_patch <<'EOF'\n" + BASIC,  # heredoc never closed
        "*** Begin Patch\n*** Update File: a.py\n-x = 1\n+x = 2\n*** End Patch",  # first chunk without @@
        "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\nEOF\n",  # junk after End Patch
    ],
)
def test_tolerated_shapes(text: str) -> None:
    assert parse_patch(text) == [BASIC_OP]


def test_anchors_bare_header_and_stacked() -> None:
    text = (
        "*** Begin Patch\n*** Update File: m.py\n"
        "@@ class A:\n@@     def f(self):\n-        return 1\n+        return 2\n"
        "@@\n@@ def g():\n-    pass\n+    return 3\n"
        "@@ def h():\n     x = 1\n-    y = 2\n+    y = 3\n"
        "*** End Patch"
    )
    (op,) = parse_patch(text)
    assert [h.anchors for h in op.hunks] == [("class A:", "    def f(self):"), ("def g():",), ("def h():",)]
    original = (
        "class B:\n    def f(self):\n        return 1\n"
        "class A:\n    def f(self):\n        return 1\n"
        "def g():\n    pass\n"
        "def h():\n    x = 1\n    y = 2\n"
    )
    assert apply_to_text(original, op) == (
        "class B:\n    def f(self):\n        return 1\n"
        "class A:\n    def f(self):\n        return 2\n"
        "def g():\n    return 3\n"
        "def h():\n    x = 1\n    y = 3\n"
    )


def test_environment_id_and_oai_env_paths() -> None:
    text = (
        "*** Begin Patch\n*** Environment ID: env-1\n"
        "*** Add File: oai_env://env-2/Users/x/new.txt\n+hi\n"
        "*** Update File: /Users/x/a.py\n*** Move to: oai_env://env-1/Users/x/b.py\n@@\n-a\n+b\n"
        "*** Delete File: oai_env://env-3/Users/x/old.txt\n*** End Patch"
    )
    ops = parse_patch(text)
    assert [(o.op, o.path, o.move_to, o.env) for o in ops] == [
        ("add", "/Users/x/new.txt", None, "env-2"),
        ("update", "/Users/x/a.py", "/Users/x/b.py", "env-1"),
        ("delete", "/Users/x/old.txt", None, "env-3"),
    ]
    assert ops[0].content == "hi\n" and ops[0].added == ("hi",)


def test_end_of_file_add_empty_and_blank_lines() -> None:
    text = (
        "*** Begin Patch\n*** Add File: empty.txt\n\n*** Update File: t.txt\n@@\n last\n+tail\n*** End of File\n"
        "\n@@ second\n-x\n\n+y\n*** End Patch"
    )
    ops = parse_patch(text)
    assert ops[0] == FileOp("add", "empty.txt", None, (), "")
    assert ops[1].hunks[0] == PatchHunk((" last", "+tail"), (), True)
    # an empty line inside a hunk is an empty context line
    assert ops[1].hunks[1] == PatchHunk(("-x", " ", "+y"), ("second",), False)
    assert apply_to_text("a\nlast\n", FileOp("update", "t", None, (ops[1].hunks[0],))) == "a\nlast\ntail\n"


def test_unwrap_and_extract() -> None:
    assert unwrap_patch("cd '/a b' && apply_patch <<'EOF'\n" + BASIC + "EOF") == (BASIC.rstrip("\n"), "/a b")
    assert extract_patch(["apply_patch", BASIC]) == (BASIC.strip(), None)
    assert extract_patch(["applypatch", BASIC]) == (BASIC.strip(), None)
    assert extract_patch("apply_patch <<'EOF'\n" + BASIC + "EOF\n") == (BASIC.rstrip("\n"), None)
    assert extract_patch(["bash", "-lc", "apply_patch '" + BASIC + "'"])[0] == BASIC
    assert extract_patch(["bash", "-lc", "echo hi"]) is None
    assert extract_patch(["bash", "-lc", "echo x && apply_patch <<'EOF'\n" + BASIC + "EOF"]) is None
    assert extract_patch(["apply_patch"]) is None
    assert extract_patch("cat apply_patch.py") is None
    assert extract_patch(None) is None and extract_patch(["ls", 3]) is None


# ---- table tests: errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "first line"),
        ("*** Update File: a\n@@\n-a\n+b\n*** End Patch", "first line"),
        ("*** Begin Patch\nhello\n*** End Patch", "not a valid hunk header"),
        ("*** Begin Patch\n*** Update File: a.py\n*** End Patch", "is empty"),
        ("*** Begin Patch\n*** Update File: a.py\n@@\n*** Update File: b.py\n@@\n-x\n*** End Patch", "unexpected line"),
        ("*** Begin Patch\n*** Update File: a.py\n@@\nfoo\n*** End Patch", "unexpected line"),
        ("*** Begin Patch\n*** Update File: a.py\n@@\n*** End of File\n*** End Patch", "does not contain"),
        ("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\nbar\n+z\n*** End Patch", "start with a @@ context marker"),
        ("*** Begin Patch\n*** Add File: a.py\n+x\nbad\n*** End Patch", "not a valid hunk header"),
    ],
)
def test_syntax_errors(text: str, message: str) -> None:
    with pytest.raises(PatchError, match=message):
        parse_patch(text)


def test_non_string_is_a_patch_error() -> None:
    with pytest.raises(PatchError):
        parse_patch(None)
    with pytest.raises(ValueError):  # PatchError is a ValueError
        parse_patch(b"*** Begin Patch")


def test_empty_patch_has_no_ops() -> None:
    assert parse_patch("*** Begin Patch\n*** End Patch") == []


# ---- applying: Codex semantics -----------------------------------------------------------------


def _upd(*lines: str, anchors: tuple[str, ...] = (), eof: bool = False) -> FileOp:
    return FileOp("update", "f", None, (PatchHunk(tuple(lines), anchors, eof),))


def test_fuzzy_matching_order() -> None:
    assert seek_sequence(["a  ", "b"], ["a", "b"], 0, False) == 0  # rstrip
    assert seek_sequence(["  a", " b "], ["a", "b"], 0, False) == 0  # strip
    assert seek_sequence(["x", "a"], ["a"], 0, False) == 1
    assert seek_sequence(["a", "x", "a"], ["a"], 1, False) == 2  # from start
    assert seek_sequence(["a", "b", "a"], ["a"], 0, True) == 2  # eof: search from the end
    assert seek_sequence(["a"], ["a", "b"], 0, False) is None
    assert seek_sequence(["it\u2019s \u2014 ok"], ["it's - ok"], 0, False) == 0  # punctuation normalised
    # exact beats a fuzzy match found earlier
    assert seek_sequence(["a ", "a"], ["a"], 0, False) == 1
    assert apply_to_text("  x = 1  \n", _upd("-x = 1", "+x = 2")) == "x = 2\n"


def test_pure_addition_is_appended_at_end_like_codex() -> None:
    assert apply_to_text("a\nb\n", _upd("+c", anchors=("a",))) == "a\nb\nc\n"
    assert apply_to_text("", _upd("+c")) == "c\n"


def test_trailing_empty_context_retry_and_crlf_file() -> None:
    # the pattern's trailing empty line stands for the final newline
    assert apply_to_text("a\nb", _upd(" a", "-b", "+c", " ")) == "a\nc\n"
    # CRLF files match through the rstrip pass; the replaced region (context included) is
    # written from the patch, with LF, as Codex does on Unix; untouched lines keep CRLF
    assert apply_to_text("z\r\na\r\nb\r\n", _upd(" a", "-b", "+c")) == "z\r\na\nc\n"


def test_apply_errors() -> None:
    with pytest.raises(PatchError, match="Failed to find expected lines"):
        apply_to_text("a\nb\n", _upd("-zzz", "+y"))
    with pytest.raises(PatchError, match="Failed to find context 'nope'"):
        apply_to_text("a\nb\n", _upd("-a", "+y", anchors=("nope",)))
    # chunks must come in file order: the second one is searched after the first
    op = FileOp("update", "f", None, (PatchHunk(("-b", "+B")), PatchHunk(("-a", "+A"))))
    with pytest.raises(PatchError):
        apply_to_text("a\nb\n", op)


def test_add_and_delete_apply() -> None:
    (add,) = parse_patch("*** Begin Patch\n*** Add File: n.txt\n+one\n+\n+two\n*** End Patch")
    assert apply_to_text("ignored", add) == "one\n\ntwo\n"
    (delete,) = parse_patch("*** Begin Patch\n*** Delete File: n.txt\n*** End Patch")
    assert apply_to_text("x\n", delete) == ""


def test_scan_headers_on_broken_patch() -> None:
    text = (
        "*** Begin Patch\n*** Update File: /r/a.sh\n@@\n x\n@@\n*** Update File: /r/ci.yml\n*** Move to: /r/ci2.yml\n"
        "@@\n-y\n*** Add File: oai_env://e/r/n.txt\n+z\n*** Delete File: old.txt\n*** End Patch"
    )
    with pytest.raises(PatchError):
        parse_patch(text)
    assert scan_headers(text) == [
        ("update", "/r/a.sh", None), ("update", "/r/ci.yml", "/r/ci2.yml"), ("add", "/r/n.txt", None),
        ("delete", "old.txt", None),
    ]
    assert scan_headers(None) == []


# ---- the real patches in the samples ------------------------------------------------------------


def test_sample_patches(samples: Path) -> None:
    ok, failed = 0, []
    for f in sorted((samples / "codex").glob("entire_codex_*/full.jsonl")):
        for line in f.read_text().splitlines():
            p = json.loads(line)["payload"]
            if p.get("type") == "custom_tool_call" and p.get("name") == "apply_patch":
                try:
                    ops = parse_patch(p["input"])
                except PatchError as exc:
                    failed.append(str(exc))
                    continue
                ok += 1
                assert ops and all(o.path.startswith("/Users/") for o in ops)  # absolute, as observed
    # 28 apply_patch calls (19 + 2 + 3 + 4); the one Codex itself rejected as invalid
    # ("invalid hunk at line 11 …") is the only one our parser rejects too.
    assert ok == 27
    assert len(failed) == 1 and failed[0].startswith("invalid hunk at line 11, unexpected line found in update hunk")
