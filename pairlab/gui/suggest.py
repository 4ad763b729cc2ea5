"""Ask ▸ Suggest a pair (Q): a query strategy proposes which pair to ask about next (issue 36).

The strategy (any registered one, :mod:`pairlab.query`; chosen in Ask ▸ Strategy) proposes a pair
from the data, the links drawn so far and the first pane's current state; both points are ringed
in every pane and the explanation panel says why (the strategy's reason and, where the pane has
label posteriors, both points' posteriors, P(same cluster) and the answer's information gain,
computed by :mod:`pairlab.query`). The instructor answers must-link (Shift+M) or cannot-link
(Shift+C): the link is added like a drawn one, so Ctrl+Z undoes it (M and C already pick the link
tools). No maths here: everything comes from the strategy and :mod:`pairlab.query`.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6 import QtGui, QtWidgets

from ..errors import PairlabError
from ..query import binary_entropy, pair_same_probability
from .controller import Controller, html_escape

if TYPE_CHECKING:
    from .app import MainWindow

__all__ = ["SuggestPair"]

KEYS = {"suggest": "Q", "must": "Shift+M", "cannot": "Shift+C"}


class SuggestPair(Controller):
    """The Ask menu: suggest a pair with the chosen strategy, answer it with a key."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.strategy_name: str | None = None  # None: uncertainty with posteriors, else minmax
        self.strategy: Any = None
        self._for: tuple[Any, str] | None = None  # (data set, strategy name) the instance serves
        self.told: list[tuple[tuple[int, int], bool]] = []
        self.pair: tuple[int, int] | None = None
        self.reason: list[str] = []
        A = self.action
        self.act_suggest = A("Suggest a pair", self.suggest, KEYS["suggest"],
                             tip="Ask the query strategy which pair to ask about next")
        self.act_must = A("Answer: must-link", partial(self.answer, True), KEYS["must"],
                          tip="The suggested points belong together")
        self.act_cannot = A("Answer: cannot-link", partial(self.answer, False), KEYS["cannot"],
                            tip="The suggested points belong apart")
        self.strategy_menu = QtWidgets.QMenu("Strategy", window)
        group = QtGui.QActionGroup(self)
        for name in ["auto", *self.lab.registry.names("query_strategies")]:
            act = QtGui.QAction(name, self.strategy_menu, checkable=True)
            act.setChecked(name == "auto")
            act.triggered.connect(partial(self.set_strategy, None if name == "auto" else name))
            group.addAction(act)
            self.strategy_menu.addAction(act)
        window.presentation.draw = self._wrap(window.presentation.draw, self._ring)
        window.explanation.update = self._wrap(window.explanation.update, self._explain)
        self._install_menu()
        self.update()

    @staticmethod
    def _wrap(fn: Any, after: Any) -> Any:
        """``fn`` then ``after``: the rings and the reason survive the window's redraws."""
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            out = fn(*args, **kwargs)
            after()
            return out
        return wrapped

    def _install_menu(self) -> None:
        bar = self.window.menuBar()
        menu = QtWidgets.QMenu("&Ask", self.window)
        for action in (self.act_suggest, self.act_must, self.act_cannot):
            menu.addAction(action)
        menu.addSeparator()
        menu.addMenu(self.strategy_menu)
        help_menu = next((a for a in bar.actions() if a.text() == "&Help"), None)
        bar.insertMenu(help_menu, menu) if help_menu is not None else bar.addMenu(menu)
        self.menu = menu

    def set_strategy(self, name: str | None) -> None:
        self.strategy_name = name
        self.clear()

    def update(self) -> None:
        has = self.pair is not None
        self.act_must.setEnabled(has)
        self.act_cannot.setEnabled(has)

    # -- the strategy -------------------------------------------------------------------------
    def _state(self) -> Any:
        lab = self.lab
        return lab.state(lab.panes[0]) if lab.panes else None

    def _name(self) -> str:
        if self.strategy_name is not None:
            return self.strategy_name
        state = self._state()
        return "uncertainty" if state is not None and state.responsibilities is not None else "minmax"

    def _n_clusters(self) -> int:
        lab = self.lab
        for pane in lab.panes:
            params = lab.run_params(pane)
            for key in ("n_clusters", "n_components"):
                if isinstance(params.get(key), int):
                    return int(params[key])
        return int(lab.n_classes or 2)

    def _instance(self, name: str) -> Any:
        """The strategy for this data set, rebuilt (answers replayed) if a told link is gone."""
        lab = self.lab
        base = lab.base
        kept = [(p, a) for p, a in self.told
                if p in {tuple(sorted(q)) for q in (base.must_link if a else base.cannot_link).tolist()}]
        if self._for != (lab.dataset, name) or kept != self.told:
            cls = lab.registry.query_strategy(name)
            self.strategy = cls(lab.dataset, self._n_clusters(), {},
                                np.random.default_rng([lab.seed, 36]))
            self._for = (lab.dataset, name)
            self.told = []
            for pair, answer in kept:
                self.strategy.tell(pair, answer)
                self.told.append((pair, answer))
        return self.strategy

    def suggest(self) -> None:
        """Q: ask the strategy for the next pair, ring it, explain it."""
        w = self.window
        if self.lab.dataset is None or w.executor.busy:
            w.status.showMessage("Wait for the panes to finish, then press Q again.", 4000)
            return
        name = self._name()
        try:
            strategy = self._instance(name)
            state = self._state() if strategy.uses_model else None
            if strategy.uses_model and state is None:
                raise PairlabError(f"query strategy {name!r} needs a fitted pane: press Space first")
            i, j = (int(v) for v in strategy.propose(self.lab.base, state)[0])
        except PairlabError as exc:
            w.banner.show_message(html_escape(str(exc)), source="edit")
            return
        self.pair = (min(i, j), max(i, j))
        self.reason = self._reason(name, strategy.reason)
        w.editing.selected_point = self.pair[0]  # the panel explains the first point too
        self.update()
        w.status.showMessage(f"{name} asks: points {i} and {j}. Shift+M must-link, Shift+C "
                             "cannot-link.", 10000)
        w.refresh()

    def _reason(self, name: str, said: str) -> list[str]:
        lines = [f"Strategy {name}: {said}"]
        state = self._state()
        resp = None if state is None else state.responsibilities
        if resp is None or self.pair is None:
            return lines
        i, j = self.pair
        q = np.asarray(resp, dtype=float)
        p = float(pair_same_probability(q, np.array([i]), np.array([j]))[0])
        gain = float(binary_entropy(np.array([p]))[0])
        for k in (i, j):
            lines.append(f"point {k}: posterior " + ", ".join(f"{v:.2f}" for v in q[k]))
        lines.append(f"P(same cluster) = {p:.3f}; information gain of the answer "
                     f"H = {gain:.3f} nats (the most a yes/no answer gives is ln 2 = 0.693)")
        return lines

    def answer(self, must: bool) -> None:
        """Shift+M / Shift+C: add the suggested pair as a link (undoable) and tell the strategy."""
        w = self.window
        if self.pair is None:
            w.status.showMessage("Press Q for a suggested pair first.", 4000)
            return
        pair, kind = self.pair, "must" if must else "cannot"
        if w.guard(self.lab.add_link, kind, *pair) is w.ERROR:
            return
        if self.strategy is not None:
            self.strategy.tell(pair, must)
            self.told.append((pair, must))
        self.clear(refresh=False)
        w.status.showMessage(f"Added a {kind}-link between points {pair[0]} and {pair[1]} "
                             "(Ctrl+Z undoes it); Q suggests the next pair.", 6000)
        w.setup_changed()

    def clear(self, refresh: bool = True) -> None:
        self.pair, self.reason = None, []
        self.update()
        if refresh and self.lab.dataset is not None:
            self.window.refresh()

    # -- drawing ------------------------------------------------------------------------------
    def _ring(self) -> None:
        lab = self.lab
        if self.pair is None or lab.dataset is None or max(self.pair) >= lab.dataset.n_samples:
            return
        for view in self.window.presentation.pane_views:
            view.canvas.layers.set_selection(lab.dataset.view[list(self.pair)])

    def _explain(self) -> None:
        panel = self.window.explanation
        if self.pair is None or not panel.dock.isVisible():
            return
        box = QtWidgets.QGroupBox(f"Suggested pair {self.pair[0]} and {self.pair[1]}")
        lay = QtWidgets.QVBoxLayout(box)
        for line in [*self.reason, "Answer: Shift+M must-link, Shift+C cannot-link."]:
            label = QtWidgets.QLabel(line)
            label.setWordWrap(True)
            label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                QtWidgets.QSizePolicy.Policy.MinimumExpanding)
            lay.addWidget(label)
        panel.column.insertWidget(1, box)  # on top; removed with the panes' boxes on update
        panel.boxes.append(box)
