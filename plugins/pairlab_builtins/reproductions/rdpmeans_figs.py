"""Reproductions of Khashabi et al. (RDP-means), section 5: Fig. 3 (erroneous number of clusters)
and Fig. 4 (performance against the rate of side information).

* ``rdp-fig3`` — F-measure of every method when it is told k - deviation clusters (deviations -3 to
  3) at r = 0.03, p = 1.
* ``rdp-fig4`` — multinomial RDP-means (KL divergence, section 5.3) at r from 0 to 0.1 on the
  ImageNet counts from ``--data-dir``, on 100 digits as a stand-in, and on iris and wine.

The data sets, methods and scores are those of ``rdp-table1`` (:mod:`.rdpmeans`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from pairlab import Dataset, hookimpl
from pairlab.links import e_matrix_noise, random_pairs_fraction
from pairlab.params import Param
from pairlab.registry import get_registry
from pairlab.reproduction import DATA_DIR, QUICK, Claim, Reproduction, ReproductionResult

from .common import fit, make_dataset, save_curves, single_blas_thread, wrapped
from .rdpmeans import (
    DEVIATIONS,
    METHODS,
    METRICS,
    PAPER,
    READINGS,
    load_sets,
    method_params,
    scores,
)

#: how a sampling rate r becomes a number of links (see :mod:`.rdpmeans`)
READING = Param("reading", str, "code", "reading of the rate r: 'text' (round(r n(n-1)/2) "
                "distinct pairs) or 'code' (round(r n^2) ordered draws)", choices=READINGS)

__all__ = ["RDPErroneousK", "RDPRate"]

#: Fig. 3 methods: key, label, algorithm, parameter naming the number of clusters, uses links.
#: TVClust is drawn twice (see :func:`declared_params`).
FIG3_METHODS: tuple[tuple[str, str, str, str, bool], ...] = (
    *METHODS[:2], ("tvclust", "TVClust (variational), T = k'", "tvclust-variational", "", True),
    ("tvclust_wide", "TVClust, T = max(10, 2k')", "tvclust-variational", "", True), *METHODS[3:])
#: the fewest clusters a method is told: the paper's LCVQE "needs at least 2 clusters" (footnote 8)
MIN_DECLARED = {"lcvqe": 2}
FIG3_RATE = 0.03
FIG3_P = 1.0
#: "stable": F varies by at most this much over the deviations (our reading of the paper's word)
STABLE_SPREAD = 0.10


def declared_params(key: str, algorithm: str, k_param: str, k_declared: int) -> dict[str, Any]:
    """Parameters of method ``key`` when it is told ``k_declared`` = k - deviation clusters.

    K-means, MPCK-means and LCVQE take it as their number of clusters; DP-means and RDP-means as
    the k of the farthest-first heuristic that sets lambda (section 5). TVClust is a Dirichlet
    process mixture and takes no k; the paper does not say how it was given one. Its only number
    of clusters is the truncation T of the variational family, so ``tvclust`` is told T = k' (the
    declared number caps the clusters it can use) and ``tvclust_wide`` uses rdp-table1's rule
    T = max(10, 2k') (k' matters only above 5 clusters).
    """
    if key == "tvclust":
        return {"truncation": k_declared}
    return method_params(algorithm, k_param, k_declared)


def spread(values: list[float]) -> float:
    """max - min of the finite values (nan when fewer than two)."""
    v = [x for x in values if np.isfinite(x)]
    return float(max(v) - min(v)) if len(v) > 1 else math.nan


class RDPErroneousK(Reproduction):
    """Fig. 3 of section 5.2: F-measure when every method is told k - deviation clusters."""

    name = "rdp-fig3"
    title = "RDP-means Fig. 3: F-measure with a wrong number of clusters"
    aliases = ("rdp-erroneous-k",)
    paper = PAPER
    description = ("K-means, DP-means, TVClust, RDP-means, MPCKMeans, LCVQE told k - deviation "
                   "clusters, deviation in {-3..3}, p = 1, r = 0.03 (code reading) on iris, wine "
                   "(+ --data-dir sets).")
    default_trials = 5
    quick_trials = 1

    params = (DATA_DIR, QUICK,
              Param("rate", float, FIG3_RATE, "sampling rate r of the side information",
                    low=0.0, high=1.0, low_open=True),
              Param("p", float, FIG3_P, "probability p that a link is kept correct (eq. 8)",
                    low=0.0, high=1.0),
              READING)

    def expand(self, values: dict[str, Any]) -> dict[str, Any]:
        return {**values, "deviations": list(DEVIATIONS)}

    def trial(self, index: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
        rng = np.random.default_rng(seed)
        methods, _missing = fig3_methods()
        sets, _skipped = load_sets(options.get("data_dir"), bool(options.get("quick")))
        out: dict[str, Any] = {"index": index, "seed": seed, "rows": []}
        with single_blas_thread():
            for dname, data in sets.items():
                k = int(data.n_classes or 2)
                fit_seed = int(rng.integers(2**31))
                links = random_pairs_fraction(data.y, options["rate"], rng,
                                              reading=options["reading"])
                p = options["p"]
                if p < 1:
                    links = e_matrix_noise(links, p, p, rng)
                for dev in options["deviations"]:
                    declared = k - dev
                    if declared < 1:
                        continue
                    row: dict[str, Any] = {"dataset": dname, "k": k, "deviation": dev,
                                           "declared": declared, "n_links": links.n_must_link
                                           + links.n_cannot_link, "params": {}, "clusters": {},
                                           "lambda": {}}
                    for key, _label, algorithm, k_param, linked in methods:
                        if declared < MIN_DECLARED.get(key, 1):
                            continue
                        params = declared_params(key, algorithm, k_param, declared)
                        run = fit(algorithm, data, links if linked else None, params, fit_seed)
                        labels = run.state.labels
                        row[key] = scores(data.y, labels)
                        row["params"][key] = params
                        row["clusters"][key] = int(np.unique(labels).size)
                        if "lambda" in run.state.extras:
                            row["lambda"][key] = float(run.state.extras["lambda"])
                    out["rows"].append(row)
        return out

    def summarize(self, trials: list[dict[str, Any]], options: dict[str, Any]) -> ReproductionResult:
        methods, missing = fig3_methods()
        keys = [m[0] for m in methods]
        rows = [row for t in trials for row in t["rows"]]
        datasets = list(dict.fromkeys(r["dataset"] for r in rows))
        metric_names = [n for n, _f in METRICS]
        table: dict[str, Any] = {}
        curves: dict[str, dict[str, list[float]]] = {}
        for d in datasets:
            mine = [r for r in rows if r["dataset"] == d]
            devs = sorted({r["deviation"] for r in mine})
            table[d] = {"k": mine[0]["k"], "deviations": devs, "methods": {}}
            for key in keys:
                entry: dict[str, list[Any]] = {"deviation": [], "declared": [], "clusters": []}
                params: list[dict[str, Any]] = []
                for name in metric_names:
                    entry[name] = []
                    entry[f"{name}_sd"] = []
                for dev in devs:
                    at = [r for r in mine if r["deviation"] == dev and key in r]
                    if not at:
                        continue
                    s = np.asarray([r[key] for r in at])
                    entry["deviation"].append(dev)
                    entry["declared"].append(at[0]["declared"])
                    entry["clusters"].append(float(np.mean([r["clusters"][key] for r in at])))
                    for j, name in enumerate(metric_names):
                        entry[name].append(float(s[:, j].mean()))
                        entry[f"{name}_sd"].append(float(s[:, j].std()))
                    if key in at[0]["lambda"]:  # deterministic given k': the same in every trial
                        entry.setdefault("lambda", []).append(at[0]["lambda"][key])
                    params.append(at[0]["params"][key])
                curves[f"{d} | {key}"] = dict(entry)
                table[d]["methods"][key] = {**entry, "params": params}
        spreads = {key: {d: spread(table[d]["methods"][key]["F"]) for d in datasets}
                   for key in keys}
        notes = [f"{len(trials)} trial(s); F = pairwise F-measure; p = {options['p']:g}, "
                 f"r = {options['rate']:g} ({options['reading']} reading: "
                 + ("round(r n^2) ordered draws" if options["reading"] == "code"
                    else "round(r n(n-1)/2) distinct pairs")
                 + "); every method of a trial gets the same links and seed at every deviation.",
                 "Each method is told k - deviation clusters: K-means, MPCKMeans, LCVQE as their "
                 "number of clusters, DP-means and RDP-means as the k of the farthest-first rule "
                 "for lambda; TVClust (no k in the model) as its truncation T = k - deviation, "
                 "and drawn dashed with rdp-table1's T = max(10, 2(k - deviation)).",
                 "Deviations with k - deviation < 1 are dropped (deviation 3 when k = 3, as the "
                 "paper does); LCVQE is left out at k - deviation = 1 as in the paper (footnote "
                 "8)."]
        if missing:
            notes.append("not registered: " + ", ".join(missing)
                         + " (left out; their curves appear once the plugins are installed)")
        notes += load_sets(options.get("data_dir"), bool(options.get("quick")))[1]
        data = {"methods": keys, "labels": {m[0]: m[1] for m in methods}, "datasets": datasets,
                "metrics": metric_names, "rate": options["rate"], "p": options["p"],
                "reading": options["reading"], "table": table, "spread_F": spreads,
                "stable_spread": STABLE_SPREAD, "not_registered": missing}
        return ReproductionResult(data, curves, notes)

    def claims(self, result: ReproductionResult) -> list[Claim]:
        d = result.data
        keys, sets, spreads = d["methods"], d["datasets"], d["spread_F"]
        claims = []
        said = {"dpmeans": ("DP-means' F is clearly stable for different choices of k",
                            "clearly stable"),
                "rdpmeans": ("RDP-means shows very stable results", "very stable"),
                "tvclust": ("TVClust shows very stable results (told T = k - deviation)",
                            "very stable"),
                "tvclust_wide": ("TVClust shows very stable results (T = max(10, 2(k - "
                                 "deviation)))", "very stable")}
        for key, (statement, words) in said.items():
            if key in keys:
                worst = max(spreads[key].values())
                claims.append(Claim(
                    f"{key}_stable", f"{statement}: its F varies by at most {STABLE_SPREAD:g} over "
                    "the deviations on every data set (measured: max - min per set)",
                    spreads[key], bool(worst <= STABLE_SPREAD), paper=words))
        if "kmeans" in keys:
            # section 2: "DP-means is much less sensitive to this parameter than K-means is to k";
            # section 5.2: RDP-means, derived from DP-means, "too would be relatively robust"
            mean_spread = {k: float(np.mean(list(spreads[k].values()))) for k in keys}
            for key, label in (("dpmeans", "DP-means"), ("rdpmeans", "RDP-means")):
                if key in keys:
                    claims.append(Claim(
                        f"{key}_less_sensitive_than_kmeans", f"{label} is less sensitive to the "
                        "deviation than K-means (mean over the data sets of max - min F; "
                        f"measured: [{label}, K-means])", [mean_spread[key], mean_spread["kmeans"]],
                        mean_spread[key] < mean_spread["kmeans"]))
        at_k, under, over = [], [], []
        for s in sets if "mpckmeans" in keys else ():
            e = d["table"][s]["methods"]["mpckmeans"]
            f = dict(zip(e["deviation"], e["F"], strict=True))
            if 0 in f:
                at_k.append(f[0])
                under += [f[0] - v for dev, v in f.items() if dev > 0]
                over += [f[0] - v for dev, v in f.items() if dev < 0]
        if under and over:
            drop_under, drop_over = float(np.mean(under)), float(np.mean(over))
            claims.append(Claim(
                "mpck_unless_underestimated", "MPCKMeans works well unless k is underestimated: "
                "its F drops below its F at k when told fewer clusters (deviation > 0) by more "
                f"than when told more (deviation < 0), which stays within {STABLE_SPREAD:g} "
                "(mean drops over sets and deviations)",
                {"F at k": float(np.mean(at_k)), "drop, k underestimated": drop_under,
                 "drop, k overestimated": drop_over},
                bool(drop_under > drop_over and drop_over <= STABLE_SPREAD),
                paper="works well unless k is underestimated"))
        return claims

    def render(self, result: ReproductionResult, out_dir: Path) -> list[Path]:
        """One panel per data set, F against the deviation, a line per method (the paper's
        Fig. 3 layout)."""
        from pairlab.render import CurvePanel, CurveSeries

        d = result.data
        colour = {m[0]: c for c, m in enumerate(METHODS)}
        colour["tvclust_wide"] = colour["tvclust"]
        panels = []
        for s in d["datasets"]:
            series = []
            for key in d["methods"]:
                e = d["table"][s]["methods"][key]
                series.append(CurveSeries(d["labels"][key], np.asarray(e["deviation"], float),
                                          np.asarray(e["F"]), colour=colour[key],
                                          dashed=key == "tvclust_wide",
                                          weight=0.8 if key == "tvclust_wide" else 1.0))
            panels.append(CurvePanel(f"{s} (k = {d['table'][s]['k']})", series,
                                     "deviation (told k' = k - deviation clusters)", "F-measure",
                                     y_range=(0.0, 1.05)))
        ncols = min(len(panels), 3)
        notes = wrapped(result.notes, 60 * ncols)  # wider widens the figure
        return save_curves(panels, out_dir, self.name, ncols=ncols, title=self.title, notes=notes,
                           panel_size=(470, 540))


def fig3_methods() -> tuple[list[tuple[str, str, str, str, bool]], list[str]]:
    have = set(get_registry().names("algorithms"))
    return ([m for m in FIG3_METHODS if m[2] in have],
            sorted({m[2] for m in FIG3_METHODS if m[2] not in have}))


#: Fig. 4: rates r of pairs sampled (the figure's x axis runs from 0 to 0.1)
FIG4_RATES = (0.0, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1)
FIG4_RATES_QUICK = (0.0, 0.02, 0.06, 0.1)
#: the ImageNet bag-of-words file (1,000 visual-word counts per image, class in the last column)
#: data sets of rdp-fig4 that the paper's Fig. 4 does not use (reported as extensions)
EXTENSION_SETS = ("iris", "wine")
IMAGENET_FILES = ("imagenet.csv", "imagenet-sift.csv")
#: "almost fully reconstruct the true clustering" at 6% of the pairs: our reading of "almost"
ALMOST_FULL = 0.95


def fig4_sets(data_dir: str | None, quick: bool
              ) -> tuple[dict[str, tuple[Dataset | None, str]], list[str]]:
    """name -> (data, divergence): the paper's ImageNet counts from ``--data-dir`` (KL), the
    ``digits-100`` stand-in (KL; None here: a fresh draw of 10 images per digit in each trial) and,
    beyond the paper's figure, iris and wine (Gaussian, the sets of section 5.2; wine not in
    ``--quick``)."""
    sets: dict[str, tuple[Dataset | None, str]] = {}
    notes = []
    hit = next((f for f in IMAGENET_FILES if data_dir and (Path(data_dir) / f).is_file()), None)
    if hit is None:
        names = " or ".join(IMAGENET_FILES)
        notes.append("imagenet: skipped, " + (f"{names} not found in {data_dir}" if data_dir
                                              else f"no --data-dir given (looked for {names})"))
    else:
        sets["imagenet"] = (make_dataset("csv", path=str(Path(data_dir) / hit), label="-1"), "kl")
    sets["digits-100"] = (None, "kl")
    for name in ("iris",) if quick else ("iris", "wine"):
        sets[name] = (make_dataset(name), "sqeuclidean")
    return sets, notes


def digits_100(rng: np.random.Generator) -> Dataset:
    """100 of scikit-learn's 8x8 digits, 10 of each class, pixel intensities (0-16) as counts: a
    stand-in for the paper's 100 ImageNet images of 10 categories (counts, 10 equal classes)."""
    full = make_dataset("digits", classes="0,1,2,3,4,5,6,7,8,9", pca=False)
    idx = np.concatenate([rng.choice(np.flatnonzero(full.y == c), 10, replace=False)
                          for c in range(10)])
    return Dataset(full.X[idx], full.y[idx], name="digits-100",
                   source={"dataset": "digits", "rows": idx.tolist()})


