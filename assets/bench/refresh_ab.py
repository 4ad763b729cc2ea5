"""The refresh of the bench's three-pane frame (``frame_split.py``'s split), this checkout against
the functions the refresh branch changed as another checkout has them, alternated in ONE process
(the machine's load swings more between processes than the change).

The other checkout's source of each function below is compiled into this process with the live
module's names (so only these functions differ) and swapped in for blocks of frames: old, new,
old, new, ... Prints the medians of each block and of all frames per side.

Run: ``python assets/bench/refresh_ab.py OTHER_CHECKOUT [frames per block] [blocks per side]
[--lab]`` (e.g. a ``git archive`` of main unpacked in /tmp/base); ``--lab`` times only the Qt-free
share (``Lab.frame`` with regions and ``Lab.metrics`` of the three panes, no window).
"""

from __future__ import annotations
import __future__

import ast
import importlib
import itertools
import statistics
import sys
import textwrap
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

#: (module, function or Class.method) the refresh branch changed
CHANGED = (
    ("pairlab.mixture", "log_normalize"),
    ("pairlab.metrics", "_codes"),
    ("pairlab.metrics", "contingency"),
    ("pairlab.metrics", "class_matching"),
    ("pairlab.scoring", "evaluate"),
    ("pairlab.gui.lab_views", "build_frame"),
    ("pairlab.gui.lab_views", "colour_regions"),
    ("pairlab.gui.presentation", "Presentation.draw"),
    ("pairlab.gui.presentation", "Presentation._header"),
    ("pairlab.gui.canvas", "CanvasLayers._show_marks"),
)
#: where each function is defined (a name imported by another module is defined here)
DEFINED = {"build_frame": "pairlab.draw.frames", "colour_regions": "pairlab.draw.regions"}


def old_function(base: Path, module: str, name: str, **names: object):
    """``name`` compiled from ``base``'s source of the module defining it, with the live
    module's globals (``names`` override some)."""
    home = DEFINED.get(name, module)
    path = base / (home.replace(".", "/") + ".py")
    source = path.read_text()
    cls, _, func = name.rpartition(".")
    nodes = ast.parse(source).body
    if cls:
        nodes = next(n for n in nodes if isinstance(n, ast.ClassDef) and n.name == cls).body
    node = next(n for n in nodes if isinstance(n, ast.FunctionDef) and n.name == func)
    code = textwrap.dedent(ast.get_source_segment(source, node))
    scope = dict(vars(importlib.import_module(home)))
    scope.update(names)
    exec(compile(code, str(path), "exec", flags=__future__.annotations.compiler_flag,
                 dont_inherit=True), scope)
    return scope[func]


def versions(base: Path) -> tuple[dict, dict]:
    """(new, old): (module, name) -> function."""
    new = {}
    for module, name in CHANGED:
        owner = importlib.import_module(module)
        cls, _, func = name.rpartition(".")
        new[module, name] = getattr(getattr(owner, cls) if cls else owner, func)
    helpers = {n: old_function(base, "pairlab.draw.geometry", n)
               for n in ("link_segments", "ellipse_curves")}
    old_slots = old_function(base, "pairlab.draw.classes", "slot_mapper")
    old = {key: old_function(base, *key) for key in CHANGED if key[1] != "build_frame"}
    old["pairlab.gui.lab_views", "build_frame"] = old_function(
        base, "pairlab.gui.lab_views", "build_frame", slot_mapper=old_slots, **helpers)
    return new, old


def install(functions: dict) -> None:
    for (module, name), f in functions.items():
        owner = importlib.import_module(module)
        cls, _, func = name.rpartition(".")
        setattr(getattr(owner, cls) if cls else owner, func, f)


def lab_only(n: int = 5000, links: int = 50, resolution: int = 96):
    """The bench's three panes in a Lab without a window: one frame is ``Lab.frame`` with
    regions and ``Lab.metrics`` of each pane (the refresh's share that is not Qt)."""
    from pairlab.benchcases.gui import THREE_PANES
    from pairlab.gui.model import Lab

    lab = Lab()
    lab.set_dataset("gaussian-blobs", {"n_samples": n, "n_centers": 4, "cluster_std": 1.5}, seed=0)
    for name in THREE_PANES:
        params = {"n_clusters": 4} if name == "kmeans" else {"n_components": 4, "tol": 0.0}
        lab.add_pane(name, {**params, "max_iter": 12})
    lab.add_random_links(links, links)
    for pane in lab.pending():
        lab.attach(pane, lab.build_run(pane))
    lab.compute_to(None)
    iterations = itertools.cycle(range(1, lab.max_index + 1))

    def one() -> tuple[float, float, float]:
        t = next(iterations)
        for pane in lab.panes:
            pane.cache.clear()
        c0, w0 = time.process_time(), time.perf_counter()
        lab.seek(t)
        for pane in lab.panes:
            lab.frame(pane, regions=True, regions_resolution=resolution)
            lab.metrics(pane)
        return time.process_time() - c0, 0.0, time.perf_counter() - w0

    return one


def main(base: Path, frames: int, blocks: int, lab: bool = False) -> None:
    new, old = versions(base)
    if lab:
        report(lab_only(), new, old, frames, blocks)
        return
    from PySide6 import QtWidgets

    from pairlab.benchcases import gui

    gui._frame(5000, 50, gui.THREE_PANES)
    window = gui._KEEP[-1]
    shown = window.presentation  # the Ask menu wrapped its bound draw: look the class's up
    shown.draw = window.suggest._wrap(lambda **kw: type(shown).draw(shown, **kw),
                                      window.suggest._ring)
    from frame_split import frame_timer  # this folder: the script's own path

    one = frame_timer(window, QtWidgets.QApplication.instance())
    report(one, new, old, frames, blocks)


def report(one, new: dict, old: dict, frames: int, blocks: int, install=install) -> None:
    """Time ``blocks`` blocks of ``frames`` frames a side, ``install(old)`` and ``install(new)``
    in turn, and print the medians."""
    runs: dict[str, list] = {"before": [], "after": []}
    for block in range(2 * blocks):
        side = "before" if block % 2 == 0 else "after"
        install(old if side == "before" else new)
        for _ in range(3):
            one()  # the other side's frame is on screen: redraw before timing
        got = [one() for _ in range(frames)]
        runs[side] += got
        print(f"{side:6s} block {block // 2 + 1}: refresh "
              f"{1000 * statistics.median(r[0] for r in got):.1f} ms CPU, paint "
              f"{1000 * statistics.median(r[1] for r in got):.1f} ms CPU, wall "
              f"{1000 * statistics.median(r[2] for r in got):.1f} ms", flush=True)
    for side, got in runs.items():
        print(f"{side}: refresh {1000 * statistics.median(r[0] for r in got):.1f} ms CPU, "
              f"paint {1000 * statistics.median(r[1] for r in got):.1f} ms CPU, frame "
              f"{1000 * statistics.median(r[0] + r[1] for r in got):.1f} ms CPU, "
              f"{1000 * statistics.median(r[2] for r in got):.1f} ms wall "
              f"(medians of {len(got)} frames)")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--lab"]
    if not args:
        sys.exit(__doc__)
    with threadpool_limits(1):
        main(Path(args[0]), *[int(a) for a in args[1:3]] + [20, 5][len(args[1:3]):],
             lab="--lab" in sys.argv)
