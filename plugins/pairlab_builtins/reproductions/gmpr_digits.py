"""Reproduction of Yu, Elhabian & Whitaker (GM-PR), Fig. 5: digits 1, 2, 3 and digits 4, 5, 6, 7
visualised by the first two principal components, coloured by class (section 4.2.1).

``fig5`` draws the two data sets that ``fig4``, ``fig6``, ``fig7`` and ``fig10`` cluster:
scikit-learn's bundled 8x8 digits stand in for MNIST (not downloadable here), projected by PCA as
the paper does. The figure is a picture of the data; the paper's remarks on it ("digit 1 clearly
lay on a moon-like structure", "hardly any manifold structure for digits 4, 5, 6, and 7") are
visual, so the recipe states no claims and records the projected points in its JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from pairlab import hookimpl
from pairlab.reproduction import QUICK, Claim, Reproduction, ReproductionResult

from .common import FigureResult, PanelRecord, make_dataset, render_records, truth_state

__all__ = ["GMPRDigits"]

PAPER = ("Yu, Elhabian & Whitaker (2016), Clustering with pairwise relationships: a generative "
         "approach")
SUBSETS = (("digits123", "(a) digits 1, 2, 3", (1, 2, 3)),
           ("digits4567", "(b) digits 4, 5, 6, 7", (4, 5, 6, 7)))


class GMPRDigits(Reproduction):
    """GM-PR Fig. 5: the two digits subsets in their first two principal components."""

    name = "fig5"
    title = "GM-PR Fig. 5: digits 1-3 and 4-7 by their first two principal components"
    paper = PAPER
    description = ("Scikit-learn's 8x8 digits (standing in for MNIST) {1,2,3} and {4,5,6,7}, "
                   "first two principal components, coloured by class.")
    default_trials = 1
    quick_trials = 1
    params = (QUICK,)

    def trial(self, index: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
        # deterministic: the data and the PCA do not depend on the seed
        out: dict[str, Any] = {"index": index}
        for key, _title, classes in SUBSETS:
            data = make_dataset("digits", classes=",".join(map(str, classes)), pca=True)
            out[key] = {"n": int(data.n_samples),
                        "per_class": {str(c): int(np.sum(data.y == i))
                                      for i, c in enumerate(classes)}}
        return out

    def summarize(self, trials: list[dict[str, Any]], options: dict[str, Any]) -> FigureResult:
        records = []
        for key, title, classes in SUBSETS:
            data = make_dataset("digits", classes=",".join(map(str, classes)), pca=True)
            records.append(PanelRecord(key, title, data, None, state=truth_state(data.y),
                                       info=f"{data.n_samples} points, {len(classes)} classes"))
        notes = ["Scikit-learn's bundled 8x8 digits stand in for MNIST (not downloadable here); "
                 "first two principal components of each subset, colour = class."]
        data_out = {"subsets": {k: t for k, t in trials[0].items() if k != "index"},
                    "figure": [r.describe() | {"X": r.dataset.X} for r in records]}
        return FigureResult(data_out, {}, notes, panels=records, ncols=2,
                            figure_title="GM-PR Fig. 5 — digits by their first two principal "
                                         "components")

    def claims(self, result: ReproductionResult) -> list[Claim]:
        return []  # the paper's remarks on this figure are visual (see the module docstring)

    def render(self, result: ReproductionResult, out_dir: Path) -> list[Path]:
        assert isinstance(result, FigureResult)
        return render_records(result, out_dir, self.name, panel_size=(480, 440), legend=False)


@hookimpl
def pairlab_reproductions() -> list[Reproduction]:
    return [GMPRDigits()]