class RDPRate(Reproduction):
    """Fig. 4 of section 5.3: RDP-means' F-measure and NMI against the fraction of pairs r."""

    name = "rdp-fig4"
    title = "RDP-means Fig. 4: F-measure and NMI against the fraction of pairs sampled"
    aliases = ("rdp-pairs-rate",)
    paper = PAPER
    description = ("RDP-means (KL divergence, smoothing 0.3, lambda from the true k) at r from 0 "
                   "to 0.1 (code reading) on the ImageNet counts from --data-dir, on 100 digits "
                   "(10 per class) as a stand-in, and on iris and wine (Gaussian).")
    default_trials = 10
    quick_trials = 2

    params = (DATA_DIR, QUICK, READING)

    def expand(self, values: dict[str, Any]) -> dict[str, Any]:
        return {**values, "rates": list(FIG4_RATES_QUICK if values["quick"] else FIG4_RATES)}

    def trial(self, index: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
        rng = np.random.default_rng(seed)
        sets, _notes = fig4_sets(options.get("data_dir"), bool(options.get("quick")))
        out: dict[str, Any] = {"index": index, "seed": seed, "rows": []}
        with single_blas_thread():
            for dname, (data, divergence) in sets.items():
                data = digits_100(rng) if data is None else data
                # section 5.3: multinomial model, KL divergence, Laplace smoothing 0.3 (count data;
                # Gaussian for the UCI sets); lambda by farthest-first from the true k (section 5)
                params = {"k": int(data.n_classes or 2), "divergence": divergence,
                          "smoothing": 0.3}
                fit_seed = int(rng.integers(2**31))
                dp = fit("dpmeans", data, None, params, fit_seed).state.labels
                for r in options["rates"]:
                    links = random_pairs_fraction(data.y, r, rng, reading=options["reading"])
                    labels = fit("rdpmeans", data, links, params, fit_seed).state.labels
                    out["rows"].append({
                        "dataset": dname, "divergence": divergence, "n": data.n_samples,
                        "r": r, "rdpmeans": scores(data.y, labels),
                        "dpmeans": scores(data.y, dp), "same_as_dpmeans": bool(
                            np.array_equal(labels, dp)),
                        "n_links": links.n_must_link + links.n_cannot_link,
                        "clusters": int(np.unique(labels).size)})
        return out

    def summarize(self, trials: list[dict[str, Any]], options: dict[str, Any]) -> ReproductionResult:
        rows = [row for t in trials for row in t["rows"]]
        datasets = list(dict.fromkeys(r["dataset"] for r in rows))
        names = [n for n, _f in METRICS]
        table: dict[str, Any] = {}
        curves: dict[str, dict[str, list[float]]] = {}
        for d in datasets:
            entry: dict[str, list[float]] = {"r": list(options["rates"]), "n_links": [],
                                             "clusters": [], "same_as_dpmeans": []}
            first = next(row for row in rows if row["dataset"] == d)
            for name in names:
                entry[name], entry[f"{name}_sd"], entry[f"DP-means {name}"] = [], [], []
            for r in options["rates"]:
                at = [row for row in rows if row["dataset"] == d and row["r"] == r]
                s, dp = np.asarray([a["rdpmeans"] for a in at]), np.asarray([a["dpmeans"] for a in at])
                entry["n_links"].append(float(np.mean([a["n_links"] for a in at])))
                entry["clusters"].append(float(np.mean([a["clusters"] for a in at])))
                entry["same_as_dpmeans"].append(float(np.mean([a["same_as_dpmeans"] for a in at])))
                for j, name in enumerate(names):
                    entry[name].append(float(s[:, j].mean()))
                    entry[f"{name}_sd"].append(float(s[:, j].std()))
                    entry[f"DP-means {name}"].append(float(dp[:, j].mean()))
            curves[d] = entry
            table[d] = {**entry, "divergence": first["divergence"], "n": first["n"]}
        notes = [f"{len(trials)} trial(s); RDP-means with the KL divergence on counts (multinomial, "
                 "Laplace smoothing 0.3, section 5.3) and lambda from the true k by farthest-"
                 f"first; {options['reading']} reading of r ("
                 + ("round(r n^2) ordered draws" if options["reading"] == "code"
                    else "round(r n(n-1)/2) distinct pairs")
                 + "), links drawn afresh at every r; F = pairwise F-measure.",
                 "digits-100: a stand-in for the paper's 100 ImageNet images of 10 categories (not "
                 "shipped): 10 random 8x8 scikit-learn digits per class in every trial, the 64 "
                 "pixel intensities (0-16) as counts."]
        notes.append("iris, wine: the UCI sets of section 5.2 with the Gaussian model (squared "
                     "Euclidean), beyond the paper's Fig. 4, which shows ImageNet only.")
        notes += fig4_sets(options.get("data_dir"), bool(options.get("quick")))[1]
        data = {"datasets": datasets, "rates": list(options["rates"]), "metrics": names,
                "reading": options["reading"], "table": table, "almost_full": ALMOST_FULL}
        return ReproductionResult(data, curves, notes)

    def claims(self, result: ReproductionResult) -> list[Claim]:
        d = result.data
        claims = []
        for s in d["datasets"]:
            e = d["table"][s]
            rates = d["rates"]
            # the paper's Fig. 4 shows ImageNet only: claims on the UCI sets are extensions
            ext = s in EXTENSION_SETS
            n = len(claims)
            if 0.0 in rates:
                same = e["same_as_dpmeans"][rates.index(0.0)]
                claims.append(Claim(
                    f"{s}_dpmeans_at_zero", f"({s}) with no pairs RDP-means is DP-means: the same "
                    "clustering in every trial at r = 0 (measured: fraction of trials)", same,
                    same == 1.0))
            steps = {name: [b - a for a, b in zip(e[name], e[name][1:], strict=False)]
                     for name in ("F", "NMI")}
            worst = {name: min(v) for name, v in steps.items()}
            claims.append(Claim(
                f"{s}_increases", f"({s}) as more pairs are added RDP-means' performance "
                "consistently increases: F and NMI never fall by more than 0.01 from one r to the "
                "next (measured: the largest fall, negative = a fall)", worst,
                all(v >= -0.01 for v in worst.values()), paper="consistently increases"))
            if 0.06 in rates:
                at = {name: e[name][rates.index(0.06)] for name in ("F", "NMI")}
                claims.append(Claim(
                    f"{s}_six_percent", f"({s}) with 6% of the pairs RDP-means almost fully "
                    f"reconstructs the true clustering: F and NMI >= {ALMOST_FULL:g} at r = 0.06",
                    at, all(v >= ALMOST_FULL for v in at.values()), paper="almost fully"))
            for c in claims[n:]:
                c.extension = ext
        return claims

    def render(self, result: ReproductionResult, out_dir: Path) -> list[Path]:
        """One panel per data set: NMI and F1 of RDP-means against r (the paper's Fig. 4),
        DP-means dashed."""
        from pairlab.render import CurvePanel, CurveSeries

        d = result.data
        x = np.asarray(d["rates"], dtype=float)
        panels = []
        for s in d["datasets"]:
            e = d["table"][s]
            series = []
            for c, (name, label) in enumerate((("NMI", "NMI"), ("F", "F1"))):
                y, sd = np.asarray(e[name]), np.asarray(e[f"{name}_sd"])
                series.append(CurveSeries(f"RDP-means {label}", x, y, y - sd, y + sd, colour=c))
                series.append(CurveSeries(f"DP-means {label}", x, np.asarray(e[f"DP-means {name}"]),
                                          colour=c, dashed=True, weight=0.7))
            model = {"kl": "multinomial (KL)", "sqeuclidean": "Gaussian"}[e["divergence"]]
            stand_in = ", stand-in for ImageNet" if s == "digits-100" else ""
            panels.append(CurvePanel(f"{s} ({model}{stand_in})", series,
                                     "rate r of pairs added to E",
                                     "performance (mean +- sd over trials)", y_range=(0.0, 1.05)))
        ncols = min(len(panels), 2)
        notes = wrapped(result.notes, 75 * ncols)
        return save_curves(panels, out_dir, self.name, ncols=ncols, title=self.title, notes=notes,
                           panel_size=(600, 420))


@hookimpl
def pairlab_reproductions() -> list[Reproduction]:
    return [RDPErroneousK(), RDPRate()]
