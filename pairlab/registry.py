"""Load plugins one at a time, isolate failures and answer lookups by name.

``Registry()`` registers every module of the ``pairlab`` entry point group (pairlab's built-ins
are registered there too). Each entry point is imported and each hook implementation called in
its own ``try``: a plugin that fails to import, was built for another plugin API, raises in a hook
or returns something malformed is recorded in :attr:`Registry.failures` and everything else keeps
working. A name registered twice is recorded in :attr:`Registry.clashes`; the first one stays.

Set the environment variable ``PAIRLAB_DISABLE_PLUGINS=1`` to load only pairlab's own plugins
(used by the project's test-suite and for debugging).
"""

from __future__ import annotations

import contextlib
import difflib
import inspect
import os
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import pluggy

from . import hookspecs
from .algorithm import Algorithm
from .dataset import DatasetSpec
from .errors import PluginError
from .metrics import Metric
from .query import QueryStrategy
from .reproduction import Reproduction

__all__ = ["DISABLE_ENV", "PluginInfo", "Registry", "get_registry", "reset_registry"]

DISABLE_ENV = "PAIRLAB_DISABLE_PLUGINS"
GROUP = "pairlab"
KINDS = ("algorithms", "datasets", "reproductions", "metrics", "query_strategies")


@dataclass
class PluginInfo:
    """A plugin the registry tried to load."""

    name: str
    distribution: str
    version: str
    builtin: bool
    error: str | None = None
    where: str | None = None
    provides: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name, "distribution": self.distribution, "version": self.version,
            "builtin": self.builtin, "error": self.error, "where": self.where,
            "provides": self.provides,
        }


@dataclass(frozen=True)
class Entry:
    """One registered item (algorithm class, dataset spec, reproduction or metric)."""

    name: str
    obj: Any
    plugin: PluginInfo


def _singular(kind: str) -> str:
    return "query strategy" if kind == "query_strategies" else kind[:-1]


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    f = frames[-1]
    return f"{f.filename}:{f.lineno} in {f.name}"


