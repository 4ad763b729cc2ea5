"""CPU and wall time per app frame (the gui bench case's frame), medians over 40 frames.

Run: ``python assets/bench/cpu_frame.py 5000`` (0: the objective plot alone). Compare code versions
in alternating runs; CPU time is far less sensitive than wall time to a loaded machine.
"""

import os
import statistics
import sys
import time

os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ["OPENBLAS_NUM_THREADS"] = "1"

from pairlab.benchcases.gui import _frame_case, _objective_case

n = int(sys.argv[1])
case = _frame_case(n, 1.0) if n else _objective_case()
for _ in range(5):
    case.subject()
cpu, wall = [], []
for _ in range(40):
    c, w = time.process_time(), time.perf_counter()
    case.subject()
    cpu.append(time.process_time() - c)
    wall.append(time.perf_counter() - w)
print(f"n={n} cpu median {1000 * statistics.median(cpu):.1f} ms  "
      f"wall median {1000 * statistics.median(wall):.1f} ms")
