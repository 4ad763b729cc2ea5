"""``pairlab gui``: open the teaching app, or render a screenshot of it without a window.

This module imports Qt only inside :func:`run`, so building the command-line parser stays light.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..argtypes import non_negative_int

__all__ = ["add_arguments", "configure_lab", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", metavar="NAME", help="data set (default: two-moons)")
    parser.add_argument("--data", action="append", metavar="KEY=VALUE", help="data set parameter")
    parser.add_argument("--algorithm", action="append", metavar="NAME",
                        help="algorithm of a pane; repeat to compare several side by side "
                             "(default: gmpr, else the first registered)")
    parser.add_argument("--set", action="append", metavar="[PANE:]KEY=VALUE",
                        help="algorithm parameter, for every pane that has it or for pane PANE "
                             "(1-based)")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="seed of the data and the algorithms")
    parser.add_argument("--must-link", type=int, default=None, metavar="N",
                        help="draw N random must-links from the ground truth")
    parser.add_argument("--cannot-link", type=int, default=None, metavar="N",
                        help="draw N random cannot-links from the ground truth")
    parser.add_argument("--constraints", metavar="FILE", help="links from a JSON or CSV file")
    parser.add_argument("--session", metavar="FILE", help="open a saved session")
    parser.add_argument("--play", type=int, default=None, metavar="N",
                        help="run N iterations after start-up")
    parser.add_argument("--screenshot", metavar="FILE",
                        help="save a screenshot (PNG) after --play and exit; needs no display")
    parser.add_argument("--size", default="1440x900", metavar="WxH", help="window size")
    parser.add_argument("--presentation", action="store_true",
                        help="start in presentation mode (large points and fonts)")
    parser.add_argument("--legend", action="store_true", help="show the legend of link styles")


def _split_set(item: str, n_panes: int) -> tuple[int | None, str]:
    head, sep, rest = item.partition(":")
    if sep and head.strip().isdigit() and "=" not in head:
        pane = int(head)
        if not 1 <= pane <= n_panes:
            from ..errors import InvalidInputError

            raise InvalidInputError(f"--set {item!r}: there are {n_panes} pane(s), numbered from 1")
        return pane - 1, rest
    return None, item


def configure_lab(args: argparse.Namespace, registry: Any = None) -> tuple[Any, int]:
    """A :class:`~pairlab.gui.model.Lab` set up from the command-line arguments, and the
    iteration to show (a session's saved iteration, else 0)."""
    from ..constraints import Constraints
    from ..errors import InvalidInputError
    from ..params import parse_assignments
    from .model import Lab
    from .session import apply_session, read_session

    lab = Lab(registry)
    if args.session:
        result = apply_session(lab, read_session(args.session))
        return lab, result["iteration"]
    spec = lab.registry.dataset(args.dataset or lab.default_dataset())
    data_params = parse_assignments(spec.params, args.data or [], owner=f"dataset {spec.name!r}")
    lab.set_dataset(spec.name, data_params, args.seed)
    lab.seed = args.seed
    names = args.algorithm or [lab.default_algorithm()]
    classes = [lab.registry.algorithm(n) for n in names]
    params: list[dict[str, Any]] = [{} for _ in classes]
    for item in args.set or []:
        target, assignment = _split_set(item, len(classes))
        key = assignment.partition("=")[0].strip()
        panes = [target] if target is not None else [
            k for k, cls in enumerate(classes) if key in {p.name for p in cls.params}]
        if not panes:
            import difflib

            known = sorted({p.name for cls in classes for p in cls.params})
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise InvalidInputError(f"no pane's algorithm has a parameter {key!r}.{hint} "
                                    f"Known parameters: {known}.")
        for k in panes:
            cls = classes[k]
            params[k].update(parse_assignments(cls.params, [assignment],
                                               owner=f"algorithm {cls.name!r}"))
    for cls, values in zip(classes, params, strict=True):
        lab.add_pane(cls.name, values)
    assert lab.dataset is not None
    if args.constraints:
        lab.set_constraints(Constraints.load(args.constraints, n_samples=lab.dataset.n_samples),
                            undoable=False)
    elif args.must_link is not None or args.cannot_link is not None:
        lab.add_random_links(args.must_link or 0, args.cannot_link or 0)
    elif lab.has_truth:
        lab.add_random_links(3, 3)
    lab.clear_undo()
    return lab, 0


def _size(text: str) -> tuple[int, int]:
    from ..errors import InvalidInputError

    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise InvalidInputError(f"--size expects WIDTHxHEIGHT such as 1440x900, got {text!r}") from None
    if not (MIN_SIZE <= w <= MAX_SIZE and MIN_SIZE <= h <= MAX_SIZE):
        raise InvalidInputError(f"--size {text}: width and height must be between {MIN_SIZE} and "
                                f"{MAX_SIZE} pixels, such as 1440x900.")
    return w, h


MIN_SIZE, MAX_SIZE = 100, 16384
#: what QImage.save writes without extra plugins, by file suffix
SCREENSHOT_FORMATS = (".png", ".jpg", ".jpeg", ".bmp", ".ppm")


def _screenshot_path(text: str) -> Path:
    """Check the screenshot file before Qt starts: a known image suffix, a writable place."""
    from ..atomic import check_writable_file
    from ..errors import InvalidInputError

    path = Path(text)
    if path.suffix.lower() not in SCREENSHOT_FORMATS:
        raise InvalidInputError(
            f"--screenshot {text!r}: the file name must end in one of "
            f"{', '.join(SCREENSHOT_FORMATS)} (the suffix chooses the image format), e.g. shot.png."
        )
    return check_writable_file(path)


def run(args: argparse.Namespace) -> int:
    """Open the app (or, with ``--screenshot``, render it offscreen and exit)."""
    from ..errors import InvalidInputError
    from ..extras import require_gui

    require_gui("pairlab gui")
    headless = bool(args.screenshot)
    if headless and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    width, height = _size(args.size)
    if headless:
        _screenshot_path(args.screenshot)
    if args.play is not None and args.play < 0:
        raise InvalidInputError("--play expects a number of iterations >= 0")
    for flag, value in (("--must-link", args.must_link), ("--cannot-link", args.cannot_link)):
        if value is not None and value < 0:
            raise InvalidInputError(f"{flag} expects a number of links >= 0, got {value}")
    if not headless and "PySide6.QtWidgets" not in sys.modules:   # no app in this process yet
        from .display import display_problem

        problem = display_problem()
        if problem:
            raise InvalidInputError(problem)
    lab, iteration = configure_lab(args)
    from PySide6 import QtCore, QtWidgets

    from .app import MainWindow
    from .figure import quiet_offscreen

    app = QtWidgets.QApplication.instance()
    if app is None:
        app = QtWidgets.QApplication(sys.argv[:1])
        if app.platformName() == "offscreen":
            quiet_offscreen()
    app.setApplicationName("pairlab")
    # a crashed session's autosave is offered (and kept until answered) however the app starts,
    # --dataset, --algorithm and --session included; only a headless screenshot leaves it alone
    window = MainWindow(lab, autosave=not headless, offer_restore=not headless)
    window.resize(width, height)
    if args.legend:
        window.presentation.act_legend.setChecked(True)
        window.presentation.toggle_view()
    if args.presentation:
        window.presentation.toggle_presentation(on=True)
        if headless:
            window.showNormal()
            window.resize(width, height)
    window.show()
    if args.session is not None:
        window.files.session_path = Path(args.session)
    if args.play or iteration:
        window.play_to(args.play or iteration)
    if not headless:
        return app.exec()
    window.wait_idle(timeout=600)
    if args.session is None:
        window.presentation.fit_views()
    for _ in range(5):
        app.processEvents()
        QtCore.QThread.msleep(20)
    path = Path(args.screenshot)
    if not window.grab().save(str(path)):
        raise InvalidInputError(f"could not write the screenshot {str(path)!r}")
    errors = [p.error for p in lab.panes if p.error]
    window.close()
    print(f"wrote {path} (iteration {lab.iteration})")
    for error in errors:
        print(f"pairlab: warning: {error}", file=sys.stderr)
    return 0
