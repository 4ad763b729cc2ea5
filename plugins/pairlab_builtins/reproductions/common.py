"""Helpers shared by the reproduction recipes: data, fits, colour matching, figure records.

Nothing here does algorithm maths: fits go through :class:`pairlab.Run` with the registered plugins.
"""

from __future__ import annotations

import contextlib
import math
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pairlab import Constraints, Dataset, Run, State
from pairlab.errors import InvalidInputError
from pairlab.metrics import accuracy, class_matching, purity
from pairlab.registry import get_registry
from pairlab.reproduction import ReproductionResult


@contextlib.contextmanager
def single_blas_thread() -> Iterator[None]:
    """Limit BLAS to one thread while fitting.

    Trials run in parallel processes; a multi-threaded BLAS on top of them spends most of its
    time synchronising on the tiny (d x d) solves of a Gaussian mixture (measured: 13x slower
    wall time for 2-D GM-PR on a busy 2-core machine). Without threadpoolctl this is a no-op.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
        yield
        return
    with threadpool_limits(1, user_api="blas"):
        yield


def make_dataset(name: str, seed: int | None = 0, **params: Any) -> Dataset:
    """A registered data set (raises a clear error naming the missing plugin)."""
    return get_registry().dataset(name).make(seed=seed, **params)


def fit(algorithm: str, dataset: Dataset, constraints: Constraints | None, params: dict[str, Any],
        seed: int) -> Run:
    """Run ``algorithm`` to convergence (or its ``max_iter``) and return the :class:`Run`."""
    run = Run(algorithm, dataset, constraints, params, seed=seed)
    run.run()
    return run


def misassigned(y: np.ndarray, labels: np.ndarray) -> int:
    """Points on the wrong side after the best one-to-one matching of clusters to classes."""
    return round((1.0 - accuracy(y, labels)) * len(y))


def subset(constraints: Constraints, *, must: bool = True, cannot: bool = True) -> Constraints:
    """The same links with one kind dropped."""
    return Constraints(constraints.must_link if must and constraints.n_must_link else None,
                       constraints.cannot_link if cannot and constraints.n_cannot_link else None,
                       n_samples=constraints.n_samples)


def matched_state(state: State, y: np.ndarray) -> tuple[State, np.ndarray]:
    """``state`` recoloured so that each cluster shows in the colour of its matched true class.

    Cluster labels are arbitrary; the paper colours each panel's classes consistently (red and
    green), so the figure does too. Returns a display copy of the state with labels, posterior
    columns and class-level parameters permuted (component means keep their own order and are
    re-assigned through ``class_of_component``), and the permutation ``perm`` (class index ->
    drawn class). For figures only: the JSON records the algorithm's own labels.
    """
    model = state.model
    coc = model.get("class_of_component")
    r = state.responsibilities
    labels = np.asarray(state.labels)
    if coc is not None:
        n_classes = int(np.max(coc)) + 1
        if labels.max(initial=0) >= n_classes:  # labels name components
            labels = np.asarray(coc)[labels]
    else:
        n_classes = r.shape[1] if r is not None else int(labels.max(initial=0)) + 1
    perm = class_matching(y, labels, n_classes)

    def by_class(a: np.ndarray) -> np.ndarray:
        out = np.empty_like(a)
        out[perm] = a
        return out

    shown: dict[str, np.ndarray] = {}
    if "weights" in model and len(model["weights"]) == n_classes:
        shown["weights"] = by_class(np.asarray(model["weights"]))
    if coc is not None:
        shown["class_of_component"] = perm[np.asarray(coc, dtype=np.int64)]
        for key in ("means", "covariances"):
            if key in model:
                shown[key] = np.asarray(model[key])
    else:
        for key in ("means", "covariances"):
            if key in model and len(model[key]) == n_classes:
                shown[key] = by_class(np.asarray(model[key]))
    if r is not None and r.shape[1] == n_classes:
        r = by_class(r.T).T.copy()
    return State(state.iteration, perm[labels], r, state.objective, state.objective_name,
                 shown), perm


@dataclass
class Recoloured:
    """Decision regions of ``algorithm`` at its own ``state``, columns in the drawn class order."""

    algorithm: Any
    state: State
    perm: np.ndarray

    def predict_proba(self, _shown: State, X: np.ndarray) -> np.ndarray:
        p = np.asarray(self.algorithm.predict_proba(self.state, X))
        if p.shape[1] != len(self.perm):
            return p
        out = np.empty_like(p)
        out[:, self.perm] = p
        return out


def truth_state(y: np.ndarray) -> State:
    """A state that shows the ground-truth classes (for the data panels)."""
    return State(0, np.asarray(y, dtype=np.int64))


@dataclass
class PanelRecord:
    """What one panel shows, in numbers (JSON) and, for drawing, the run it came from."""

    key: str
    title: str
    dataset: Dataset
    constraints: Constraints | None
    run: Run | None = None
    state: State | None = None
    init_means: np.ndarray | None = None
    info: str | None = None
    #: (rows, cols): the points are the blocks of a picture in row order, and the panel draws the
    #: segmentation as an image (:class:`pairlab.draw.label_map.LabelMapPanel`), not as points
    grid: tuple[int, int] | None = None

    def describe(self) -> dict[str, Any]:
        """Every number in the panel: labels, soft labels, model, links, scores."""
        out: dict[str, Any] = {"key": self.key, "title": self.title}
        c = self.constraints
        if c is not None:
            out["must_link"] = c.must_link
            out["cannot_link"] = c.cannot_link
        if self.init_means is not None:
            out["init_means"] = self.init_means
        state = self.state if self.run is None else self.run.state
        if self.run is not None:
            out["algorithm"] = self.run.algorithm_class.name
            out["params"] = {k: v for k, v in self.run.params.items()}
            out["seed"] = self.run.seed
            out["iterations"] = self.run.n_iter
            out["converged"] = self.run.converged
            out["objective"] = state.objective
        if state is not None:
            out["labels"] = state.labels
            if state.responsibilities is not None:
                out["responsibilities"] = np.round(state.responsibilities, 6)
            for key in ("means", "covariances", "weights", "class_of_component"):
                if key in state.model:
                    out[key] = state.model[key]
            y = self.dataset.y
            if y is not None and self.run is not None:
                out["purity"] = purity(y, state.labels)
                out["misassigned"] = misassigned(y, state.labels)
        return out

    def panel(self) -> Any:
        from pairlab.render import Panel

        state = self.state if self.run is None else self.run.state
        if self.grid is not None:
            return self.label_map(state)
        regions = self.run.algorithm if self.run is not None else None
        if state is not None and self.dataset.y is not None:
            own = state
            state, perm = matched_state(own, self.dataset.y)
            if regions is not None:
                regions = Recoloured(regions, own, perm)
        return Panel(self.dataset, self.constraints, state, self.title, decision_regions=regions,
                     init_means=self.init_means, info=self.info)

    def label_map(self, state: State | None) -> Any:
        """The segmentation as an image: each block in the colour of its cluster's matched true
        class (grey without a state)."""
        from pairlab.draw.label_map import LabelMapPanel

        n, (rows, cols) = self.dataset.n_samples, self.grid
        if rows * cols != n:
            raise InvalidInputError(f"a {rows}x{cols} label map needs {rows * cols} points, "
                                    f"the data have {n}")
        labels = np.full(n, -1, dtype=np.int64)
        if state is not None:
            shown = matched_state(state, self.dataset.y)[0] if self.dataset.y is not None else state
            labels = np.asarray(shown.labels, dtype=np.int64)
        return LabelMapPanel(labels.reshape(self.grid), self.title, self.info)


@dataclass
class FigureResult(ReproductionResult):
    """A result that also keeps the panels' runs for :meth:`Reproduction.render` (not in JSON)."""

    panels: list[PanelRecord] = field(default_factory=list, repr=False)
    figure_title: str = ""
    ncols: int = 5


