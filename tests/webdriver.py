"""A small W3C WebDriver client (plain HTTP to Debian's chromedriver, driving headless Chromium),
for the browser tests of `hansard ui`. WebDriver is HTTP + JSON, so no client library is needed.

``browser()`` finds chromium and chromedriver; when either is missing the calling test is
skipped, or fails under CI=1 (.ci/run installs Debian's chromium and chromium-driver).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
KEYS = {"Enter": "\ue007", "Escape": "\ue00c", "ArrowDown": "\ue015", "ArrowUp": "\ue013"}


def programs() -> tuple[str, str]:
    """(chromium, chromedriver), or skip (fail under CI)."""
    chromium = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)
    driver = shutil.which("chromedriver") or next((p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
                                                  if os.path.exists(p)), None)
    if chromium is None or driver is None:
        missing = "chromium" if chromium is None else "chromedriver"
        if os.environ.get("CI"):
            pytest.fail(f"{missing} is missing in CI (.ci/run installs Debian's chromium and chromium-driver)")
        pytest.skip(f"{missing} is not installed (apt-get install chromium chromium-driver)")
    return chromium, driver


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Browser:
    def __init__(self, width: int = 1400, height: int = 900) -> None:
        chromium, driver = programs()
        port = _free_port()
        self.proc = subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                if self._http("GET", "/status")["value"].get("ready"):
                    break
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.05)
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                f"--window-size={width},{height}", "--no-first-run", "--disable-extensions"]
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": chromium, "args": args}}}}
        self.session = self._http("POST", "/session", caps)["value"]["sessionId"]

    def _http(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            raise AssertionError(f"WebDriver {method} {path}: {e.read().decode()[:500]}") from None

    def cmd(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return self._http(method, f"/session/{self.session}{path}", body)["value"]

    def get(self, url: str) -> None:
        self.cmd("POST", "/url", {"url": url})

    @property
    def url(self) -> str:
        return str(self.cmd("GET", "/url"))

    def find(self, css: str) -> str:
        return str(self.cmd("POST", "/element", {"using": "css selector", "value": css})[ELEMENT])

    def find_all(self, css: str) -> list[str]:
        return [e[ELEMENT] for e in self.cmd("POST", "/elements", {"using": "css selector", "value": css})]

    def click(self, el: str) -> None:
        self.cmd("POST", f"/element/{el}/click", {})

    def text(self, el: str) -> str:
        return str(self.cmd("GET", f"/element/{el}/text"))

    def type(self, el: str, text: str) -> None:
        self.cmd("POST", f"/element/{el}/value", {"text": text})

    def keys(self, *names: str) -> None:
        """Key presses sent to the page (whatever has focus), by name (KEYS) or character."""
        acts: list[dict[str, str]] = []
        for n in names:
            k = KEYS.get(n, n)
            acts += [{"type": "keyDown", "value": k}, {"type": "keyUp", "value": k}]
        self.cmd("POST", "/actions", {"actions": [{"type": "key", "id": "keyboard", "actions": acts}]})

    def js(self, script: str, *args: Any) -> Any:
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def screenshot(self) -> bytes:
        import base64

        return base64.b64decode(self.cmd("GET", "/screenshot"))

    def wait(self, check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
        end = time.monotonic() + timeout
        while True:
            got = check()
            if got:
                return got
            if time.monotonic() > end:
                raise AssertionError(f"gave up waiting for {what}")
            time.sleep(0.05)

    def quit(self) -> None:
        try:
            self._http("DELETE", f"/session/{self.session}")
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
