"""Every frame, region image and metric the bench's three panes show (each iteration and
half-step, colours matched to the classes or not) saved as arrays, to check that a change to the
refresh leaves them as they were: ``save`` once with ``PYTHONPATH=<other checkout>`` and once
with this one, then ``compare`` (prints how many arrays differ; 0: the same frames).

Run: ``python assets/bench/frames_dump.py save OUT.npz`` / ``... compare A.npz B.npz``.
"""

import sys

import numpy as np
from threadpoolctl import threadpool_limits

FIELDS = ("xy", "colour", "level", "must_link", "cannot_link", "must_ok", "cannot_ok",
          "must_ignored", "cannot_ignored", "means", "mean_colour", "ellipses", "ellipse_colour",
          "centers", "center_colour", "exemplar_segments", "exemplar_points", "exemplar_colour",
          "init_means", "changed", "wrong", "n_true_classes", "title", "info", "message")


def save(path: str) -> None:
    from pairlab.benchcases.gui import THREE_PANES
    from pairlab.gui.model import Lab

    lab = Lab()
    lab.set_dataset("gaussian-blobs", {"n_samples": 5000, "n_centers": 4, "cluster_std": 1.5},
                    seed=0)
    for name in THREE_PANES:
        params = {"n_clusters": 4} if name == "kmeans" else {"n_components": 4, "tol": 0.0}
        lab.add_pane(name, {**params, "max_iter": 12})
    lab.add_random_links(50, 50)
    for pane in lab.pending():
        lab.attach(pane, lab.build_run(pane))
    lab.compute_to(None)
    out = {}
    for p, pane in enumerate(lab.panes):
        for t in range(lab.max_index + 2):
            for half in (False, True):
                for match in (True, False):
                    lab.match_colours = match
                    pane.cache.clear()
                    lab.seek(t)
                    frame = lab.frame(pane, t, regions=True, regions_resolution=96, half=half)
                    key = f"{p}_{t}_{int(half)}_{int(match)}"
                    for name in FIELDS:
                        value = getattr(frame, name)
                        out[f"{key}_{name}"] = np.asarray("None" if value is None else value)
                    if frame.regions is not None:
                        out[f"{key}_regions"] = frame.regions.rgba
                        out[f"{key}_rect"] = np.asarray(frame.regions.rect)
                    for name, value in lab.metrics(pane, t).items():
                        out[f"{key}_metric_{name}"] = np.asarray(value)
    np.savez(path, **out)


def compare(a: str, b: str) -> None:
    old, new = np.load(a), np.load(b)
    differ = [k for k in old.files if k not in new.files or old[k].shape != new[k].shape
              or not np.array_equal(old[k], new[k])]
    extra = [k for k in new.files if k not in old.files]
    print(f"{len(old.files)} arrays, {len(differ)} differ {differ[:10]}, {len(extra)} new")


if __name__ == "__main__":
    with threadpool_limits(1):
        save(sys.argv[2]) if sys.argv[1] == "save" else compare(*sys.argv[2:4])
