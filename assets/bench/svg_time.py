"""Seconds and kB of File > Export view as SVG, one GMM pane on two moons (no size limit here).

Run: ``python assets/bench/svg_time.py 1000 2000`` (numbers of points).
"""

import os
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(sizes: list[int]) -> None:
    from pairlab.gui.export import lab_frames
    from pairlab.gui.figure import ensure_app, render_frames
    from pairlab.gui.model import Lab

    ensure_app()
    for n in sizes:
        lab = Lab()
        lab.set_dataset("two-moons", {"n_samples": n}, seed=0)
        lab.add_pane("gmm", {"n_components": 2})
        for pane in lab.pending():
            lab.attach(pane, lab.build_run(pane))
        path = os.path.join(tempfile.mkdtemp(), "view.svg")
        t = time.perf_counter()
        render_frames(lab_frames(lab), path, ncols=1, panel_size=(560, 500))
        print(f"{n} points: {time.perf_counter() - t:.2f} s, {os.path.getsize(path) // 1000} kB",
              flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000])
