"""The index page of a small `pairlab reproduce --all --quick` run in a real browser (Debian's
chromium, headless): the screenshot is not blank and every image on the page loaded."""

from __future__ import annotations

import re
import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium; .ci/run "
                             "installs it): the page cannot be rendered in a real browser")]

#: appended to a copy of the page: on load, every image's natural size goes into the DOM
PROBE = """<script>window.addEventListener('load', () => {
  const out = document.createElement('pre'); out.id = 'probe';
  out.textContent = Array.from(document.images).map(
    i => 'IMG ' + i.getAttribute('src') + ' ' + i.complete + ' ' + i.naturalWidth).join('\\n');
  document.body.appendChild(out);
});</script>"""


def _chromium(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", "--allow-file-access-from-files", *args],
                          check=True, timeout=180, capture_output=True, text=True)


def test_quick_index_renders_with_every_image_loaded(tmp_path):
    from PIL import Image

    from pairlab.reproduce import reproduce_all

    args = SimpleNamespace(quick=True, trials=None, seed=0, jobs=1, scheduler=None, fresh=False,
                           data_dir=None, set=None, no_render=False,
                           argv=["reproduce", "--all", "--quick"])
    out = tmp_path / "all"
    entries = reproduce_all(out, args, names=["fig8"], progress=None)
    assert entries[0].doc is not None
    page = (out / "index.html").read_text()
    assert 'class="banner"' in page  # a quick run is marked as such

    probe = out / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"))
    dom = _chromium("--virtual-time-budget=10000", "--dump-dom", probe.as_uri()).stdout
    images = re.findall(r"IMG (\S+) (\w+) (\d+)", dom)
    assert images, "the probe found no image on the page"
    for src, complete, width in images:
        assert complete == "true" and int(width) > 0, f"{src} did not load"

    shot = tmp_path / "shot.png"
    _chromium(f"--screenshot={shot}", "--window-size=1200,1600", (out / "index.html").as_uri())
    px = np.asarray(Image.open(shot).convert("RGB"), dtype=float)
    assert px.shape[:2] == (1600, 1200)
    assert px.std() > 20, "the screenshot is blank"
    # the banner's dark brown (#8a4b00) is on screen: the page's own styling rendered
    banner = (abs(px[..., 0] - 0x8a) < 12) & (abs(px[..., 1] - 0x4b) < 12) & (px[..., 2] < 20)
    assert banner.sum() > 1000
