"""Sessions: the teaching app's state as a readable JSON file, and the crash-proof autosave.

A session records how to make everything again, never the computed states: the data set (plugin
name, parameters, seed), the links, the link noise, placed initial means, the algorithms' seed,
each pane's algorithm and full parameter set, the iteration on screen and the display options.
Opening it recomputes the runs, which are deterministic for a seed. Example::

    {"format": "pairlab-session", "version": 1,
     "dataset": {"name": "two-moons", "params": {"n_samples": 200, "noise": 0.1}, "seed": 0},
     "seed": 0,
     "constraints": {"n_samples": 200, "must_link": [[3, 17]], "cannot_link": [[4, 90]]},
     "noise": 0.0, "initial_means": null,
     "panes": [{"algorithm": "gmm", "params": {"n_components": 2, "tol": 0.001, ...}}],
     "iteration": 12, "view": {"decision_regions": true, "ellipses": true}}

Files are written atomically (:func:`pairlab.atomic.atomic_write_text`). The autosave goes
to ``$PAIRLAB_AUTOSAVE_DIR/autosave.json`` (default: the user's state directory, e.g.
``~/.local/state/pairlab``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..atomic import atomic_write_text
from ..constraints import Constraints
from ..errors import InvalidInputError
from .lab_points import check_drawn
from .model import Lab
from .pane import UNUSED_WHEN_GIVEN

__all__ = [
    "AUTOSAVE_ENV",
    "apply_session",
    "autosave_path",
    "read_autosave",
    "read_session",
    "save_session",
    "session_dict",
    "write_autosave",
]

FORMAT = "pairlab-session"
VERSION = 1
AUTOSAVE_ENV = "PAIRLAB_AUTOSAVE_DIR"


def session_dict(lab: Lab, *, view: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON-ready description of ``lab``."""
    panes = []
    for pane in lab.panes:
        values = pane.run.params if pane.run is not None else _resolved(pane)
        unused = {n for n, other in UNUSED_WHEN_GIVEN.items() if values.get(other) is not None
                  and n not in pane.params}  # DP-means' k once lambda is given
        panes.append({
            "algorithm": pane.name,
            "params": {p.name: p.to_json(values.get(p.name, p.default)) for p in pane.algorithm.params
                       if (p.name != "means_init" or lab.init_means is None)
                       and p.name not in unused},
        })
    return {
        "format": FORMAT,
        "version": VERSION,
        "pairlab_version": __version__,
        "saved": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "dataset": {"name": lab.dataset_name, "params": dict(lab.dataset_params),
                    "seed": lab.dataset_seed},
        "seed": lab.seed,
        "constraints": lab.base.to_dict(),
        "noise": lab.noise,
        "initial_means": None if lab.init_means is None else np.asarray(lab.init_means).tolist(),
        "drawn_points": np.asarray(lab.drawn).tolist(),
        "panes": panes,
        "iteration": lab.iteration,
        "view": dict(view or {}),
    }


def _resolved(pane: Any) -> dict[str, Any]:
    from ..params import resolve_params

    params = {k: v for k, v in pane.params.items() if k != "means_init"}
    return resolve_params(pane.algorithm.params, params)


