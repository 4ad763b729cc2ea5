"""``pairlab run`` options for the other link generators and noise models.

Everything ``pairlab run`` knows about links is decided here: ``--constraints FILE``,
``--must-link/--cannot-link``, ``--link-fraction`` and ``--link-noise`` (declared in :mod:`pairlab.cli`), and
the options this module adds: ``--generator NAME`` with ``--gen KEY=VALUE`` parameters (every protocol of
:mod:`pairlab.links`), ``--label-noise F`` (SCSSAP type 2), ``--flip-prob Q``
(PPC 5.1.4, links get confidence 1 - Q) and ``--e-matrix P[,Q]`` (RDP-means eq. 8). Links come from
``default_rng([seed, 1])`` (label noise first), noise from ``default_rng([seed, 2])``, as in
:mod:`pairlab.cli`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from . import links as gen
from .constraints import Constraints
from .errors import InvalidInputError
from .params import Param, parse_assignments, resolve_params

if TYPE_CHECKING:
    from .dataset import Dataset

__all__ = ["GENERATORS", "LinkGenerator", "add_link_arguments", "constraints_from_args"]


@dataclass(frozen=True)
class LinkGenerator:
    """A named protocol for drawing links, with declared parameters (CLI ``--gen``)."""

    name: str
    help: str
    func: Callable[[Dataset, np.ndarray | None, dict[str, Any], np.random.Generator], Constraints]
    params: tuple[Param, ...] = ()
    needs_labels: bool = True


def _grid(ds: Dataset, y: np.ndarray | None, v: dict[str, Any], rng: np.random.Generator) -> Constraints:
    shape = dict(ds.source).get("params") or {}
    rows = v["rows"] if v["rows"] is not None else shape.get("grid_rows")
    cols = v["cols"] if v["cols"] is not None else shape.get("grid_cols")
    if rows is None or cols is None:
        raise InvalidInputError(f"data set {ds.name!r} has no grid_rows/grid_cols; give --gen rows=R "
                                "--gen cols=C (points must be grid cells in row order).")
    if rows * cols != ds.n_samples:
        raise InvalidInputError(f"a {rows} x {cols} grid has {rows * cols} cells but the data set has "
                                f"{ds.n_samples} points.")
    if v["mode"] == "labels" and y is None:
        raise InvalidInputError("--gen mode=labels needs a data set with labels")
    return gen.grid_links(rows, cols, y if v["use_labels"] or v["mode"] == "labels" else None,
                          mode=v["mode"])


def _nonoverlapping(ds: Dataset, y: np.ndarray, v: dict[str, Any], rng: np.random.Generator) -> Constraints:
    n_pairs = v["n_pairs"]
    if n_pairs is None:
        n_pairs = int(np.floor(v["fraction_points"] * y.size / 2 + 0.5))
    return gen.nonoverlapping_pairs(y, n_pairs, rng)


GENERATORS: dict[str, LinkGenerator] = {g.name: g for g in (
    LinkGenerator("random", "n_must_link within classes and n_cannot_link across (like --must-link)",
                  lambda ds, y, v, rng: gen.random_pairs(y, v["n_must_link"], v["n_cannot_link"], rng),
                  (Param("n_must_link", int, 10, "number of must-links", low=0),
                   Param("n_cannot_link", int, 10, "number of cannot-links", low=0))),
    LinkGenerator("pairs", "n_pairs uniform among all pairs, typed by the labels",
                  lambda ds, y, v, rng: gen.random_pairs_count(y, v["n_pairs"], rng),
                  (Param("n_pairs", int, 20, "number of pairs", low=0),)),
    LinkGenerator("fraction", "a share r of all pairs, typed by the labels (like --link-fraction)",
                  lambda ds, y, v, rng: gen.random_pairs_fraction(y, v["fraction"], rng,
                                                                  reading=v["reading"]),
                  (Param("fraction", float, 0.01, "share r of the n(n-1)/2 pairs", low=0.0, high=1.0),
                   Param("reading", str, "text",
                         "text: round(r n(n-1)/2) distinct pairs (the paper's text); code: "
                         "round(r n^2) ordered draws with replacement (the authors' code, about "
                         "twice as many)", choices=gen.FRACTION_READINGS))),
    LinkGenerator("nonoverlapping", "no point in two pairs (PPC 5.1.1)", _nonoverlapping,
                  (Param("n_pairs", int, None, "number of pairs (at most n/2)", low=0, nullable=True),
                   Param("fraction_points", float, 0.5, "share of points in a pair, if n_pairs is "
                         "not given (PPC 5.1.4: 0.5)", low=0.0, high=1.0))),
    LinkGenerator("teachers", "N teachers partition K random points each (Shental et al. sec. 3)",
                  lambda ds, y, v, rng: gen.teachers(y, v["n_teachers"], v["n_points"], rng,
                                                     complete=v["complete"]),
                  (Param("n_teachers", int, 10, "number of teachers N", low=0),
                   Param("n_points", int, 5, "points per teacher K", low=0),
                   Param("complete", bool, False, "state every implied pair, not a minimal set"))),
    LinkGenerator("grid", "links between 4-neighbours of a grid (PPC 5.2.2)", _grid,
                  (Param("rows", int, None, "grid rows (default: the data set's grid_rows)", low=1,
                         nullable=True),
                   Param("cols", int, None, "grid columns (default: the data set's grid_cols)", low=1,
                         nullable=True),
                   Param("mode", str, "continuity", "soft must-links, or typed by the labels",
                         choices=("continuity", "labels")),
                   Param("use_labels", bool, True, "estimate q (confidence 1 - q) from the labels")),
                  needs_labels=False),
)}


def add_link_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--generator``, ``--gen``, ``--label-noise``, ``--flip-prob`` and ``--e-matrix``."""
    g = parser.add_argument_group("more link generators and noise (docs/datasets.md)")
    g.add_argument("--generator", choices=sorted(GENERATORS), metavar="NAME",
                   help="draw links with: " + "; ".join(f"{k}: {v.help}" for k, v in GENERATORS.items()))
    g.add_argument("--gen", action="append", metavar="KEY=VALUE",
                   help="a parameter of --generator (e.g. --gen n_teachers=20)")
    g.add_argument("--label-noise", type=float, default=None, metavar="F",
                   help="relabel a share F of the points before drawing links (SCSSAP type 2)")
    g.add_argument("--flip-prob", type=float, default=None, metavar="Q",
                   help="flip each link with probability Q; links get confidence 1-Q (PPC 5.1.4)")
    g.add_argument("--e-matrix", default=None, metavar="P[,Q]",
                   help="keep true must-links with probability P, true cannot-links with Q "
                        "(default P) (RDP-means eq. 8)")


