"""The bench's three-pane frame with one of the frame3, frame4 and later changes switched off
and on in turn, in ONE process (the machine's load swings more between processes than a change).

Each switch puts back the code before the change (``before``) or this checkout's (``after``) for
blocks of frames: before, after, before, after, ... and prints the medians of each block and of
all frames per side (``frame_split.frame_timer``: refresh and painting CPU, wall), then the CPU
time a frame of the parts in ``PARTS`` on each side.

Run: ``python assets/bench/frame_ab.py SWITCH [frames per block] [blocks per side]`` with SWITCH
one of the names in ``SWITCHES`` or ``GROUPS`` (``all``: every switch at once; ``round5``: the
frame4 branch's) and ``--base DIR`` a checkout of the code before (e.g. a ``git archive`` of
main) for the switches that compile its source.
"""

from __future__ import annotations

import sys
import time

from threadpoolctl import threadpool_limits


def _bounds(window, on: bool) -> None:
    """LeanScatter's bounding rectangle on a miss: pyqtgraph's (before) or the lean one."""
    import pyqtgraph as pg

    from pairlab.gui import lean_items

    cls = lean_items.LeanScatter
    if "_lean_bounding_rect" not in vars(cls):
        cls._lean_bounding_rect = cls._bounding_rect
    cls._bounding_rect = cls._lean_bounding_rect if on else pg.ScatterPlotItem.boundingRect


def _noindex(window, on: bool) -> None:
    """The views' scenes without an item index (on) or with Qt's default BSP tree (before)."""
    from PySide6 import QtWidgets

    method = QtWidgets.QGraphicsScene.ItemIndexMethod
    for view in window.findChildren(QtWidgets.QGraphicsView):
        view.scene().setItemIndexMethod(method.NoIndex if on else method.BspTreeIndex)


def _marks(window, on: bool) -> None:
    """Marks of one style (rings of changed labels, violations) set by ``setData`` (before) or
    by ``LeanScatter.set_points``."""
    from pairlab.gui import lean_items

    cls = lean_items.LeanScatter
    if "_lean_set_points" not in vars(cls):
        cls._lean_set_points = cls.set_points
    cls.set_points = cls._lean_set_points if on else (
        lambda self, pos, **style: self.setData(pos=pos, **style))


def _fragments(window, on: bool) -> None:
    """LeanScatter's fragment array: the code before (compiled from ``--base``'s source) or
    this one (rectangles read through a view, positions kept when only the styles change)."""
    from pathlib import Path

    from pairlab.gui import lean_items

    cls = lean_items.LeanScatter
    if "_lean_fragments" not in vars(cls):
        from refresh_ab import old_function

        cls._lean_fragments = cls._fragments
        cls._old_fragments = old_function(Path(BASE[0]), "pairlab.gui.lean_items",
                                          "LeanScatter._fragments")
    cls._fragments = cls._lean_fragments if on else cls._old_fragments


def _paths(window, on: bool) -> None:
    """The ellipses' paths built in one reused polygon (on) or by ``arrayToQPath`` (before)."""
    from pyqtgraph import functions as fn

    from pairlab.gui import lean_items

    if "_lean_closed_paths" not in vars(lean_items):
        lean_items._lean_closed_paths = lean_items._closed_paths
    lean_items._closed_paths = lean_items._lean_closed_paths if on else (
        lambda curves: [fn.arrayToQPath(x, y, connect="all") for x, y in curves])


def _cursor(window, on: bool) -> None:
    """The objective plots' cursor line keeps its rectangle when moved (on) or computes it again
    after every move as ``InfiniteLine`` does (before)."""
    import pyqtgraph as pg

    from pairlab.gui import lean_items

    cls = lean_items.LeanLine
    if "_lean_set_pos" not in vars(cls):
        cls._lean_set_pos = cls.setPos
    cls.setPos = cls._lean_set_pos if on else pg.InfiniteLine.setPos


