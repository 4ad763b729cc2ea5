"""Time for the notebook stepper to show a 5,000-point two-moons pane and to step it (issue 34).

Python side only: building the widget (the app's model, the run's initialisation, the frame with
its decision regions, matplotlib's PNG) and one step (the iteration, the redraw, the curves), and
serialising the synced state as the kernel sends it (JSON of ``get_state()``). What the browser
then does (decode one PNG, draw two SVG polylines) is not timed here.

    python docs/measurements/notebook_widget_timing.py [--n 5000] [--repeats 5] [--panes gmpr]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from pairlab.links import random_pairs
from pairlab.notebook import Stepper
from pairlab.registry import get_registry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--panes", default="gmpr", help="comma-separated algorithms")
    args = parser.parse_args()
    data = get_registry().dataset("two-moons").make(seed=0, n_samples=args.n)
    links = random_pairs(data.y, 10, 10, np.random.default_rng(0))
    panes = args.panes.split(",")
    params = {name: {"n_components": 2} for name in panes}
    times: dict[str, list[float]] = {"show (build + draw)": [], "step (compute + redraw)": [],
                                     "redraw only": [], "serialise state (JSON)": []}
    size = 0
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        w = Stepper(data, links, panes, params=params)
        t1 = time.perf_counter()
        w.step()
        t2 = time.perf_counter()
        w.redraw()
        t3 = time.perf_counter()
        text = json.dumps(w.get_state())
        t4 = time.perf_counter()
        size = len(text)
        for key, dt in zip(times, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            times[key].append(dt)
    print(f"two-moons n={args.n}, panes {panes}, {args.repeats} repeats, load {os.getloadavg()[0]:.1f}")
    for key, values in times.items():
        print(f"  {key:26s} median {statistics.median(values):6.3f} s   "
              f"(min {min(values):.3f}, max {max(values):.3f})")
    print(f"  synced state: {size / 1e3:.0f} kB of JSON (PNG {len(w.image) * 3 / 4 / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
