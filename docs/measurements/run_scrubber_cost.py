"""Time and size of a Run's notebook display with its scrubber (one PNG per stored state).

Two-moons with 20 random links; the run stepped to convergence (GM-PR computes a half-step per
iteration, so it stores about twice as many states as iterations); the display built as Jupyter
asks for it (``run._repr_mimebundle_()``), median of ``--repeats``.

    python docs/measurements/run_scrubber_cost.py [--n 200,5000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time

import numpy as np

from pairlab import Run
from pairlab.display_scrub import run_positions
from pairlab.links import random_pairs
from pairlab.registry import get_registry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="200,5000", help="comma-separated numbers of points")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--algorithm", default="gmpr")
    args = parser.parse_args()
    for n in (int(v) for v in args.n.split(",")):
        data = get_registry().dataset("two-moons").make(seed=0, n_samples=n)
        links = random_pairs(data.y, 10, 10, np.random.default_rng(0))
        run = Run(args.algorithm, data, links, {"n_components": 2}, seed=0)
        run.run(max_iter=100)
        run._repr_mimebundle_()  # imports and caches out of the timing
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            bundle = run._repr_mimebundle_()
            times.append(time.perf_counter() - start)
        html = bundle["text/html"]
        frames = len(re.findall(r"<div data-frame=", html))
        print(f"n={n}: {len(run_positions(run))} states, {frames} frames, "
              f"HTML {len(html) / 1e3:.0f} kB, display {statistics.median(times):.2f} s "
              f"(min {min(times):.2f}, max {max(times):.2f})")


if __name__ == "__main__":
    main()
