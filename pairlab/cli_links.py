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
from typing import TYPE_CHECKING, Any

import numpy as np

from .constraints import Constraints
from .errors import InvalidInputError
from .links import GENERATORS, add_noise, draw_links, draw_seed_labels
from .params import parse_assignments

if TYPE_CHECKING:
    from .dataset import Dataset

__all__ = ["add_link_arguments", "constraints_from_args"]


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
    noises = [(flag, value) for flag, value in (("--link-noise", getattr(args, "link_noise", None) or None),
                                                 ("--flip-prob", args.flip_prob),
                                                 ("--e-matrix", args.e_matrix)) if value is not None]
    if len(noises) > 1:
        raise InvalidInputError(f"give one noise option, not {' and '.join(f for f, _ in noises)}")
    model, level = None, None
    if noises:
        flag, value = noises[0]
        model = {"--link-noise": "flip-fraction", "--flip-prob": "flip-prob", "--e-matrix": "e-matrix"}[flag]
        level = _e_matrix(value) if flag == "--e-matrix" else value
    noise_rng = np.random.default_rng([args.seed, 2])
    if args.constraints:
        if name is not None or args.label_noise is not None:
            raise InvalidInputError("give either --constraints FILE or a way to draw links")
        links = Constraints.load(args.constraints, n_samples=dataset.n_samples)
        return links if model is None else add_noise(links, model, level, noise_rng)
    return draw_links(dataset, name, params, rng, label_noise=args.label_noise, noise=model, level=level,
                      noise_rng=noise_rng)


def seed_labels_from_args(args: argparse.Namespace, dataset: Dataset) -> np.ndarray | None:
    """With ``--generator labels``, the partial labels behind the links (the same draw), which a
    seed-taking algorithm (Seeded-/Constrained-KMeans) also gets as ``seed_labels``."""
    if args.constraints:
        return None
    name, params = _request(args)
    if name != "labels":
        return None
    return draw_seed_labels(dataset, params, np.random.default_rng([args.seed, 1]),
                            label_noise=args.label_noise)
