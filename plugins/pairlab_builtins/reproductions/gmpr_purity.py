"""Reproductions of Yu, Elhabian & Whitaker (GM-PR), section 4: the purity curves of Figs. 4, 6
and 7 and the class they share with Figs. 9 and 10 (:mod:`.gmpr_mixture_figs`).

Every recipe drives the registered algorithms through :class:`pairlab.Run` (seeded); nothing here
does algorithm maths. The toy figures (3 and 8) are in :mod:`.gmpr`.

* ``fig6`` / ``fig7`` — purity against the number of must-links / cannot-links, GM-PR against
  constrained EM (the paper's GMM-EC, Shental et al.) and, in Fig. 7, EM-PC (Graca et al.), on
  scikit-learn's digits (standing in for MNIST) and on the UCI files found in ``--data-dir``;
  ``fig4`` the same with random pairs typed by the labels (both kinds of link together).
Figs. 9 and 10 (GM-PR with a mixture per class) are in :mod:`.gmpr_mixture_figs`.
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from pairlab import Constraints, Dataset, hookimpl
from pairlab.links import random_pairs, random_pairs_count
from pairlab.metrics import purity
from pairlab.registry import get_registry
from pairlab.reproduction import (
    DATA_DIR,
    QUICK,
    Claim,
    Reproduction,
    ReproductionError,
    ReproductionResult,
)

from .common import (
    describe_fraction,
    fit,
    make_dataset,
    rate,
    save_curves,
    single_blas_thread,
    wrapped,
)
from .gmpr import PAPER

__all__ = ["Fig4", "Fig6", "Fig7", "PurityVsLinks", "load_link_set", "with_classes"]

# -- Figs. 6 and 7 -----------------------------------------------------------------------------
@dataclass(frozen=True)
class LinkSet:
    """One data set of Figs. 6 / 7: how to load it and what the paper calls it."""

    key: str
    title: str
    source: str  # "digits", "coil20" or a UCI file name looked up in --data-dir
    classes: tuple[int, ...] = ()
    dims: int = 0  # coil20: principal components kept (0 = the pixels)


LINK_SETS: tuple[LinkSet, ...] = (
    LinkSet("haberman", "(a) Haberman", "haberman"),
    LinkSet("thyroid", "(b) Thyroid", "thyroid"),
    LinkSet("digits123", "(c) digits 1, 2, 3 (2 PCs)", "digits", (1, 2, 3)),
    LinkSet("digits4567", "(d) digits 4, 5, 6, 7 (2 PCs)", "digits", (4, 5, 6, 7)),
)
#: file names tried in --data-dir, with the column that holds the class (0-based, -1 = last)
UCI_FILES: dict[str, tuple[tuple[str, int], ...]] = {
    "haberman": (("haberman.data", -1), ("haberman.csv", -1)),
    "thyroid": (("thyroid.data", 0), ("thyroid.csv", 0), ("new-thyroid.data", 0)),
}
#: section 4.2.2: (instances, attributes, classes) of the UCI sets the paper uses
PAPER_SIZES = {"haberman": (306, 3, 2), "thyroid": (215, 5, 2)}
COUNTS_FULL = (0, 16, 32, 64, 128, 256)  # powers of two: the paper discusses "more than 64" links
COUNTS_QUICK = (0, 32, 128)
FIG67_METHODS: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    ("gmpr", "GM-PR", "gmpr", {}),
    ("gmm_ec", "GMM-EC (constrained EM)", "constrained-em", {}),
)
#: Fig. 7 adds EM-PC (Graca, Ganchev & Taskar 2007), which uses cannot-links only
FIG7_METHODS = (*FIG67_METHODS, ("em_pc", "EM-PC (posterior constraints)", "em-pc", {}))
MNIST_NOTE = ("MNIST cannot be downloaded here: scikit-learn's bundled 8x8 digits stand in for it "
              "(classes {1,2,3} and {4,5,6,7}, first two principal components, as the paper does "
              "with MNIST's test set).")


def load_link_set(spec: LinkSet, data_dir: str | None) -> Dataset | str:
    """The data set, or a message saying why it is skipped."""
    if spec.source == "coil20":
        return load_coil20_set(spec.dims, data_dir)
    if spec.source == "digits":
        try:
            return make_dataset("digits", classes=",".join(map(str, spec.classes)), pca=True)
        except Exception as exc:  # a missing plugin or scikit-learn: skip with the reason
            return f"skipped: {exc}"
    if not data_dir:
        names = " or ".join(f for f, _ in UCI_FILES[spec.source])
        return f"skipped: no --data-dir given (looked for {names})"
    for fname, label_column in UCI_FILES[spec.source]:
        path = Path(data_dir) / fname
        if path.is_file():
            data = make_dataset("csv", path=str(path), label=str(label_column))
            if spec.source == "thyroid" and data.n_classes == 3:
                # UCI new-thyroid has 3 classes (normal, hyper, hypo); the paper's Thyroid
                # (Raetsch's benchmark) is binary: normal against the rest.
                y = (data.y != np.unique(data.y)[0]).astype(np.int64)
                data = Dataset(data.X, y, name=data.name, feature_names=data.feature_names,
                               source={**data.source, "binary": "normal vs rest"})
            return data
    names = " or ".join(f for f, _ in UCI_FILES[spec.source])
    return f"skipped: {names} not found in {data_dir}"


def with_classes(algorithm: str, k: int, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` plus the number of classes under the name ``algorithm`` declares for it
    (``n_components`` for the mixtures, ``n_clusters`` for SSKK, CSC and the k-means family)."""
    names = {p.name for p in get_registry().algorithm(algorithm).params}
    return {("n_components" if "n_components" in names else "n_clusters"): k, **params}


