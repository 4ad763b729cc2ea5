"""Reproduction of Lu & Leen (PPC), Fig. 2: how the weight of the pairwise relations steers EM.

``ppc-fig2``: the two-class example of Fig. 1 with its 20 correctly labelled links and
do-not-links, fitted by a two-component PPC from the same poor starting model with uniform
weights ``w = 0`` (a standard GMM), ``1.3`` and ``3``; snapshots after 1, 3, 5 and 20 EM
iterations (a 3 x 4 grid). The paper: ``w = 0`` ends in the model that contradicts the relations,
``w = 1.3`` goes there too "although at a slower pace", ``w = 3`` converges to the intended model.
The algorithm is driven through :class:`pairlab.Run`; nothing here does algorithm maths.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from pairlab import Constraints, Dataset, hookimpl
from pairlab.metrics import purity
from pairlab.reproduce import Claim, Reproduction, ReproductionResult

from .reproductions_gmpr import (
    FigureResult,
    PanelRecord,
    fit,
    make_dataset,
    misassigned,
    render_records,
    single_blas_thread,
)

__all__ = ["PPCFig2"]

PAPER = "Lu & Leen (2007), Penalized probabilistic clustering, Neural Computation 19(6)"
WEIGHTS = (0.0, 1.3, 3.0)
SNAPSHOTS = (1, 3, 5, 20)
#: purity above which the fitted model is the intended one, below which it is the wrong one
INTENDED, WRONG = 0.9, 0.7


class PPCFig2(Reproduction):
    """PPC Fig. 2: the same poor start with relation weights w = 0, 1.3 and 3."""

    name = "ppc-fig2"
    title = "PPC Fig. 2: the weight of the pairwise relations, w = 0, 1.3, 3"
    paper = PAPER
    description = ("PPC from the same poor start with uniform relation weights w = 0, 1.3, 3; "
                   "snapshots after 1, 3, 5 and 20 EM iterations.")
    default_trials = 1
    quick_trials = 1
    dataset = "ppc-fig1"

    def setup(self) -> tuple[Dataset, Constraints, np.ndarray]:
        from pairlab_builtins import synthetic

        data = make_dataset(self.dataset)
        links, means = synthetic.ppc_fig1_relations(data)
        return data, links, np.asarray(means, dtype=float)

    def runs(self) -> tuple[Dataset, Constraints, np.ndarray, dict[float, Any]]:
        data, links, means = self.setup()
        runs = {}
        for w in WEIGHTS:
            params = {"n_components": 2, "means_init": means, "weighting": "uniform",
                      "must_link_weight": w, "cannot_link_weight": w, "max_iter": max(SNAPSHOTS),
                      "tol": 0.0}
            runs[w] = fit("ppc", data, links, params, 0)
        return data, links, means, runs

    def trial(self, index: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
        # deterministic: one fixed start, as in the paper; the trial records the trajectories
        with single_blas_thread():
            data, _links, _means, runs = self.runs()
        out: dict[str, Any] = {"index": index, "seed": seed}
        for w, run in runs.items():
            out[f"w={w:g}"] = {
                "purity": [purity(data.y, s.labels) for s in run.history],
                "misassigned": [misassigned(data.y, s.labels) for s in run.history],
                "objective": [s.objective for s in run.history],
                "iterations": run.n_iter,
            }
        return out

    def summarize(self, trials: list[dict[str, Any]], options: dict[str, Any]) -> FigureResult:
        with single_blas_thread():
            data, links, means, runs = self.runs()
        records = []
        for w, run in runs.items():
            for it in SNAPSHOTS:
                state = run.history[min(it, run.n_iter)]
                p = purity(data.y, state.labels)
                records.append(PanelRecord(f"w={w:g}_it{it}", f"w = {w:g}, after {it} iteration"
                                           + ("s" if it > 1 else ""), data, links, state=state,
                                           init_means=means, info=f"purity {p:.3f}"))
        traj = trials[0]
        final = {k: v["purity"][-1] for k, v in traj.items() if k.startswith("w=")}
        data_out = {
            "dataset": data.source,
            "weights": WEIGHTS,
            "snapshots": SNAPSHOTS,
            "init_means": means,
            "must_link": links.must_link,
            "cannot_link": links.cannot_link,
            "trajectories": {k: v for k, v in traj.items() if k.startswith("w=")},
            "final_purity": final,
            "snapshot_purity": {f"w={w:g}": [purity(data.y, run.history[min(i, run.n_iter)].labels)
                                             for i in SNAPSHOTS] for w, run in runs.items()},
            "figure": [r.describe() for r in records],
        }
        curves = {k: {"iteration": np.arange(len(v["purity"])), "purity": v["purity"],
                      "objective": v["objective"]}
                  for k, v in data_out["trajectories"].items()}
        notes = [f"Same start for every row (+: initial means); {links.n_must_link} links (solid), "
                 f"{links.n_cannot_link} do-not-links (dashed); ellipses: 1 and 2 s.d. of each "
                 "component; purity against the true classes."]
        return FigureResult(data_out, curves, notes, panels=records, ncols=len(SNAPSHOTS),
                            figure_title="PPC Fig. 2 — rows: w = 0, 1.3, 3; "
                                         "columns: after 1, 3, 5, 20 EM iterations")

    def claims(self, result: ReproductionResult) -> list[Claim]:
        final = result.data["final_purity"]
        traj = result.data["trajectories"]

        def pace(key: str) -> int:
            """The first iteration from which the labels stay those of the final model."""
            p = np.asarray(traj[key]["misassigned"])
            changed = np.flatnonzero(p != p[-1])
            return int(changed[-1] + 1) if changed.size else 0

        p0, p13 = pace("w=0"), pace("w=1.3")
        return [
            Claim("w0_wrong", f"w = 0 (standard GMM) ends in the model that violates the relations "
                  f"(purity < {WRONG})", final["w=0"], final["w=0"] < WRONG),
            Claim("w1.3_wrong", f"w = 1.3 still ends in the wrong model (purity < {WRONG})",
                  final["w=1.3"], final["w=1.3"] < WRONG),
            Claim("w1.3_slower", "w = 1.3 gets there at a slower pace than w = 0 (iteration from "
                  "which the labels stop changing: w = 1.3 vs w = 0)", [p13, p0], p13 > p0),
            Claim("w3_intended", f"w = 3 converges to the intended model (purity > {INTENDED})",
                  final["w=3"], final["w=3"] > INTENDED),
        ]

    def render(self, result: ReproductionResult, out_dir: Path) -> list[Path]:
        assert isinstance(result, FigureResult)
        return render_records(result, out_dir, self.name, panel_size=(380, 360))


@hookimpl
def pairlab_reproductions() -> list[Reproduction]:
    return [PPCFig2()]