def apply_session(lab: Lab, data: Mapping[str, Any]) -> dict[str, Any]:
    """Load a session description into ``lab``; returns ``{"iteration": t, "view": {...}}``.

    Raises InvalidInputError (or PluginError for an algorithm or data set that is not installed)
    saying what is wrong with the file.
    """
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise InvalidInputError("this is not a pairlab session file (no \"format\": "
                                f"\"{FORMAT}\" entry)")
    if _field(data, "version", _count, "a whole number", 0) > VERSION:
        raise InvalidInputError(
            f"the session was saved by a newer pairlab (format version {data['version']}); "
            "upgrade pairlab to open it")
    ds = data.get("dataset")
    if not isinstance(ds, Mapping) or "name" not in ds:
        raise InvalidInputError("the session has no \"dataset\" with a \"name\"")
    panes = data.get("panes")
    if not isinstance(panes, list) or not panes:
        raise InvalidInputError("the session lists no panes (\"panes\": [...])")
    specs = []
    for k, entry in enumerate(panes):
        if not isinstance(entry, Mapping) or "algorithm" not in entry:
            raise InvalidInputError(f"pane {k + 1} of the session names no algorithm")
        cls = lab.registry.algorithm(str(entry["algorithm"]))
        params = _field(entry, "params", _mapping, "an object of parameters", None)
        Lab._check_params(cls, params)
        specs.append((cls.name, params))
    seed = _field(data, "seed", _count, "a whole number >= 0", 0)
    means = _field(data, "initial_means", _means, "null or a list of [x, y] points", None)
    noise = _field(data, "noise", _fraction, "a number in [0, 1]", 0.0)
    iteration = _field(data, "iteration", _count, "a whole number >= 0", 0)
    view = _field(data, "view", _mapping, "an object", None)
    # the plain fields are checked before the lab changes: a typo leaves the open session as it was
    drawn = check_drawn(data.get("drawn_points"))
    lab.set_dataset(str(ds["name"]), _field(ds, "params", _mapping, "an object", None),
                    _field(ds, "seed", _count, "a whole number >= 0", 0))
    assert lab.dataset is not None
    if len(drawn):
        lab.set_drawn(drawn, undoable=False)
    cons = data.get("constraints")
    constraints = (Constraints.from_dict(cons, lab.dataset.n_samples) if cons
                   else Constraints.empty(lab.dataset.n_samples))
    lab.seed, lab.init_means, lab.noise = seed, means, noise
    lab.panes.clear()
    for name, params in specs:
        lab.add_pane(name, params)
    lab.set_constraints(constraints, undoable=False)
    return {"iteration": iteration, "view": view}


def _field(data: Mapping[str, Any], key: str, convert: Any, what: str, default: Any) -> Any:
    """``data[key]`` converted, or an error naming the field (a hand-edited file, a typo)."""
    value = data.get(key, default)
    try:
        return convert(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidInputError(
            f"session field {key!r} must be {what}, got {value!r}; correct or remove it."
        ) from None


def _count(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TypeError(value)
    number = float(value) if not isinstance(value, int) else value
    if number != int(number) or number < 0:
        raise ValueError(value)
    return int(number)


def _fraction(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(value)
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(value)
    return float(value)


def _mapping(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(value)
    return dict(value)


def _means(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 2 or not np.all(np.isfinite(arr)):
        raise ValueError(value)
    return arr


def save_session(lab: Lab, path: str | os.PathLike[str], *,
                 view: Mapping[str, Any] | None = None) -> None:
    """Write ``lab`` to ``path`` as indented JSON, atomically."""
    text = json.dumps(session_dict(lab, view=view), indent=1, allow_nan=False)
    atomic_write_text(path, text + "\n")


def read_session(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError(f"cannot read session file {str(path)!r}: {exc}") from None
    except UnicodeDecodeError:
        raise InvalidInputError(f"session file {str(path)!r} is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{str(path)!r} is not valid JSON: {exc}") from None
    except RecursionError:
        raise InvalidInputError(f"{str(path)!r} is nested too deeply to be a session file") from None


def autosave_dir() -> Path:
    env = os.environ.get(AUTOSAVE_ENV)
    if env:
        return Path(env)
    if os.name == "nt":
        return Path(os.environ.get("LOCALAPPDATA", Path.home())) / "pairlab"
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "pairlab"


def autosave_path() -> Path:
    return autosave_dir() / "autosave.json"


def write_autosave(lab: Lab, *, view: Mapping[str, Any] | None = None, clean: bool = False) -> Path:
    """Save ``lab`` to the autosave file; ``clean`` marks a normal exit."""
    path = autosave_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = session_dict(lab, view=view)
    data["clean_exit"] = clean
    atomic_write_text(path, json.dumps(data, indent=1, allow_nan=False) + "\n")
    return path


def read_autosave() -> dict[str, Any] | None:
    """The autosaved session, or None when there is none (or it is unreadable)."""
    path = autosave_path()
    if not path.exists():
        return None
    try:
        return read_session(path)
    except InvalidInputError:
        return None