def load_coil20_set(dims: int, data_dir: str | None) -> Dataset | str:
    """COIL-20 from ``--data-dir`` at 32 x 32 pixels projected to ``dims`` principal components,
    or the message saying why it is skipped (what to put where)."""
    from pairlab_builtins.datasets.coil20 import COIL20_HELP, find_coil20

    path = find_coil20(data_dir) if data_dir else None
    if path is None:
        where = f"in {data_dir}" if data_dir else "(no --data-dir given)"
        return (f"skipped: COIL-20 not found {where}; put {COIL20_HELP} in --data-dir (COIL-20 is "
                "not shipped: download coil-20-proc.zip from Columbia's CAVE lab)")
    return make_dataset("coil20", path=str(path), size=32, dims=dims)


class PurityVsLinks(Reproduction):
    """Purity of GM-PR and constrained EM against the number of one kind of link."""

    kind: ClassVar[str] = "must"  # "must", "cannot" or "both" (random pairs typed by the labels)
    sets: ClassVar[tuple[LinkSet, ...]] = LINK_SETS
    methods: ClassVar[tuple[tuple[str, str, str, dict[str, Any]], ...]] = FIG67_METHODS
    paper = PAPER
    default_trials = 100
    quick_trials = 2

    @property
    def what(self) -> str:
        return {"must": "must-links", "cannot": "cannot-links"}.get(self.kind, "links")

    def draw_links(self, y: np.ndarray, count: int, rng: np.random.Generator) -> Constraints:
        if self.kind == "both":  # uniform pairs, must-link when the labels agree (Figs. 4, 10)
            return random_pairs_count(y, count, rng)
        ml, cl = (count, 0) if self.kind == "must" else (0, count)
        return random_pairs(y, ml, cl, rng)

    params = (DATA_DIR, QUICK)

    def expand(self, values: dict[str, Any]) -> dict[str, Any]:
        return {**values, "counts": list(COUNTS_QUICK if values["quick"] else COUNTS_FULL)}

    def notes(self) -> list[str]:
        """The notes every run of the figure carries (data conventions, what the bands are)."""
        notes = [MNIST_NOTE, "Lines: mean purity over the trials; bands: mean ± 1 s.d., clipped to "
                             "[0, 1]. Every method gets the same links and the same start in a trial."]
        return notes

    def trial(self, index: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
        counts = options.get("counts") or list(COUNTS_FULL)
        rng = np.random.default_rng(seed)
        out: dict[str, Any] = {"index": index, "seed": seed}
        with single_blas_thread():
            for spec in self.sets:
                data = load_link_set(spec, options.get("data_dir"))
                if isinstance(data, str):
                    continue
                k = int(data.n_classes or 2)
                rows = []
                for count in counts:
                    links = self.draw_links(data.y, count, rng)
                    fit_seed = int(rng.integers(2**31))
                    row: dict[str, Any] = {"count": count, "fit_seed": fit_seed}
                    for key, _t, algorithm, params in self.methods:
                        with warnings.catch_warnings(record=True) as caught:
                            warnings.simplefilter("always")
                            run = fit(algorithm, data, links, with_classes(algorithm, k, params),
                                      fit_seed)
                        row[key] = purity(data.y, run.state.labels)
                        row[f"{key}_iterations"] = run.n_iter
                        row[f"{key}_labels_crc"] = zlib.crc32(run.state.labels.tobytes())
                        if caught:  # e.g. constrained EM approximating large loopy components
                            row[f"{key}_warnings"] = sorted({str(w.message) for w in caught})
                    rows.append(row)
                out[spec.key] = rows
        return out

    def summarize(self, trials: list[dict[str, Any]], options: dict[str, Any]) -> ReproductionResult:
        counts = list(options.get("counts") or COUNTS_FULL)
        sets: dict[str, Any] = {}
        curves: dict[str, dict[str, Sequence[float]]] = {}
        notes = self.notes()
        for spec in self.sets:
            with single_blas_thread():  # a PCA: BLAS threads cost seconds on a busy machine
                loaded = load_link_set(spec, options.get("data_dir"))
            if isinstance(loaded, str):
                sets[spec.key] = {"title": spec.title, "skipped": loaded}
                notes.append(f"{spec.title}: {loaded}")
                continue
            entry: dict[str, Any] = {"title": spec.title, "n_samples": loaded.n_samples,
                                     "n_features": loaded.n_features,
                                     "n_classes": loaded.n_classes, "source": loaded.source,
                                     "counts": counts}
            same = []
            for key, _t, _a, _p in self.methods:
                table = np.array([[row[key] for row in t[spec.key]] for t in trials])  # (T, C)
                entry[key] = {"mean": table.mean(axis=0), "std": table.std(axis=0),
                              "min": table.min(axis=0), "max": table.max(axis=0),
                              "runs_with_warnings": sum(f"{key}_warnings" in row for t in trials
                                                        for row in t[spec.key])}
                curves[f"{spec.key}_{key}"] = {"count": counts, "mean": table.mean(axis=0),
                                               "std": table.std(axis=0)}
            sets[spec.key] = entry
            if not {"gmpr", "gmm_ec"} <= {m[0] for m in self.methods}:
                continue
            for t in trials:
                same += [row["gmpr_labels_crc"] == row["gmm_ec_labels_crc"] for row in t[spec.key]]
            diff = np.array([[row["gmpr"] - row["gmm_ec"] for row in t[spec.key]] for t in trials])
            entry["identical_labels_rate"] = rate(same)
            entry["max_abs_purity_difference"] = float(np.abs(diff).max())
            notes.append(f"{spec.title}: GM-PR and GMM-EC (same links, same start) give identical "
                         f"labels in {describe_fraction(same)} of the paired runs; largest purity "
                         f"difference {entry['max_abs_purity_difference']:.3g}.")
        if not curves:
            raise ReproductionError(
                f"{self.name}: none of its data sets could be loaded ("
                + "; ".join(f"{e['title']}: {e['skipped']}" for e in sets.values())
                + "). Install scikit-learn for the digits, or give --data-dir with the UCI files.")
        return ReproductionResult({"link_kind": self.kind, "counts": counts, "sets": sets,
                                   "trials": trials}, curves, notes)

    def claims(self, result: ReproductionResult) -> list[Claim]:
        what = self.what
        claims = []
        for spec in self.sets:
            entry = result.data["sets"][spec.key]
            if "skipped" in entry:
                continue
            if spec.key in PAPER_SIZES:  # the UCI files of --data-dir against sec. 4.2.2
                size = [entry["n_samples"], entry["n_features"], entry["n_classes"]]
                claims.append(Claim(
                    f"{spec.key}_size", f"{spec.title}: section 4.2.2's size of the data set "
                    "(instances, attributes, classes) is that of the file read", size,
                    size == list(PAPER_SIZES[spec.key]), paper=list(PAPER_SIZES[spec.key])))
            counts = np.asarray(entry["counts"])
            g, e = entry["gmpr"], entry["gmm_ec"]
            pos = counts > 0
            gap = np.asarray(g["mean"])[pos] - np.asarray(e["mean"])[pos]
            claims.append(Claim(
                f"{spec.key}_outperforms", f"{spec.title}: GM-PR's mean purity exceeds GMM-EC's at "
                f"every number of {what} > 0 (smallest gap measured)", float(gap.min()),
                bool((gap > 0).all())))
            sd_gap = np.asarray(e["std"])[pos] - np.asarray(g["std"])[pos]
            claims.append(Claim(
                f"{spec.key}_lower_variance", f"{spec.title}: GM-PR's purity varies less over the "
                f"trials than GMM-EC's at every number of {what} > 0 (smallest std difference)",
                float(sd_gap.min()), bool((sd_gap > 0).all())))
            m = np.asarray(g["mean"])
            claims.append(Claim(
                f"{spec.key}_improves", f"{spec.title}: GM-PR with {what} only does better than "
                f"without links (mean purity at {int(counts[-1])} {what} vs 0)",
                [float(m[-1]), float(m[0])], bool(m[-1] > m[0])))
        if any(m[0] == "em_pc" for m in self.methods):
            claims += self._em_pc_claims(result)
        return claims

    def _em_pc_claims(self, result: ReproductionResult) -> list[Claim]:
        """Fig. 7's two statements on EM-PC (section 4.2): GM-PR "is always greater than or
        comparable to EM-PC", and "the performance of EM-PC decreases when the number of classes
        increases".

        Rules, fixed before any run: *comparable or greater* holds when at every count > 0 the
        paired difference GM-PR - EM-PC (same links, same start) is not below minus two standard
        errors of its mean over the trials; *decreases with the classes* is read as EM-PC's
        shortfall from GM-PR (mean over the counts > 0) being larger on the four-class set than on
        the three-class one by more than two standard errors of the difference of the two means
        (the two digit sets: the UCI sets are binary and usually absent).
        """
        claims = []
        shortfall = {}
        for spec in self.sets:
            entry = result.data["sets"][spec.key]
            if "skipped" in entry:
                continue
            counts = np.asarray(entry["counts"])
            pos = np.flatnonzero(counts > 0)
            diff = np.array([[row["gmpr"] - row["em_pc"] for row in t[spec.key]]
                             for t in result.data["trials"]])[:, pos]           # (T, C>0)
            mean = diff.mean(axis=0)
            se = (diff.std(axis=0, ddof=1) / np.sqrt(diff.shape[0]) if diff.shape[0] > 1
                  else np.full(mean.shape, np.inf))
            lowest = mean + 2 * se
            claims.append(Claim(
                f"{spec.key}_gmpr_vs_empc", f"{spec.title}: GM-PR's purity is greater than or "
                "comparable to EM-PC's at every number of cannot-links > 0 (paired difference "
                "not below -2 standard errors; measured: the lowest mean + 2 SE)",
                float(lowest.min()), bool((lowest >= 0).all())))
            per_trial = diff.mean(axis=1)
            se_mean = (per_trial.std(ddof=1) / np.sqrt(per_trial.size) if per_trial.size > 1
                       else np.inf)
            shortfall[spec.key] = (int(entry["n_classes"] or 0), float(per_trial.mean()), se_mean)
        digits = [shortfall[k] for k in ("digits123", "digits4567") if k in shortfall]
        if len(digits) == 2:
            (k3, s3, se3), (k4, s4, se4) = digits
            margin = 2 * math.hypot(se3, se4)
            claims.append(Claim(
                "empc_worse_with_more_classes", f"EM-PC falls further behind GM-PR with more "
                f"classes: mean shortfall on digits 4-7 ({k4} classes) above digits 1-3 ({k3}) by "
                "more than 2 standard errors of the difference (measured: the two shortfalls and "
                "the margin)", [s4, s3, margin], bool(s4 - s3 > margin)))
        return claims

    def render(self, result: ReproductionResult, out_dir: Path) -> list[Path]:
        from pairlab.render import CurvePanel, CurveSeries

        what = self.what
        panels = []
        for spec in self.sets:
            entry = result.data["sets"][spec.key]
            if "skipped" in entry:
                panels.append(CurvePanel(spec.title, message=entry["skipped"].replace(": ", ":\n", 1)))
                continue
            x = np.asarray(entry["counts"], dtype=float)
            series = []
            low = 1.0
            for slot, (key, label, _a, _p) in enumerate(self.methods):
                mean, sd = np.asarray(entry[key]["mean"]), np.asarray(entry[key]["std"])
                low = min(low, float(np.clip(mean - sd, 0.0, 1.0).min()))
                # the first method is drawn wide so that an identical second one leaves it
                # visible; a third (EM-PC in Fig. 7) goes underneath both, so that where it
                # equals them it hides neither
                lo, hi = np.clip(mean - sd, 0.0, 1.0), np.clip(mean + sd, 0.0, 1.0)
                curve = CurveSeries(label, x, mean, lo, hi, colour=slot, dashed=slot == 1,
                                    weight=1.9 if slot == 0 else 1.0)
                series.insert(0 if slot >= 2 else len(series), curve)
            panels.append(CurvePanel(spec.title, series, f"number of {what}",
                                     "purity (mean, band ± 1 s.d.)",
                                     y_range=(max(0.0, math.floor(low * 10) / 10), 1.0)))
        n = len(result.data["trials"])
        title = (f"{self.title} — {n} trials (random links and k-means++ starts)")
        # two panels (fig10) are drawn wider, so that the title and notes fit the figure
        size = (470, 380) if len(panels) > 2 else (820, 440)
        notes = wrapped(result.notes, size[0] * len(panels) // 8)
        return save_curves(panels, out_dir, self.name, ncols=len(panels), title=title, notes=notes,
                           panel_size=size)


class Fig6(PurityVsLinks):
    """GM-PR Fig. 6: purity against the number of must-links."""

    name = "fig6"
    title = "GM-PR Fig. 6: purity against the number of must-links"
    aliases = ("gmpr-fig6",)
    description = ("GM-PR against constrained EM (GMM-EC) with must-links only, on digits "
                   "{1,2,3} and {4,5,6,7} (2 PCs) and Haberman / Thyroid from --data-dir.")
    kind = "must"


class Fig7(PurityVsLinks):
    """GM-PR Fig. 7: purity against the number of cannot-links."""

    name = "fig7"
    title = "GM-PR Fig. 7: purity against the number of cannot-links (GM-PR, GMM-EC, EM-PC)"
    aliases = ("gmpr-fig7",)
    description = ("GM-PR against constrained EM (GMM-EC) with cannot-links only, on digits "
                   "{1,2,3} and {4,5,6,7} (2 PCs) and Haberman / Thyroid from --data-dir, "
                   "with EM-PC (posterior constraints, em-pc) as the paper has it.")
    kind = "cannot"
    methods = FIG7_METHODS
    run_time = ("Measured: 30.4 min wall, 1,426 s CPU in the 100 default trials on a 2-worker "
                "LocalCluster (pairlab reproduce --all --check --scheduler local --jobs 2 on commit "
                "411aced, 2026-11-27, load 3-14 on 2 shared cores); EM-PC at 256 cannot-links is the slow"
                " part.")


class Fig4(PurityVsLinks):
    """GM-PR Fig. 4: purity against the number of links of both kinds."""

    name = "fig4"
    aliases = ("gmpr-fig4",)
    title = "GM-PR Fig. 4: purity against the number of links (must- and cannot-links together)"
    description = ("GM-PR against constrained EM (GMM-EC) with random pairs typed by the labels, "
                   "on digits {1,2,3} and {4,5,6,7} (2 PCs) and Haberman / Thyroid from --data-dir.")
    kind = "both"
    #: 100 trials took about 15 minutes on 2 shared cores (load ~15): constrained EM with
    #: cannot-links of both kinds is the slow part
    default_trials = 50


@hookimpl
def pairlab_reproductions() -> list[Reproduction]:
    return [Fig4(), Fig6(), Fig7()]