def _request(args: argparse.Namespace) -> tuple[str | None, dict[str, Any]]:
    name = args.generator
    params: dict[str, Any] = {}
    if name is not None:
        params = parse_assignments(GENERATORS[name].params, args.gen or [],
                                   owner=f"link generator {name!r}")
    elif args.gen:
        raise InvalidInputError("--gen needs --generator NAME")
    fraction = getattr(args, "link_fraction", None)
    chosen_by = f"--generator {name}" if name is not None else None
    for flag, given, implied in (("--must-link/--cannot-link", args.must_link or args.cannot_link, "random"),
                                 ("--link-fraction", fraction is not None, "fraction")):
        if not given:
            continue
        if name not in (None, implied):
            raise InvalidInputError(f"give either {flag} or {chosen_by}: both say how to draw links")
        name, chosen_by = implied, chosen_by or flag
    if name == "random" and (args.must_link or args.cannot_link):
        params.update(n_must_link=args.must_link, n_cannot_link=args.cannot_link)
    if name == "fraction" and fraction is not None:
        params["fraction"] = fraction
    return name, params


def _e_matrix(text: str) -> tuple[float, float]:
    try:
        values = [float(t) for t in text.split(",")]
    except ValueError:
        values = []
    if len(values) not in (1, 2):
        raise InvalidInputError(f"--e-matrix expects P or P,Q (probabilities), got {text!r}")
    return values[0], values[-1]


def constraints_from_args(args: argparse.Namespace, dataset: Dataset) -> Constraints:
    """Constraints for ``pairlab run``: from ``--constraints FILE`` or a generator, then noise."""
    name, params = _request(args)
    rng = np.random.default_rng([args.seed, 1])
    if args.constraints:
        if name is not None or args.label_noise is not None:
            raise InvalidInputError("give either --constraints FILE or a way to draw links")
        links = Constraints.load(args.constraints, n_samples=dataset.n_samples)
    elif name is None:
        if args.label_noise is not None:
            raise InvalidInputError("--label-noise needs links drawn from the labels "
                                    "(e.g. --must-link 20 --cannot-link 20 or --generator pairs)")
        links = Constraints.empty(dataset.n_samples)
    else:
        spec = GENERATORS[name]
        y = None if dataset.y is None else np.asarray(dataset.y)
        if y is None and spec.needs_labels:
            raise InvalidInputError(
                f"dataset {dataset.name!r} has no labels to draw links from; use --constraints FILE")
        if args.label_noise is not None:
            if y is None:
                raise InvalidInputError("--label-noise needs a data set with labels")
            y = gen.relabel_points(y, args.label_noise, rng)
        links = spec.func(dataset, y, resolve_params(spec.params, params, owner=f"link generator {name!r}"),
                          rng)
    noises = [(flag, value) for flag, value in (("--link-noise", getattr(args, "link_noise", None) or None),
                                                 ("--flip-prob", args.flip_prob),
                                                 ("--e-matrix", args.e_matrix)) if value is not None]
    if len(noises) > 1:
        raise InvalidInputError(f"give one noise option, not {' and '.join(f for f, _ in noises)}")
    if noises:
        flag, value = noises[0]
        noise_rng = np.random.default_rng([args.seed, 2])
        if flag == "--link-noise":
            links = gen.flip_fraction(links, value, noise_rng)
        elif flag == "--flip-prob":
            links = gen.flip_probability(links, value, noise_rng)
        else:
            p, q = _e_matrix(value)
            links = gen.e_matrix_noise(links, p, q, noise_rng)
    return links
