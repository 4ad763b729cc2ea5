"""Reproductions of Lu & Leen (PPC), section 5.2, Figs. 11 and 12: image segmentation.

* ``ppc-fig12`` — four synthetic textures cut into blocks, 4-neighbour soft links: standard GMM
  against soft-PPC with Gibbs sampling and with mean field (accuracy and the section 5.2.2 timing).
* ``ppc-fig11`` — needs the paper's MODIS image (not public): reports that it is skipped unless the
  file is in ``--data-dir``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from pairlab import Constraints, Dataset, State, hookimpl
from pairlab.reproduction import QUICK, Claim, Reproduction, ReproductionResult, printed_claim

from .common import (
    FigureResult,
    PanelRecord,
    make_dataset,
    render_records,
    single_blas_thread,
)
from .ppc import PAPER

__all__ = ["PPCFig11", "PPCFig12"]

# -- Fig. 12: texture segmentation with soft links from continuity (section 5.2.2) -------------
GRID_SIDE, GRID_SIDE_QUICK = 24, 12
#: pixel noise of the synthetic textures: at the data set's default (0.3) a GMM on block statistics
#: segments perfectly, leaving nothing for the links to do; at 1.0 it does not (measured: GMM 0.58,
#: mean-field PPC 0.75 on seed 0)
TEXTURE_NOISE = 1.0


class PPCFig12(Reproduction):
    """PPC Fig. 12: standard GMM against soft-PPC with Gibbs sampling and with mean field on a
    four-texture image cut into blocks, 4-neighbour soft links of weight eq. 5.2; and the paper's
    timing comparison (Gibbs 160 min against mean field 3.1 min on its image)."""

    name = "ppc-fig12"
    title = "PPC Fig. 12: texture segmentation, GMM against soft-PPC (Gibbs, mean field)"
    paper = PAPER
    description = ("Four synthetic textures (data set texture-grid, pixel noise 1.0), 7x7 blocks "
                   "described by their statistics; soft 4-neighbour links with "
                   "w = 1/2 log((1-q)/q); GMM, PPC with "
                   "Gibbs sampling and with mean field from the same start; accuracy and wall time.")
    default_trials = 3
    quick_trials = 1

    params = (QUICK,)

    def setup(self, seed: int, side: int) -> tuple[Dataset, Constraints, float]:
        from pairlab.links import grid_links

        data = make_dataset("texture-grid", seed=seed, grid_rows=side, grid_cols=side,
                            features="stats", noise=TEXTURE_NOISE)
        cons = grid_links(side, side, labels=data.y)  # the paper assumes q known from the labels
        labels = data.y
        pairs = cons.must_link
        q = float(np.mean(labels[pairs[:, 0]] != labels[pairs[:, 1]]))
        return data, Constraints(pairs, n_samples=data.n_samples), 0.5 * float(np.log((1 - q) / q))

    def fits(self, seed: int, side: int) -> dict[str, Any]:
        import time

        from pairlab import Run
        from pairlab.mixture import kmeans_plusplus

        data, cons, w = self.setup(seed, side)
        means = kmeans_plusplus(data.X, 4, np.random.default_rng(seed))
        base = {"n_components": 4, "means_init": means, "max_iter": 100}
        out: dict[str, Any] = {"data": data, "cons": cons, "w": w}
        for key, name, c, params in (
                ("gmm", "gmm", None, base),
                ("gibbs", "ppc", cons, {**base, "inference": "gibbs", "must_link_weight": w}),
                ("mean_field", "ppc", cons, {**base, "inference": "mean-field", "must_link_weight": w})):
            t0 = time.perf_counter()
            run = Run(name, data, c, params, seed=seed)
            run.run()
            out[key] = (run, time.perf_counter() - t0)
        return out

    def trial(self, index: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
        from pairlab.metrics import accuracy

        side = GRID_SIDE_QUICK if options.get("quick") else GRID_SIDE
        with single_blas_thread():
            f = self.fits(seed, side)
        y = f["data"].y
        out: dict[str, Any] = {"seed": seed, "side": side, "w": f["w"]}
        for key in ("gmm", "gibbs", "mean_field"):
            run, wall = f[key]
            out[key] = {"accuracy": accuracy(y, run.state.labels), "seconds": wall,
                        "iterations": run.n_iter}
        return out

    def summarize(self, trials: list[dict[str, Any]], options: dict[str, Any]) -> FigureResult:
        from pairlab.metrics import accuracy

        with single_blas_thread():
            f = self.fits(trials[0]["seed"], trials[0]["side"])
        data, cons = f["data"], f["cons"]
        side = trials[0]["side"]
        records = [PanelRecord("truth", "(a) the four textures (true regions)", data, None,
                               state=State(0, np.asarray(data.y, dtype=np.int64)),
                               grid=(side, side))]
        for key, title in (("gmm", "(b) standard GMM"), ("gibbs", "(c) soft-PPC, Gibbs sampling"),
                           ("mean_field", "(d) soft-PPC, mean field")):
            run, wall = f[key]
            records.append(PanelRecord(key, title, data, None, state=run.state, grid=(side, side),
                                       info=f"accuracy {accuracy(data.y, run.state.labels):.3f}, "
                                            f"{wall:.1f} s"))
        mean = {k: {m: float(np.mean([t[k][m] for t in trials])) for m in ("accuracy", "seconds")}
                for k in ("gmm", "gibbs", "mean_field")}
        notes = [f"{side}x{side} blocks of 7x7 pixels described by mean, variance and gradient energies "
                 f"(texture-grid, synthetic stand-ins for the paper's Brodatz textures, whose 5 "
                 f"principal components of our stripes depend on the stripe phase); "
                 f"4-neighbour soft links of weight "
                 f"w = {trials[0]['w']:.2f} (eq. 5.2, q from the true regions); means over "
                 f"{len(trials)} image(s).",
                 f"Wall time of the whole fit: Gibbs {mean['gibbs']['seconds']:.1f} s, mean field "
                 f"{mean['mean_field']['seconds']:.1f} s (ratio "
                 f"{mean['gibbs']['seconds'] / max(mean['mean_field']['seconds'], 1e-9):.0f}x; the "
                 "paper: 160 min against 3.1 min, about 52x)."]
        data_out = {"mean": mean, "trials": trials, "links": cons.n_must_link,
                    "figure": [r.describe() for r in records]}
        curves = {k: {"accuracy": [t[k]["accuracy"] for t in trials],
                      "seconds": [t[k]["seconds"] for t in trials]} for k in ("gmm", "gibbs", "mean_field")}
        return FigureResult(data_out, curves, notes, panels=records, ncols=4,
                            figure_title="PPC Fig. 12: texture segmentation")

    def claims(self, result: ReproductionResult) -> list[Claim]:
        m = result.data["mean"]
        acc = {k: m[k]["accuracy"] for k in m}
        ratio = m["gibbs"]["seconds"] / max(m["mean_field"]["seconds"], 1e-9)
        return [
            Claim("ppc_beats_gmm", "soft-PPC (both approximations) segments better than the standard "
                  "GMM (accuracy)", acc, min(acc["gibbs"], acc["mean_field"]) > acc["gmm"]),
            Claim("approximations_agree", "Gibbs sampling and mean field give similar segmentations "
                  "(accuracies within 5 points)", [acc["gibbs"], acc["mean_field"]],
                  abs(acc["gibbs"] - acc["mean_field"]) <= 0.05),
            Claim("mean_field_faster", "mean field is much faster than Gibbs sampling (the paper: "
                  "about 52x; here: wall-time ratio >= 10)", ratio, ratio >= 10),
            # section 5.2.2's timings: 160 min (Gibbs) and 3.1 min (mean field) on a 2.0 GHz
            # Pentium 4 and the paper's image; our machine, image (synthetic, GRID_SIDE^2 blocks)
            # and Gibbs schedule differ, so only the ratio ("about 50 times faster") is compared
            printed_claim("speedup_ratio", "section 5.2.2: mean field is about 50 times faster "
                          "than Gibbs sampling (wall-time ratio Gibbs / mean field per image; "
                          "the paper's absolute 160 and 3.1 minutes are from its machine and "
                          "image, not compared)", 50.0,
                          [[t["gibbs"]["seconds"] / max(t["mean_field"]["seconds"], 1e-9)
                            for t in result.data["trials"]]], paper_runs=1, unit=10.0),
        ]

    def render(self, result: ReproductionResult, out_dir: Path) -> list[Path]:
        assert isinstance(result, FigureResult)
        # the segmentations are label maps drawn as images (the paper's panels), no link legend
        return render_records(result, out_dir, self.name, panel_size=(360, 380), legend=False)


class PPCFig11(Reproduction):
    """PPC Fig. 11 needs the paper's MODIS image of the Greenland ice sheet, which is not public."""

    name = "ppc-fig11"
    title = "PPC Fig. 11: hard do-not-links from partial labels (needs the MODIS image)"
    paper = PAPER
    description = "Runs only with the image and the expert's labels in --data-dir."
    default_trials = 1
    quick_trials = 1
    FILES = ("greenland_modis.npz",)

    def trial(self, index: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
        d = options.get("data_dir")
        found = [f for f in self.FILES if d and (Path(d) / f).is_file()]
        return {"found": found}

    def summarize(self, trials: list[dict[str, Any]], options: dict[str, Any]) -> ReproductionResult:
        d = options.get("data_dir")
        if not trials[0]["found"]:
            where = f"in {d}" if d else "(no --data-dir given)"
            msg = (f"skipped: {' or '.join(self.FILES)} not found {where}. The 120 x 400 MODIS region "
                   "of the Greenland ice sheet with the expert's snow / non-snow labels (Srivastava, "
                   "Oza & Stroeve 2005) is not public: save it as an NPZ with `image` (120, 400, 7) "
                   "and `snow` (120, 400) to run this figure.")
            return ReproductionResult({"skipped": msg}, {}, [msg])
        msg = ("the MODIS file was found, but this recipe only checks for it: the figure itself is "
               "not implemented (no public data to test it against).")
        return ReproductionResult({"skipped": msg}, {}, [msg])


@hookimpl
def pairlab_reproductions() -> list[Reproduction]:
    return [PPCFig11(), PPCFig12()]
