"""Axis repaints per app frame (the gui-frame-5000 bench case), 10 frames after warm-up.

Run: ``python assets/bench/axis_count.py``. Issue 20: no axis may be re-laid out per frame.
"""

import collections
import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"

import pyqtgraph as pg

from pairlab.benchcases.gui import _frame_case

counts: collections.Counter = collections.Counter()
original = pg.AxisItem.paint


def paint(self, *args):
    counts[self.orientation] += 1
    return original(self, *args)


pg.AxisItem.paint = paint
case = _frame_case(5000, 1.0)
for _ in range(3):
    case.subject()
counts.clear()
for _ in range(10):
    case.subject()
print("axis paints in 10 frames:", dict(counts) or 0)