def wrapped(notes: Sequence[str], width: int) -> str:
    """Notes wrapped to the figure's width (a longer line would widen the figure)."""
    return "\n".join(textwrap.fill(n, width) for n in notes)


def _drawing() -> tuple[Any, Any]:
    """(panels, curves) drawing functions: the app's canvas (:mod:`pairlab.render`), or matplotlib
    (:mod:`pairlab.mpl_curves`, same arguments) when asked for or when Qt is not installed
    (:func:`pairlab.figure_backend.drawing`)."""
    from pairlab.figure_backend import drawing

    if drawing().use_matplotlib():
        from pairlab.mpl_curves import draw_curves, draw_panels

        return draw_panels, draw_curves
    from pairlab.render import render_curves, render_panels

    return render_panels, render_curves


def _png_and_svg(draw: Any, panels: Sequence[Any], out_dir: Path, name: str,
                 **options: Any) -> list[Path]:
    """``draw`` to NAME.png (1.5x, for screens), NAME.svg and, with matplotlib, any other format
    of the current :func:`~pairlab.figure_backend.drawing`; the matplotlib Figure is recorded."""
    from pairlab.figure_backend import drawing, record

    formats = drawing().formats
    paths = [out_dir / f"{name}.{fmt}" for fmt in formats]
    if drawing().use_matplotlib():
        from pairlab.mpl import save_figure

        figure = record(draw(panels, None, **options))
        for path in paths:
            save_figure(figure, path, dpi=150 if path.suffix == ".png" else 100)
        return paths
    for path in paths:
        draw(panels, path, scale=1.5 if path.suffix == ".png" else 1.0, **options)
    return paths


def save_curves(panels: Sequence[Any], out_dir: Path, name: str, **options: Any) -> list[Path]:
    """Draw curve panels to NAME.png and NAME.svg; ``options`` (ncols, title, notes, panel_size)
    go to :func:`pairlab.render.render_curves`."""
    return _png_and_svg(_drawing()[1], panels, out_dir, name, **options)


def render_records(result: FigureResult, out_dir: Path, name: str,
                   panel_size: tuple[int, int] = (420, 400), legend: bool = True) -> list[Path]:
    """Draw the panels of ``result`` to NAME.png and NAME.svg with the canvas code of the app
    (``legend=False``: no link legend, for panels that draw no links)."""
    render_panels = _drawing()[0]
    panels = [r.panel() for r in result.panels]
    # wrap the notes to the figure's width: a longer line would widen the layout past the image
    width = max(60, int(result.ncols * panel_size[0] / 7.5))
    notes = wrapped(result.notes, width) or None
    return _png_and_svg(render_panels, panels, out_dir, name, ncols=result.ncols,
                        panel_size=panel_size, title=result.figure_title, legend=legend,
                        notes=notes)


def rate(values: Sequence[bool]) -> float:
    return float(np.mean(values)) if len(values) else math.nan


def describe_fraction(values: Sequence[bool]) -> str:
    return f"{int(np.sum(values))}/{len(values)} ({100 * rate(values):.0f}%)"
