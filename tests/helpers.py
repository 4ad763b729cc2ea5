"""Shared test utilities."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from pairlab import Algorithm, Run, State


def make_site_plugin(root: Path, dist: str, module: str, source: str, ep_name: str | None = None,
                     version: str = "0.1") -> Path:
    """Create an importable module plus a dist-info with a ``pairlab`` entry point in ``root``.

    This is what ``pip install`` leaves in site-packages, so importlib.metadata finds it exactly
    as it finds an installed third-party plugin.
    """
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[pairlab]\n{ep_name or module} = {module}\n")
    return root


def run_cli(*args: str, extra_path: Path | None = None, external: bool = False,
            timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m pairlab ARGS`` in a subprocess (optionally with a site dir on the path)."""
    env = dict(os.environ)
    if external:
        env.pop("PAIRLAB_DISABLE_PLUGINS", None)
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(extra_path), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "pairlab", *args], capture_output=True,
                          text=True, env=env, timeout=timeout)


class HalfwayToClassMeans(Algorithm):
    """Test stepper: two centres move halfway to the class means per step; stops after ``stop``.

    Subclasses set ``name``, ``title`` and ``params`` (with ``stop``); ``steps`` counts the steps
    computed, so a test can tell replayed history from recomputation.
    """

    steps = 0

    def _state(self, t, centers):
        d2 = ((self.X[:, None, :] - centers[None]) ** 2).sum(axis=2)
        r = np.exp(-(d2 - d2.min(axis=1, keepdims=True)))
        r /= r.sum(axis=1, keepdims=True)
        return State(t, d2.argmin(axis=1), r, objective=float(d2.min(axis=1).sum()),
                     objective_name="sse", model={"means": centers})

    def initialize(self):
        return self._state(0, self.X[:2].copy())

    def step(self, state):
        type(self).steps += 1
        target = np.array([self.X[self.dataset.y == c].mean(axis=0) for c in (0, 1)])
        return self._state(state.iteration + 1, (state.model["means"] + target) / 2)

    def converged(self, previous, current):
        return current.iteration >= self.params["stop"]


def union_find_roots(n: int, pairs) -> list[int]:
    """The root of every point after joining ``pairs`` one by one: the test oracle for components."""
    parent = list(range(n))

    def find(a: int) -> int:
        while parent[a] != a:
            a = parent[a]
        return a

    for i, j in pairs:
        parent[find(i)] = find(j)
    return [find(i) for i in range(n)]


def write_fake_coil(folder: Path, n_objects: int = 3, n_poses: int = 24, size: int = 64,
                    seed: int = 0) -> Path:
    """A synthetic stand-in for COIL-20's ``coil-20-proc`` folder: grey PNGs
    ``obj{1..n_objects}__{0..n_poses-1}.png`` of ``size`` x ``size`` pixels.

    Object k is a bright ellipse (its axes and stripes depend on k) turned by 360 / n_poses degrees
    per pose about the centre, on black, with Gaussian noise (sd 8 grey levels).
    """
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    c = (size - 1) / 2
    yy, xx = np.mgrid[0:size, 0:size] - c
    for k in range(1, n_objects + 1):
        a, b = size * (0.2 + 0.04 * k), size * (0.08 + 0.05 * (k % 3))
        for p in range(n_poses):
            t = 2 * np.pi * p / n_poses
            u, v = np.cos(t) * xx + np.sin(t) * yy, -np.sin(t) * xx + np.cos(t) * yy
            img = ((u / a) ** 2 + (v / b) ** 2 <= 1) * (140 + 100 * np.cos(k * np.pi * u / a) ** 2)
            img = np.clip(img + rng.normal(0, 8, img.shape), 0, 255).astype(np.uint8)
            Image.fromarray(img, mode="L").save(folder / f"obj{k}__{p}.png")
    return folder


def assert_runs_as_kmeans(ours, data, params, registry, objective_factor=1.0) -> None:
    """Run ``ours`` (a :class:`pairlab.Run` without links) and plain k-means with ``params``: the
    same iterations, labels and centres at every step, objectives in the ratio ``objective_factor``."""
    ours.run()
    plain = Run("kmeans", data, None, params, registry=registry)
    plain.run()
    assert ours.n_iter == plain.n_iter
    for a, b in zip(ours.history, plain.history, strict=True):
        assert np.array_equal(a.labels, b.labels)
        np.testing.assert_array_equal(a.model["centers"], b.model["centers"])
        assert a.objective == pytest.approx(objective_factor * b.objective, rel=1e-12)


def sklearn_refine(S, mask):
    """scikit-learn's exemplar refinement, loop for loop, on the self-exemplars ``mask`` (the
    reference for affinity propagation's ``refine`` rule)."""
    ex = np.flatnonzero(mask)
    c = np.argmax(S[:, ex], axis=1)
    c[ex] = np.arange(ex.size)
    for k in range(ex.size):
        ii = np.flatnonzero(c == k)
        ex[k] = ii[np.argmax(np.sum(S[ii[:, np.newaxis], ii], axis=0))]
    c = np.argmax(S[:, ex], axis=1)
    c[ex] = np.arange(ex.size)
    return ex[c]


def trial_records(trials: Path) -> list[tuple[dict, bytes]]:
    """The records of a trial store's logs (``trials/log/*.log``) in order: (header, payload)."""
    out = []
    for log in sorted((Path(trials) / "log").glob("*.log")):
        raw = log.read_bytes()
        while raw:
            head, _, rest = raw.partition(b"\n")
            header = json.loads(head)
            out.append((header, rest[:header["length"]]))
            raw = rest[header["length"] + 1:]
    return out


def write_trial_records(trials: Path, records: list[tuple[dict, bytes]]) -> None:
    """Replace a trial store's logs by one log holding ``records`` (headers written as given)."""
    folder = Path(trials) / "log"
    for log in folder.glob("*.log"):
        log.unlink()
    (folder / "0-0-edited.log").write_bytes(
        b"".join(json.dumps(h).encode() + b"\n" + p + b"\n" for h, p in records))
