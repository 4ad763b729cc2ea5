"""A headless chromium driven over the Chrome DevTools Protocol (tornado's websocket client, no
playwright or selenium), and a JupyterLab server on 127.0.0.1 with a token: for the browser test
of the notebook widget (tests/test_notebook_browser.py)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, timeout: float = 5) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read()


def wait_for(check: Any, timeout: float, what: str, every: float = 0.5) -> Any:
    """Poll ``check()`` until it returns something truthy; AssertionError naming ``what``."""
    end, last = time.monotonic() + timeout, None
    while time.monotonic() < end:
        try:
            value = check()
        except Exception as exc:  # not up yet
            value, last = None, exc
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (last error: {last})")


def _jupyter_path() -> str:
    """JUPYTER_PATH with the base interpreter's share/jupyter too: in a venv made with
    --system-site-packages, anywidget's and ipywidgets' lab extensions live there."""
    paths = [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    base = Path(sys.base_prefix) / "share" / "jupyter"
    return os.pathsep.join([*paths, str(base)] if base.is_dir() else paths)


def start_lab(root: Path, token: str) -> tuple[subprocess.Popen, str]:
    """JupyterLab serving ``root``; returns the process and its base URL."""
    port = free_port()
    log = open(root / "lab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={root}", "--LabApp.news_url=", "--LabApp.check_for_updates_class="
         "jupyterlab.NeverCheckForUpdate"],
        cwd=root, stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "JUPYTER_CONFIG_DIR": str(root / ".jupyter"), "PAIRLAB_DISABLE_PLUGINS": "1",
             "JUPYTER_PATH": _jupyter_path()})
    url = f"http://127.0.0.1:{port}"
    wait_for(lambda: proc.poll() is None and _get(f"{url}/api/status?token={token}"), 120,
             f"JupyterLab on {url} (log: {root / 'lab.log'})")
    return proc, url


def start_chromium(profile: Path, url: str) -> tuple[subprocess.Popen, str]:
    """Headless chromium showing ``url``; returns the process and the page's DevTools websocket."""
    port = free_port()
    proc = subprocess.Popen(
        [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-dev-shm-usage", f"--remote-debugging-port={port}", f"--user-data-dir={profile}",
         "--window-size=1400,1100", url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def page() -> str | None:
        targets = json.loads(_get(f"http://127.0.0.1:{port}/json/list"))
        return next((t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page"), None)

    return proc, wait_for(page, 60, "chromium's DevTools page")


class Page:
    """Synchronous calls to one page over CDP."""

    def __init__(self, ws_url: str) -> None:
        from tornado.ioloop import IOLoop
        from tornado.websocket import websocket_connect

        self.loop = IOLoop(make_current=False)
        self.conn = self.loop.run_sync(lambda: websocket_connect(ws_url, max_message_size=1 << 26))
        self.n = 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.n += 1
        n = self.n

        async def go() -> dict[str, Any]:
            await self.conn.write_message(json.dumps({"id": n, "method": method, "params": params}))
            while True:
                raw = await self.conn.read_message()
                if raw is None:
                    raise ConnectionError("the browser closed the DevTools connection")
                reply = json.loads(raw)
                if reply.get("id") == n:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]

        return self.loop.run_sync(go, timeout=60)

    def eval(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("text", "script error"))
        return result["result"].get("value")

    def click(self, x: float, y: float) -> None:
        """A left click at page pixel (x, y), as a mouse does it (move, press, release)."""
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind, buttons in (("mousePressed", 1), ("mouseReleased", 0)):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", buttons=buttons,
                      clickCount=1)

    def centre(self, selector: str) -> tuple[float, float]:
        """Page pixel at the centre of the first element matching the CSS ``selector``."""
        x, y = self.eval(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                         ".getBoundingClientRect(); "
                         "return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        return x, y

    def close(self) -> None:
        self.conn.close()
        self.loop.close()
