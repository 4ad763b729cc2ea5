"""A stepper widget for Jupyter (anywidget): panes of algorithms on one data set with its links.

``Stepper(data, links, ["gmm", "gmpr"], params={"gmm": {...}})`` shows the panes side by side
(drawn by :mod:`pairlab.mpl`), play / step / half-step / back, a scrubber over the iterations and
half-steps computed so far, the objective and a metric (ARI when the data has labels) against
iteration, and the explanation of a selected point (the same :class:`~pairlab.Explanation` data as
the app). Clicking two points adds a link of the chosen kind between them, or removes the link
that joins them; undo takes the edit back.

The widget holds no maths and no state of its own: it drives the desktop app's Qt-free model
(:class:`pairlab.gui.model.Lab`: its panes' :class:`~pairlab.Run` objects, links with undo, the
timeline and the cached frames and metrics) and never imports Qt. anywidget was chosen over
ipywidgets' stock controls because one small ES module (:mod:`pairlab.notebook_js`) renders the
same in JupyterLab, Notebook 7, VS Code and Colab and takes clicks on the picture.

Every front-end message is also a Python method (:meth:`step`, :meth:`toggle_link`, :meth:`seek`
...), so a script or a test drives the widget as the buttons do; :meth:`handle` takes the
messages themselves.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .constraints import Constraints
from .dataset import Dataset
from .draw.geometry import data_bounds
from .errors import InvalidInputError, PairlabError
from .gui.model import Lab
from .mpl import draw_frames
from .notebook_js import ESM

__all__ = ["Stepper"]

try:
    import anywidget
    import traitlets
except ImportError as exc:  # pragma: no cover - the test environment has anywidget
    raise PairlabError('The notebook widget needs anywidget: pip install "pairlab[notebook]"') from exc

#: the metric drawn against iteration beside the objective, when the data has labels
METRIC = "ari"
_MOVES = ("step", "half_step", "back", "half_back", "reset", "undo")


def _index(value: Any, n: int, what: str, of: str = "a point of the data set") -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InvalidInputError(f"{what} must be an integer index, got {value!r}")
    if not 0 <= int(value) < n:
        raise InvalidInputError(f"{what} = {value} is not {of} (0..{n - 1})")
    return int(value)


def _finite(v: Any) -> float | None:
    return float(v) if v is not None and math.isfinite(v) else None


class Stepper(anywidget.AnyWidget):
    """Panes of ``algorithms`` (one :class:`~pairlab.Run` each) on ``dataset`` with ``constraints``."""

    _esm = ESM
    image = traitlets.Unicode("").tag(sync=True)
    status = traitlets.Unicode("").tag(sync=True)
    explanation = traitlets.Unicode("").tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    curves = traitlets.Dict({}).tag(sync=True)
    positions = traitlets.List([]).tag(sync=True)
    position = traitlets.Int(0).tag(sync=True)
    at_end = traitlets.Bool(False).tag(sync=True)
    can_undo = traitlets.Bool(False).tag(sync=True)
    link_kind = traitlets.Unicode("must").tag(sync=True)
    #: point coordinates on the view plane, flat (x0, y0, x1, y1, ...), for the front-end's hit test
    view = traitlets.List([]).tag(sync=True)
    #: per pane [left, top, width, height, ax, bx, ay, by]: image pixel = (ax x + bx, ay y + by)
    axes = traitlets.List([]).tag(sync=True)

    def __init__(self, dataset: Dataset, constraints: Constraints | None = None,
                 algorithms: Sequence[str] = ("gmm",), *,
                 params: Mapping[str, Mapping[str, Any]] | None = None, seed: int = 0,
                 panel_size: tuple[float, float] = (420, 380), regions_resolution: int = 100,
                 registry: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(algorithms, str) or not algorithms:
            raise InvalidInputError("give a list of one algorithm name or more, e.g. ['gmm', 'gmpr']")
        self.lab = Lab(registry)
        self.lab.use_dataset(dataset)
        self.lab.set_seed(seed)
        for name in algorithms:
            self.lab.add_pane(name, (params or {}).get(name))
        if constraints is not None:
            self.lab.set_constraints(constraints, undoable=False)
        self.panel_size = panel_size
        self.regions_resolution = regions_resolution
        self.selected: int | None = None
        self._figure: Any = None
        self._layout: list[Any] | None = None
        self.view = [round(float(v), 5) for v in np.asarray(dataset.view, dtype=float).ravel()]
        self._range = data_bounds(np.asarray(dataset.view, dtype=float), margin=0.04)
        self.on_msg(lambda _w, content, _b: self.handle(content))
        self.redraw()

    @property
    def dataset(self) -> Dataset:
        assert self.lab.dataset is not None
        return self.lab.dataset

    @property
    def constraints(self) -> Constraints:
        """The links the panes run with."""
        return self.lab.constraints

    @property
    def runs(self) -> list[Any]:
        return [p.run for p in self.lab.panes]

    # -- the timeline (the app's transport, synchronously) --------------------------------------
    def _build(self) -> None:
        for pane in self.lab.pending():
            try:
                self.lab.attach(pane, self.lab.build_run(pane))
            except Exception as exc:  # a plugin's error shows in its pane, as in the app
                self.lab.attach(pane, None, exc)

    def step(self) -> bool:
        """One iteration forward in every pane (finishes a half-step); False at the end."""
        lab = self.lab
        t = lab.iteration + (0 if lab.on_half else 1)
        if lab.needs_compute(t):
            lab.compute_to(t)
        moved = t <= lab.max_index
        if moved:
            lab.seek(t)
        self.redraw()
        return moved

    def half_step(self) -> bool:
        """Half an iteration forward (E-step, then M-step); panes without phases move whole."""
        lab = self.lab
        t = lab.iteration + 1
        if lab.on_half or lab.needs_compute(t - 1) or not lab.has_half(t):
            return self.step()
        lab.compute_half(t)
        lab.seek_half(t)
        self.redraw()
        return True

    def back(self) -> None:
        lab = self.lab
        if lab.iteration > 0 or lab.on_half:
            lab.seek(min(lab.iteration, lab.max_index + 1 if lab.on_half else lab.max_index) - 1)
        self.redraw()

    def half_back(self) -> None:
        lab = self.lab
        t = min(lab.iteration, lab.max_index)
        if lab.on_half:
            lab.seek(lab.iteration - 1)
        elif t > 0 and any(p.run is not None and (t - 1) in p.run.halves for p in lab.panes):
            lab.seek_half(t)
        elif t > 0:
            lab.seek(t - 1)
        self.redraw()

    def reset(self) -> None:
        self.lab.seek(0)
        self.redraw()

    def seek(self, position: int) -> None:
        """Show scrubber position ``position`` (an index into :attr:`positions`)."""
        stops = self._stops()
        k = _index(position, len(stops), "position", "a scrubber position computed so far")
        t, half = stops[k]
        (self.lab.seek_half if half else self.lab.seek)(t)
        self.redraw()

    def _stops(self) -> list[tuple[int, bool]]:
        """Every state stored: (iteration, on a half-step before it)."""
        stops: list[tuple[int, bool]] = []
        for t in range(self.lab.max_index + 2):
            if t and any(p.run is not None and (t - 1) in p.run.halves for p in self.lab.panes):
                stops.append((t, True))
            if t <= self.lab.max_index:
                stops.append((t, False))
        return stops

    # -- links and points ------------------------------------------------------------------------
    def select(self, point: int | None) -> None:
        """Explain ``point`` (None: clear) in every pane's state on screen."""
        self.selected = None if point is None else _index(point, self.dataset.n_samples, "point")
        self._explain()

    def toggle_link(self, i: int, j: int, kind: str | None = None) -> bool:
        """Add a ``kind`` link (default :attr:`link_kind`) between points i and j, or remove the
        link that joins them (through the app's model, undoable); the panes restart from
        iteration 0. True if a link was added."""
        n = self.dataset.n_samples
        i, j = _index(i, n, "i"), _index(j, n, "j")
        kind = self.link_kind if kind is None else kind
        if kind not in ("must", "cannot"):
            raise InvalidInputError(f"link kind must be 'must' or 'cannot', got {kind!r}")
        if i == j:
            raise InvalidInputError(f"a link joins two different points (got {i} twice)")
        if self.lab.remove_link(i, j):
            added = False
        else:
            added = self.lab.add_link(kind, i, j)
        self.redraw()
        return added

    def undo(self) -> str:
        """Undo the last link edit ("" when there is nothing to undo)."""
        what = self.lab.undo()
        self.redraw()
        return what

    def handle(self, content: Mapping[str, Any]) -> None:
        """A message from the front-end; a bad one sets :attr:`error` instead of raising."""
        try:
            self.error = ""
            event = content.get("event") if isinstance(content, Mapping) else None
            if event in _MOVES:
                getattr(self, event)()
            elif event == "seek":
                self.seek(content.get("position"))  # type: ignore[arg-type]
            elif event == "select":
                self.select(content.get("point"))  # type: ignore[arg-type]
            elif event == "link":
                self.toggle_link(content.get("i"), content.get("j"))  # type: ignore[arg-type]
            else:
                raise InvalidInputError(f"unknown message {content!r}")
        except PairlabError as exc:
            self.error = str(exc)

    # -- what the front-end shows ----------------------------------------------------------------
    def redraw(self) -> None:
        """Build missing runs, draw the panes and update every synced value."""
        self._build()
        lab = self.lab
        frames = [lab.frame(p, regions_resolution=self.regions_resolution) for p in lab.panes]
        fig = draw_frames(frames, ncols=min(len(frames), 3), panel_size=self.panel_size,
                          view_range=self._range)
        if self._layout is not None:  # the panes never move: skip matplotlib's layout after the first
            fig.set_layout_engine("none")
            for ax, box in zip(fig.axes, self._layout, strict=True):
                ax.set_position(box)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=fig.dpi, metadata={"Software": None})
        self._figure = fig
        self._layout = [ax.get_position() for ax in fig.axes]
        height = fig.get_size_inches()[1] * fig.dpi
        maps = []
        for ax in fig.axes[:len(frames)]:
            (x0, y0), (x1, y1) = ax.transData.transform([(0.0, 0.0), (1.0, 1.0)])
            box = ax.bbox
            maps.append([round(float(v), 3) for v in (box.x0, height - box.y1, box.width, box.height,
                                               x1 - x0, x0, -(y1 - y0), height - y0)])
        stops = self._stops()
        here = (lab.iteration, lab.on_half)
        with self.hold_sync():
            self.image = base64.b64encode(buf.getvalue()).decode("ascii")
            self.axes = maps
            self.positions = [f"{'½ before ' if h else ''}iteration {t}" for t, h in stops]
            self.position = stops.index(here) if here in stops else len(stops) - 1
            self.curves = self._curves()
            self.at_end = lab.at_end()
            self.can_undo = bool(lab.undo_kind)
            self.status = self._status()
            self._explain()

    def _curves(self) -> dict[str, Any]:
        lab = self.lab
        runs = [(p, p.run) for p in lab.panes]
        names = {r.state.objective_name for _, r in runs if r is not None and r.state.objective_name}
        curves: dict[str, Any] = {
            "panes": [p.title for p in lab.panes], "cursor": lab.iteration,
            "objective": {"name": " / ".join(sorted(names)) or "objective",
                          "series": [[] if r is None else [_finite(s.objective) for s in r.history]
                                     for _, r in runs]},
            "metric": None}
        if lab.has_truth:
            curves["metric"] = {"name": METRIC.upper(), "series": [
                [] if r is None else [_finite(lab.metrics(p, t, (METRIC,)).get(METRIC))
                                      for t in range(p.last_index + 1)] for p, r in runs]}
        return curves

    def _status(self) -> str:
        parts = []
        for pane in self.lab.panes:
            run = pane.run
            if run is None:
                parts.append(f"{pane.name}: {pane.error or 'no run'}")
                continue
            parts.append(f"{pane.name}: iteration {run.state.iteration}" + (" (half)" if run.on_half else "")
                         + (" converged" if pane.finished and run.index == pane.last_index else ""))
        c = self.constraints
        return "   ".join(parts) + f"   links: {c.n_must_link} must, {c.n_cannot_link} cannot"

    def _explain(self) -> None:
        if self.selected is None:
            self.explanation = ""
            return
        lines = []
        for pane in self.lab.panes:
            e = self.lab.explain(pane, self.selected)
            if e is None:
                lines.append(f"{pane.name}: no explanation")
                continue
            lines.append(f"{pane.name}, point {e.point} ({e.phase}): {e.equation}")
            if e.text:
                lines.append("  " + e.text)
            for b in e.bars:
                vals = ", ".join(f"{lab}={v:.3g}" for lab, v in zip(b.labels, b.values, strict=True))
                lines.append(f"  {b.title}: {vals}")
        self.explanation = "\n".join(lines)
