"""A stepper widget for Jupyter (anywidget): panes of algorithms on one data set with its links.

``Stepper(data, links, ["gmm", "gmpr"], params={"gmm": {...}})`` shows one picture per pane
(:mod:`pairlab.mpl`), play / step / half-step / back, the objective against iteration, and the
explanation of a selected point (:meth:`pairlab.Run.explain`, the same data as the app). Clicking
two points adds a link of the chosen kind between them, or removes it if they are linked. The
widget holds no maths: it drives :class:`~pairlab.Run` objects (one per pane) and draws their
frames; it never imports Qt. anywidget was chosen over ipywidgets' stock controls because one small
ES module renders the same in JupyterLab, Notebook 7, VS Code and Colab and takes image clicks.

Every action is also a Python method (:meth:`step`, :meth:`click`, ...), so a script or a test
drives the widget exactly as the buttons do.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .constraints import Constraints
from .dataset import Dataset
from .draw.frames import build_frame
from .draw.geometry import ViewMap, nearest_point, region_bounds
from .draw.regions import decision_regions
from .errors import InvalidInputError, PairlabError
from .mpl import draw_frames
from .run import Run

__all__ = ["Stepper"]

try:
    import anywidget
    import traitlets
except ImportError as exc:  # pragma: no cover - the test environment has anywidget
    raise PairlabError('The notebook widget needs anywidget: pip install "pairlab[notebook]"') from exc

_ESM = """
function render({ model, el }) {
  const bar = document.createElement("div");
  const mk = (label, event) => {
    const b = document.createElement("button");
    b.textContent = label;
    b.onclick = () => model.send({ event });
    bar.appendChild(b);
    return b;
  };
  mk("|<", "reset"); mk("<", "back"); mk("½>", "half_step"); mk(">", "step");
  const play = document.createElement("button");
  play.textContent = "play";
  let timer = null;
  play.onclick = () => {
    if (timer) { clearInterval(timer); timer = null; play.textContent = "play"; return; }
    timer = setInterval(() => model.send({ event: "step" }), 600);
    play.textContent = "pause";
  };
  bar.appendChild(play);
  const kind = document.createElement("select");
  for (const k of ["must", "cannot"]) {
    const o = document.createElement("option"); o.value = k; o.textContent = k + "-link"; kind.appendChild(o);
  }
  kind.onchange = () => { model.set("link_kind", kind.value); model.save_changes(); };
  bar.appendChild(kind);
  const img = document.createElement("img");
  img.style.cursor = "crosshair";
  img.onclick = (e) => {
    const r = img.getBoundingClientRect();
    const sx = img.naturalWidth / r.width, sy = img.naturalHeight / r.height;
    model.send({ event: "click", x: (e.clientX - r.left) * sx, y: (e.clientY - r.top) * sy });
  };
  const info = document.createElement("pre");
  const curve = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  curve.setAttribute("width", "360"); curve.setAttribute("height", "90");
  const update = () => {
    img.src = "data:image/png;base64," + model.get("image");
    info.textContent = model.get("status") + "\\n" + model.get("explanation");
    kind.value = model.get("link_kind");
    curve.innerHTML = "";
    const series = model.get("objectives");
    const all = series.flat().filter(Number.isFinite);
    if (all.length > 1) {
      const lo = Math.min(...all), hi = Math.max(...all), n = Math.max(...series.map(s => s.length));
      const colours = ["#d55e00", "#0072b2", "#009e73", "#e69f00", "#cc79a7"];
      series.forEach((s, k) => {
        const pts = s.map((v, i) =>
          `${5 + 350 * i / Math.max(1, n - 1)},${85 - 80 * (v - lo) / ((hi - lo) || 1)}`);
        const pl = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
        pl.setAttribute("points", pts.join(" ")); pl.setAttribute("fill", "none");
        pl.setAttribute("stroke", colours[k % colours.length]);
        curve.appendChild(pl);
      });
    }
  };
  model.on("change", update);
  update();
  el.append(bar, img, curve, info);
  return () => { if (timer) clearInterval(timer); };
}
export default { render };
"""


class Stepper(anywidget.AnyWidget):
    """Panes of algorithms (one :class:`~pairlab.Run` each) on ``dataset`` with ``constraints``."""

    _esm = _ESM
    image = traitlets.Unicode("").tag(sync=True)
    status = traitlets.Unicode("").tag(sync=True)
    explanation = traitlets.Unicode("").tag(sync=True)
    objectives = traitlets.List([]).tag(sync=True)
    link_kind = traitlets.Unicode("must").tag(sync=True)

    def __init__(self, dataset: Dataset, constraints: Constraints | None = None,
                 algorithms: Sequence[str] = ("gmm",), *,
                 params: Mapping[str, Mapping[str, Any]] | None = None,
                 seed: int = 0, panel_size: tuple[float, float] = (420, 380), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not algorithms:
            raise InvalidInputError("give at least one algorithm")
        self.dataset = dataset
        self.constraints = constraints if constraints is not None else Constraints.empty(dataset.n_samples)
        self.algorithms = list(algorithms)
        self.params = {name: dict((params or {}).get(name, {})) for name in self.algorithms}
        self.seed = seed
        self.panel_size = panel_size
        self.selected: int | None = None  # first point of a link being drawn, and the explained one
        self.pending: int | None = None
        self._figure: Any = None
        self.on_msg(self._on_message)
        self._new_runs()

    # -- actions ------------------------------------------------------------------------------
    def _new_runs(self) -> None:
        self.runs = [Run(name, self.dataset, self.constraints, self.params[name], seed=self.seed)
                     for name in self.algorithms]
        self.redraw()

    def step(self) -> None:
        """One iteration forward in every pane that has not converged."""
        for run in self.runs:
            if not (run.converged and run.at_end):
                run.step()
        self.redraw()

    def half_step(self) -> None:
        for run in self.runs:
            if run.has_phases and not (run.converged and run.at_end):
                run.half_step()
            elif not (run.converged and run.at_end):
                run.step()
        self.redraw()

    def back(self) -> None:
        for run in self.runs:
            if run.index > 0 or run.on_half:
                run.back()
        self.redraw()

    def reset(self) -> None:
        for run in self.runs:
            run.seek(0)
        self.redraw()

    def select(self, point: int | None) -> None:
        """Explain ``point`` (None: clear) in every pane's current state."""
        if point is not None and not 0 <= point < self.dataset.n_samples:
            raise InvalidInputError(f"point {point} is not in the data set (0..{self.dataset.n_samples - 1})")
        self.selected = point
        self._explain()

    def toggle_link(self, i: int, j: int, kind: str | None = None) -> bool:
        """Add a ``kind`` link (default :attr:`link_kind`) between i and j, or remove the link that
        joins them; the panes restart from iteration 0 with the new links. True if added."""
        kind = kind or self.link_kind
        if kind not in ("must", "cannot"):
            raise InvalidInputError(f"link kind must be 'must' or 'cannot', got {kind!r}")
        if i == j:
            raise InvalidInputError("a link joins two different points")
        ml = [tuple(p) for p in self.constraints.must_link.tolist()]
        cl = [tuple(p) for p in self.constraints.cannot_link.tolist()]
        pair, rev = (int(i), int(j)), (int(j), int(i))
        had = [lst for lst in (ml, cl) if pair in lst or rev in lst]
        for lst in had:
            for p in (pair, rev):
                if p in lst:
                    lst.remove(p)
        if not had:
            (ml if kind == "must" else cl).append(pair)
        self.constraints = Constraints(np.array(ml, dtype=np.intp).reshape(-1, 2),
                                       np.array(cl, dtype=np.intp).reshape(-1, 2),
                                       n_samples=self.dataset.n_samples)
        self._new_runs()
        return not had

    def click(self, x: float, y: float) -> int | None:
        """A click at pixel (x, y) of the picture (origin top left): selects the nearest point;
        a second point links (or unlinks) it with the first. Returns the point or None."""
        fig = self._figure
        height = fig.get_size_inches()[1] * fig.dpi
        for ax in fig.axes:
            if not ax.get_visible() or not ax.contains_point((x, height - y)):
                continue
            dx, dy = ax.transData.inverted().transform((x, height - y))
            px, py = ax.transData.inverted().transform((x + 1, height - y + 1)) - np.array([dx, dy])
            point = nearest_point(self.dataset.view, dx, dy, abs(px), abs(py), 8)
            if point is None:
                self.pending = None
                return None
            if self.pending is not None and self.pending != point:
                first, self.pending = self.pending, None
                self.toggle_link(first, point)
            else:
                self.pending = point
            self.select(point)
            return point
        return None

    def _on_message(self, widget: Any, content: Mapping[str, Any], buffers: Any) -> None:
        event = content.get("event")
        if event in ("step", "half_step", "back", "reset"):
            getattr(self, event)()
        elif event == "click":
            self.click(float(content["x"]), float(content["y"]))

    # -- drawing ------------------------------------------------------------------------------
    def redraw(self) -> None:
        vm = ViewMap.of(self.dataset)
        bounds = region_bounds(self.dataset.view)
        frames = []
        for run in self.runs:
            regions = (decision_regions(run.algorithm, run.state, self.dataset, view_map=vm, bounds=bounds,
                                        resolution=100) if run.algorithm_class.can_predict() else None)
            frames.append(build_frame(self.dataset, self.constraints, run.state, view_map=vm, regions=regions,
                                      title=run.algorithm_class.title))
        fig = draw_frames(frames, ncols=min(len(frames), 3), panel_size=self.panel_size)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=fig.dpi)
        self._figure = fig
        self.image = base64.b64encode(buf.getvalue()).decode("ascii")
        self.objectives = [[float(v) for v in run.objectives] for run in self.runs]
        self.status = "   ".join(
            f"{run.algorithm_class.name}: iteration {run.state.iteration}"
            + (" (half)" if run.on_half else "") + (" converged" if run.converged and run.at_end else "")
            for run in self.runs) + f"   links: {len(self.constraints)}"
        self._explain()

    def _explain(self) -> None:
        if self.selected is None:
            self.explanation = ""
            return
        lines = []
        for run in self.runs:
            e = run.explain(self.selected)
            if e is None:
                lines.append(f"{run.algorithm_class.name}: no explanation")
                continue
            lines.append(f"{run.algorithm_class.name}, point {e.point} ({e.phase}): {e.equation}")
            if e.text:
                lines.append("  " + e.text)
            for b in e.bars:
                vals = ", ".join(f"{lab}={v:.3g}" for lab, v in zip(b.labels, b.values, strict=True))
                lines.append(f"  {b.title}: {vals}")
        self.explanation = "\n".join(lines)
