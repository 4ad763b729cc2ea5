"""Wall and CPU medians of the bench's gui-frame-5000 and gui-frame-3x5000 frames in one process.

Run: ``python assets/bench/three_panes.py 30`` (frames per case).
"""

import statistics
import sys
import time

from pairlab.benchcases import gui


def main(frames: int) -> None:
    cases = (("1x5000", gui._frame(5000, 50)), ("3x5000", gui._frame(5000, 50, gui.THREE_PANES)))
    for name, frame in cases:
        frame()
        frame()
        wall, cpu = [], []
        for _ in range(frames):
            c, t = time.process_time(), time.perf_counter()
            frame()
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        print(f"{name}: wall median {1000 * statistics.median(wall):.1f} ms, "
              f"CPU median {1000 * statistics.median(cpu):.1f} ms", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