def _describe_exc(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


@contextlib.contextmanager
def _guard_stdout() -> Iterator[None]:
    """Send what plugin code prints to stderr, so it cannot corrupt ``--json`` on stdout."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


def _hook_name_problems(pm: pluggy.PluginManager, plugin: Any) -> list[str]:
    """Functions named like hooks that pluggy would silently never call (misspelt, undecorated)."""
    known = sorted(name for name in vars(hookspecs) if name.startswith("pairlab_"))
    problems = []
    for attr in sorted(dir(plugin)):
        fn = getattr(plugin, attr, None)
        if not attr.startswith("pairlab_") or not (inspect.isfunction(fn) or inspect.ismethod(fn)):
            continue
        if attr not in known:
            close = difflib.get_close_matches(attr, known, n=1)
            hint = f"; did you mean {close[0]}?" if close else f" (hooks: {', '.join(known)})"
            problems.append(f"{attr}() is not a pairlab hook, so it is never called{hint}")
        elif pm.parse_hookimpl_opts(plugin, attr) is None:
            problems.append(f"{attr}() is not marked with @pairlab.hookimpl, so it is never called")
    return problems


def _check_algorithm(obj: Any) -> str:
    if not (isinstance(obj, type) and issubclass(obj, Algorithm)):
        raise TypeError(f"{obj!r} is not a subclass of pairlab.Algorithm")
    return obj.name


def _check_dataset(obj: Any) -> str:
    if not isinstance(obj, DatasetSpec):
        raise TypeError(f"{obj!r} is not a pairlab.DatasetSpec")
    return obj.name


def _check_reproduction(obj: Any) -> str:
    if not isinstance(obj, Reproduction):
        raise TypeError(f"{obj!r} is not a pairlab.reproduction.Reproduction instance")
    return obj.name


def _check_metric(obj: Any) -> str:
    if not isinstance(obj, Metric):
        raise TypeError(f"{obj!r} is not a pairlab.metrics.Metric")
    return obj.name


def _check_query_strategy(obj: Any) -> str:
    if not (isinstance(obj, type) and issubclass(obj, QueryStrategy)):
        raise TypeError(f"{obj!r} is not a subclass of pairlab.query.QueryStrategy")
    return obj.name


_CHECKS: dict[str, Callable[[Any], str]] = {
    "algorithms": _check_algorithm,
    "datasets": _check_dataset,
    "reproductions": _check_reproduction,
    "metrics": _check_metric,
    "query_strategies": _check_query_strategy,
}


class Registry:
    """Every algorithm, data set, reproduction and metric that plugins provide.

    Parameters
    ----------
    external : bool, optional
        Load plugins from distributions other than pairlab. Defaults to True unless the
        ``PAIRLAB_DISABLE_PLUGINS`` environment variable is set to a non-empty value other than 0.
    entry_points : iterable of importlib.metadata.EntryPoint, optional
        Load these instead of the installed ``pairlab`` group (for tests).
    """

    def __init__(
        self,
        *,
        external: bool | None = None,
        entry_points: Iterable[metadata.EntryPoint] | None = None,
    ) -> None:
        if external is None:
            external = os.environ.get(DISABLE_ENV, "") in ("", "0")
        self.external = external
        self.pm = pluggy.PluginManager(GROUP)
        self.pm.add_hookspecs(hookspecs)
        self.plugins: list[PluginInfo] = []
        self.clashes: list[str] = []
        #: True once a plugin was registered by hand after the installed ones were loaded.
        self.edited = False
        self._loading = True
        self._items: dict[str, dict[str, Entry]] = {k: {} for k in KINDS}
        self._aliases: dict[str, str] = {}
        eps = entry_points if entry_points is not None else metadata.entry_points(group=GROUP)
        for ep in sorted(eps, key=lambda e: (not _is_builtin(e), e.name)):
            if not self.external and not _is_builtin(ep):
                continue
            self._load_entry_point(ep)
        self._loading = False

    # -- loading ------------------------------------------------------------------------------
    def _load_entry_point(self, ep: metadata.EntryPoint) -> None:
        distribution, version = _dist_identity(ep)
        info = PluginInfo(
            name=ep.name, distribution=distribution, version=version, builtin=_is_builtin(ep),
        )
        self.plugins.append(info)
        try:
            with _guard_stdout():
                module = ep.load()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # sys.exit() and the like are the plugin's too
            info.error, info.where = f"failed to import {ep.value}: {_describe_exc(exc)}", _where(exc)
            return
        self.register(module, name=ep.name, info=info)

    def register(self, plugin: Any, name: str | None = None, *, info: PluginInfo | None = None
                 ) -> PluginInfo:
        """Register a plugin object (a module or any object with hook functions) by hand."""
        name = name or getattr(plugin, "__name__", None) or repr(plugin)
        self.edited = self.edited or not self._loading
        if info is None:
            info = PluginInfo(name=name, distribution="(registered by hand)", version="",
                              builtin=False)
            self.plugins.append(info)
        api = getattr(plugin, "PAIRLAB_API_VERSION", hookspecs.PLUGIN_API_VERSION)
        if api != hookspecs.PLUGIN_API_VERSION:
            info.error = (
                f"built for pairlab plugin API {api}, but this pairlab provides "
                f"{hookspecs.PLUGIN_API_VERSION}; upgrade the plugin or pairlab"
            )
            return info
        if self.pm.has_plugin(name) or self.pm.get_plugin(name) is not None:
            self.clashes.append(f"plugin name {name!r} registered twice; the second was ignored")
            info.error = "a plugin with this name is already registered"
            return info
        try:
            self.pm.register(plugin, name=name)
        except Exception as exc:  # pluggy validation errors (unknown hook, bad signature)
            info.error, info.where = f"could not register: {_describe_exc(exc)}", _where(exc)
            return info
        problems = _hook_name_problems(self.pm, plugin)
        if problems:
            info.error = "; ".join(problems)
        with _guard_stdout():
            for kind in KINDS:
                self._collect(kind, plugin, info)
        return info

    def _collect(self, kind: str, plugin: Any, info: PluginInfo) -> None:
        caller = getattr(self.pm.hook, f"pairlab_{kind}")
        for impl in caller.get_hookimpls():
            if impl.plugin is not plugin:
                continue
            try:
                result = impl.function()
                if result is None:
                    continue
                if not isinstance(result, list | tuple):
                    raise TypeError(f"pairlab_{kind}() must return a list, got {type(result)}")
                items = []
                for obj in result:
                    item_name = _CHECKS[kind](obj)
                    if not isinstance(item_name, str) or not item_name:
                        raise TypeError(f"{obj!r} has no name")
                    items.append((item_name, obj))
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # a hook that calls sys.exit() is isolated too
                msg = f"pairlab_{kind}() failed: {_describe_exc(exc)}"
                info.error = msg if info.error is None else f"{info.error}; {msg}"
                info.where = _where(exc)
                continue
            table = self._items[kind]
            for item_name, obj in items:
                if item_name in table or (kind == "reproductions" and item_name in self._aliases):
                    other = table[item_name].plugin.name if item_name in table else "an alias"
                    self.clashes.append(
                        f"{_singular(kind)} {item_name!r} from plugin {info.name!r} clashes with "
                        f"{other!r}; kept the first"
                    )
                    continue
                table[item_name] = Entry(item_name, obj, info)
                info.provides.setdefault(kind, []).append(item_name)
                if kind == "reproductions":
                    for alias in getattr(obj, "aliases", ()):
                        self._aliases.setdefault(alias, item_name)

    # -- queries ------------------------------------------------------------------------------
    @property
    def failures(self) -> list[PluginInfo]:
        return [p for p in self.plugins if not p.ok]

    def names(self, kind: str) -> list[str]:
        return list(self._items[kind])

    def entries(self, kind: str) -> list[Entry]:
        return list(self._items[kind].values())

    def _get(self, kind: str, name: str) -> Any:
        table = self._items[kind]
        if kind == "reproductions":
            name = self._aliases.get(name, name)
        if name in table:
            return table[name].obj
        for p in self.failures:  # the placeholder a failed plugin leaves behind
            if p.name == name:
                raise PluginError(f"{_singular(kind)} {name!r}: plugin {p.name!r} "
                                  f"({p.distribution} {p.version}) failed to load: {p.error}")
        close = difflib.get_close_matches(name, list(table) + list(self._aliases), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        failed = ""
        if self.failures:
            failed = " Plugins that failed to load: " + ", ".join(
                f"{p.name} ({p.error})" for p in self.failures
            ) + "."
        raise PluginError(
            f"Unknown {_singular(kind)} {name!r}.{hint} Known: {', '.join(sorted(table)) or 'none'}."
            + failed
        )

    def algorithm(self, name: str) -> type[Algorithm]:
        return self._get("algorithms", name)

    def dataset(self, name: str) -> DatasetSpec:
        return self._get("datasets", name)

    def reproduction(self, name: str) -> Any:
        return self._get("reproductions", name)

    def metric(self, name: str) -> Any:
        return self._get("metrics", name)

    def query_strategy(self, name: str) -> type[QueryStrategy]:
        return self._get("query_strategies", name)

    def plugin_of(self, kind: str, name: str) -> PluginInfo:
        if kind == "reproductions":
            name = self._aliases.get(name, name)
        self._get(kind, name)
        return self._items[kind][name].plugin


def _is_builtin(ep: metadata.EntryPoint) -> bool:
    return _dist_identity(ep)[0].lower() == "pairlab"


#: (name, version) of each distribution seen, by its metadata folder: reading them parses the
#: distribution's METADATA file every time, which made up most of a registry load (tests reload
#: the registry for every test).
_DIST_IDENTITY: dict[str, tuple[str, str]] = {}


def _dist_identity(ep: metadata.EntryPoint) -> tuple[str, str]:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return "?", "?"
    key = str(getattr(dist, "_path", ""))
    if not key:  # a distribution without a folder (tests build some by hand): read it each time
        return dist.name, dist.version
    if key not in _DIST_IDENTITY:
        _DIST_IDENTITY[key] = (dist.name, dist.version)
    return _DIST_IDENTITY[key]


_REGISTRY: Registry | None = None


def get_registry() -> Registry:
    """The process-wide registry, loaded on first use."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = Registry()
    return _REGISTRY


def reset_registry() -> None:
    """Forget the loaded registry; the next :func:`get_registry` loads plugins again."""
    global _REGISTRY
    _REGISTRY = None
