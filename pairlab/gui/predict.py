"""The "predict the next label" game: a student clicks a point, then the cluster they think it
will be in after the next (half-)step; stepping tells right or wrong and the status bar keeps the
score."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6 import QtWidgets

from ..draw.geometry import nearest_point
from .controller import Controller

if TYPE_CHECKING:
    from .app import MainWindow

__all__ = ["Guess", "PredictGame"]


@dataclass(frozen=True)
class Guess:
    """Point ``point`` of pane ``pane`` will have label ``cluster`` after the position
    ``at`` = (iteration, on a half-step) of that pane's run."""

    pane: int
    point: int
    cluster: int
    at: tuple[int, bool]


class PredictGame(Controller):
    """Run > Predict the next label (Shift+P): clicks on the panes make guesses; each step after
    a guess judges it."""

    HIT_RADIUS = 12.0

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.active = False
        self.target: tuple[int, int] | None = None  # (pane, point) picked, cluster not yet
        self.guess: Guess | None = None
        self.right = 0
        self.total = 0
        self.act_predict = self.action("Predict the next label", self.toggle, "Shift+P",
                                       checkable=True, tip="Click a point, then the cluster it "
                                       "will join after the next step; step to see")
        self.score_label = QtWidgets.QLabel()
        self.score_label.hide()

    def toggle(self, *args: Any, on: bool | None = None) -> None:
        self.active = self.act_predict.isChecked() if on is None else bool(on)
        self.act_predict.setChecked(self.active)
        self.target = self.guess = None
        self.score_label.setVisible(self.active)
        self._show_score()
        self.window.status.showMessage(
            "Predict: click a point, then the cluster you think it will be in after the next "
            "step." if self.active else "Prediction mode off.", 8000)
        self.window.editing.selected_point = None
        self.window.refresh()

    def _show_score(self) -> None:
        self.score_label.setText(f"Predictions: {self.right}/{self.total} right")

    def position(self, pane: int) -> tuple[int, bool] | None:
        run = self.lab.panes[pane].run
        return None if run is None else (run.index, bool(run.on_half))

    def canvas_clicked(self, view: Any, x: float, y: float, px: float, py: float,
                       modifiers: Any = None) -> None:
        """A click on ``view``'s canvas while the game is on: pick the point, then the cluster
        (a point of it, or its mean ×)."""
        if not self.active or self.lab.dataset is None:
            return
        pane = self.window.presentation.pane_views.index(view)
        state = self.lab.state(self.lab.panes[pane])
        status = self.window.status
        if state is None:
            status.showMessage("This pane has no run yet.", 3000)
            return
        if self.target is None or self.target[0] != pane:
            i = self.lab.point_at(x, y, px, py, self.HIT_RADIUS)
            if i is None:
                status.showMessage("Click closer to a point.", 3000)
                return
            self.target, self.guess = (pane, i), None
            self.window.editing.selected_point = i
            status.showMessage(f"Point {i} (now in cluster {int(state.labels[i])}): click the "
                               "cluster it will be in after the next step (one of its points, "
                               "or its mean ×).")
            self.window.refresh()
            return
        means = view.frame.means if view.frame is not None else None
        k = None if means is None else nearest_point(means, x, y, px, py, self.HIT_RADIUS)
        if k is None:
            j = self.lab.point_at(x, y, px, py, self.HIT_RADIUS)
            if j is None:
                status.showMessage("Click a point of the cluster, or its mean ×.", 3000)
                return
            k = int(state.labels[j])
        self.make_guess(pane, self.target[1], int(k))

    def make_guess(self, pane: int, point: int, cluster: int) -> Guess:
        """Record that ``point`` of ``pane`` will have label ``cluster`` after the next step."""
        at = self.position(pane)
        if at is None:
            raise ValueError("the pane has no run")
        self.guess = Guess(pane, int(point), int(cluster), at)
        self.target = None
        self.window.status.showMessage(
            f"Your guess: point {point} → cluster {cluster}. Step (→, or Shift+→ for a "
            "half-step) to see.")
        return self.guess

    def check(self) -> None:
        """After a refresh: judge the pending guess once its pane reached a whole iteration
        after the position where it was made."""
        g = self.guess
        if not self.active or g is None or g.pane >= len(self.lab.panes):
            return
        now = self.position(g.pane)
        if now is None or now <= g.at or now[1]:  # a first half (M-step, new centres) does not
            return                                # assign labels: the whole iteration judges
        state = self.lab.state(self.lab.panes[g.pane])
        assert state is not None
        label = int(state.labels[g.point])
        self.total += 1
        self.guess = None
        if label == g.cluster:
            self.right += 1
            text = f"Right! Point {g.point} is in cluster {label}."
        else:
            text = f"Wrong: point {g.point} is in cluster {label}, not {g.cluster}."
        self._show_score()
        self.window.status.showMessage(f"{text} Click another point to play on.", 10000)
