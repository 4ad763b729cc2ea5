"""Active pair selection against random queries (issue 36; none of the five papers has it).

``active-iris``: PCK-means (Basu, Banerjee & Mooney 2004, the paper that proposes
Explore-Consolidate) on iris and wine, NMI after each answered query, for every registered query
strategy that needs no fitted model (random, explore-consolidate, minmax, npu), answers from the
true labels, refit after each query. The claim is the Explore-Consolidate paper's message, stated
as a rule fixed before the run: Explore-Consolidate's NMI minus random's, paired per trial (same
data, same fit seed), is above two standard errors at every query budget checked (10, 20 and 50
queries), per data set. Claims are extensions: the data sets are the ones the issue names, not
those of a pairlab paper.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from pairlab import hookimpl
from pairlab.reproduction import QUICK, Claim, Reproduction, ReproductionResult, paired_rule

from .common import make_dataset, save_curves, single_blas_thread, wrapped

__all__ = ["ActiveSelection"]

PAPER = "Basu, Banerjee & Mooney (2004), Active semi-supervision for pairwise constrained clustering"
STRATEGIES = ("random", "explore-consolidate", "minmax", "npu")
SETS = ("iris", "wine")
BUDGET, QUICK_BUDGET = 50, 20
CHECKED = (10, 20, 50)


class ActiveSelection(Reproduction):
    """NMI against the number of queries, per query strategy, with PCK-means."""

    name = "active-iris"
    title = "Active pair selection: NMI of PCK-means against the number of queries"
    paper = PAPER
    description = ("random, Explore-Consolidate, MinMax and NPU queries answered from the labels; "
                   "PCK-means refit after each answer on iris and wine (standardised).")
    default_trials = 20
    quick_trials = 2
    params = (QUICK,)

    def trial(self, index: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
        from pairlab.active import active_learn

        budget = QUICK_BUDGET if options.get("quick") else BUDGET
        out: dict[str, Any] = {"index": index, "seed": seed}
        fit_seed = int(np.random.default_rng(seed).integers(2**31))
        with single_blas_thread():
            for name in SETS:
                data = make_dataset(name, standardize=True)
                k = int(data.n_classes or 2)
                for strategy in STRATEGIES:
                    r = active_learn("pck-means", data, strategy, budget, params={"n_clusters": k},
                                     seed=fit_seed, metric="nmi")
                    by = dict(zip(r.n_queries, r.scores, strict=True))
                    out[f"{name}|{strategy}"] = [by[q] for q in range(budget + 1)]
        return out

    def summarize(self, trials: list[dict[str, Any]], options: dict[str, Any]) -> ReproductionResult:
        budget = QUICK_BUDGET if options.get("quick") else BUDGET
        data: dict[str, Any] = {"queries": list(range(budget + 1)), "sets": {}}
        curves: dict[str, dict[str, Any]] = {}
        for name in SETS:
            entry = {}
            for strategy in STRATEGIES:
                table = np.array([t[f"{name}|{strategy}"] for t in trials])  # (T, budget + 1)
                entry[strategy] = {"mean": table.mean(axis=0), "std": table.std(axis=0),
                                   "runs": table}
                curves[f"{name}_{strategy}"] = {"queries": data["queries"],
                                                "mean": table.mean(axis=0)}
            data["sets"][name] = entry
        notes = [f"{len(trials)} trial(s); each strategy answers from the true labels and PCK-means "
                 "(same fit seed for every strategy in a trial) is refit after each answer; NMI "
                 "against the classes. Data standardised."]
        return ReproductionResult(data, curves, notes)

    def claims(self, result: ReproductionResult) -> list[Claim]:
        out = []
        queries = result.data["queries"]
        budgets = [q for q in CHECKED if q < len(queries)]
        for name, entry in result.data["sets"].items():
            ec, rnd = np.asarray(entry["explore-consolidate"]["runs"]), np.asarray(
                entry["random"]["runs"])
            out.append(paired_rule(
                f"{name}_ec_beats_random", f"{name}: Explore-Consolidate's NMI exceeds random "
                f"queries' after {', '.join(map(str, budgets))} queries (PCK-means, paired)",
                [(ec[:, q] - rnd[:, q]).tolist() for q in budgets], labels=budgets,
                extension=True))
        return out

    def render(self, result: ReproductionResult, out_dir: Path) -> list[Path]:
        from pairlab.render import CurvePanel, CurveSeries

        x = np.asarray(result.data["queries"], dtype=float)
        panels = []
        for name, entry in result.data["sets"].items():
            series = []
            low = 1.0
            for slot, strategy in enumerate(STRATEGIES):
                mean, sd = np.asarray(entry[strategy]["mean"]), np.asarray(entry[strategy]["std"])
                low = min(low, float(np.clip(mean - sd, 0, 1).min()))
                series.append(CurveSeries(strategy, x, mean, np.clip(mean - sd, 0, 1),
                                          np.clip(mean + sd, 0, 1), colour=slot))
            panels.append(CurvePanel(name, series, "number of queries", "NMI (mean, band ± 1 s.d.)",
                                     y_range=(max(0.0, math.floor(low * 10) / 10), 1.0)))
        return save_curves(panels, out_dir, self.name, ncols=len(panels),
                           title=f"{self.title} — {len(result.data['sets'][SETS[0]]['random']['runs'])}"
                                 " trial(s)", notes=wrapped(result.notes, 2 * 620 // 8),
                           panel_size=(620, 420))


@hookimpl
def pairlab_reproductions() -> list[Reproduction]:
    return [ActiveSelection()]