def _keys(window, on: bool) -> None:
    """The transport keys' filter on the focused text field only (on) or on the whole
    application (before: every event of every widget passed through it)."""
    from PySide6 import QtWidgets

    app, keys = QtWidgets.QApplication.instance(), window.transport.keys
    app.removeEventFilter(keys)
    if not on:
        app.installEventFilter(keys)


SWITCHES = {"bounds": _bounds, "noindex": _noindex, "marks": _marks, "fragments": _fragments,
            "paths": _paths, "cursor": _cursor, "keys": _keys}
#: groups of switches: ``all`` (every one; "fragments" needs --base), the frame4 branch's
GROUPS = {"all": list(SWITCHES), "round5": ["paths", "cursor"]}
BASE: list[str] = []  # --base DIR: a checkout of the code before (for "fragments")


#: the parts whose CPU time is printed per side (mean a timed frame): (module, Class, method)
PARTS = (("pairlab.gui.lean_items", "LeanScatter", "_fragments"),
         ("pairlab.gui.lean_items", "LeanScatter", "_bounding_rect"),  # its misses
         ("pairlab.gui.lean_items", "LeanScatter", "set_points"),
         ("pairlab.gui.canvas", "CanvasLayers", "show"),
         ("pairlab.gui.lean_items", "EllipseSet", "set_curves"),
         ("pairlab.gui.canvas", "ObjectivePlot", "show_values"),
         ("pyqtgraph", "InfiniteLine", "_computeBoundingRect"))


def _timed(owner: type, name: str, acc: dict, state: dict) -> None:
    """Put a CPU timer around ``owner.name`` as installed now (counted while a frame is timed)."""
    f = vars(owner)[name]
    f = getattr(f, "__wrapped__", f)

    def timed(*args, **kwargs):
        if not state["on"]:
            return f(*args, **kwargs)
        c = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            acc[state["side"], name] = acc.get((state["side"], name), 0.0) + time.process_time() - c

    timed.__wrapped__ = f
    timed.__name__ = timed.__qualname__ = name  # PySide finds a Qt virtual's override by name
    setattr(owner, name, timed)


def main(names: list[str], frames: int, blocks: int) -> None:
    import importlib

    from PySide6 import QtWidgets

    from pairlab.benchcases import gui

    gui._frame(5000, 50, gui.THREE_PANES)
    window = gui._KEEP[-1]
    from frame_split import frame_timer  # this folder: the script's own path
    from refresh_ab import report

    acc: dict = {}
    state = {"on": False, "side": "", "frames": {"before": 0, "after": 0}}

    def switch(on: bool) -> None:
        for name in names:
            SWITCHES[name](window, on)
        for module, cls, method in PARTS:
            _timed(getattr(importlib.import_module(module), cls), method, acc, state)
        state["side"] = "after" if on else "before"
        for view in window.findChildren(QtWidgets.QGraphicsView):
            view.viewport().update()  # the next frames start from a full window either way

    timer = frame_timer(window, QtWidgets.QApplication.instance())

    def install(side: dict) -> None:
        switch(side["on"])
        state["on"], state["count"] = False, 0

    def counted():
        state["count"] += 1
        state["on"] = state["count"] > 3  # report() redraws three times after a switch
        if state["on"]:
            state["frames"][state["side"]] += 1
        return timer()

    report(counted, {"on": True}, {"on": False}, frames, blocks, install=install)
    for side in ("before", "after"):
        n = max(state["frames"][side], 1)
        print(f"{side}: " + ", ".join(f"{method} {1000 * acc.get((side, method), 0.0) / n:.2f} ms"
                                      for _, _, method in PARTS) + f" (CPU a frame, {n} frames)")


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--base" in args:
        at = args.index("--base")
        BASE.append(args[at + 1])
        del args[at:at + 2]
    if not args or not (args[0] in SWITCHES or args[0] in GROUPS):
        sys.exit(__doc__)
    with threadpool_limits(1):
        main(GROUPS.get(args[0], [args[0]]),
             *[int(a) for a in args[1:3]] + [20, 5][len(args[1:3]):])
