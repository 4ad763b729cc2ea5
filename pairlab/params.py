"""Declarative parameter specs.

An algorithm or dataset declares its parameters once as a tuple of :class:`Param`; validation,
the command line's ``--set key=value`` flags, the GUI's forms and saved sessions all come from it.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InvalidInputError

__all__ = ["Param", "parse_assignments", "resolve_params"]

_TYPES = (int, float, bool, str, np.ndarray)


@dataclass(frozen=True)
class Param:
    """One parameter of an algorithm or dataset.

    ``type`` is ``int``, ``float``, ``bool``, ``str`` or ``numpy.ndarray`` (arrays are given on the
    command line as JSON lists). ``low``/``high`` bound numbers (inclusive unless ``low_open`` /
    ``high_open``), ``finite`` refuses infinite floats, ``choices`` restricts values, ``nullable``
    allows ``None`` (meaning "automatic").
    """

    name: str
    type: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[Any, ...] | None = None
    nullable: bool = False
    finite: bool = False

    def __post_init__(self) -> None:
        if self.type not in _TYPES:
            raise TypeError(f"Param {self.name!r}: type must be one of {_TYPES}, got {self.type!r}")
        if self.default is not None or not self.nullable:
            object.__setattr__(self, "default", self.validate(self.default))

    # -- validation -------------------------------------------------------------------------
    def validate(self, value: Any) -> Any:
        """Return ``value`` converted to this parameter's type, or raise InvalidInputError."""
        if value is None:
            if self.nullable:
                return None
            raise InvalidInputError(f"Parameter {self.name!r} must be set; it cannot be None.")
        try:
            value = self._coerce(value)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(
                f"Parameter {self.name!r} expects {self.type_name}, got {value!r} ({exc})."
            ) from None
        if self.choices is not None and value not in self.choices:
            raise InvalidInputError(
                f"Parameter {self.name!r} must be one of {list(self.choices)}, got {value!r}."
            )
        if self.type in (int, float):
            self._check_range(value)
        return value

    def _coerce(self, value: Any) -> Any:
        if self.type is bool:
            if isinstance(value, bool | np.bool_):
                return bool(value)
            if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
                return value.lower() in ("true", "1", "yes")
            if isinstance(value, int | np.integer) and value in (0, 1):
                return bool(value)
            raise TypeError("not a boolean")
        if self.type is int:
            if isinstance(value, bool):
                raise TypeError("a boolean is not an integer")
            if isinstance(value, float | np.floating) and not float(value).is_integer():
                raise ValueError("not a whole number")
            return int(value)
        if self.type is float:
            if isinstance(value, bool):
                raise TypeError("a boolean is not a number")
            out = float(value)
            if math.isnan(out):
                raise ValueError("NaN is not allowed")
            return out
        if self.type is str:
            if not isinstance(value, str):
                raise TypeError("not a string")
            return value
        arr = np.array(json.loads(value) if isinstance(value, str) else value, dtype=float)
        if not np.all(np.isfinite(arr)):
            raise ValueError("array contains NaN or infinite values")
        arr.setflags(write=False)
        return arr

    def _check_range(self, value: float) -> None:
        if self.finite and math.isinf(value):
            raise InvalidInputError(f"Parameter {self.name!r} must be a finite number, got {value}.")
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            op = ">" if self.low_open else ">="
            raise InvalidInputError(f"Parameter {self.name!r} must be {op} {self.low}, got {value}.")
        if self.high is not None and (value > self.high or (self.high_open and value == self.high)):
            op = "<" if self.high_open else "<="
            raise InvalidInputError(
                f"Parameter {self.name!r} must be {op} {self.high}, got {value}."
            )

    # -- text round trip (CLI, sessions) ------------------------------------------------------
    def parse(self, text: str) -> Any:
        """Parse a command-line or form string (``none`` means None for nullable params)."""
        if self.nullable and text.strip().lower() in ("none", "null", "auto", ""):
            return None
        if self.type is np.ndarray:
            try:
                return self.validate(json.loads(text))
            except json.JSONDecodeError as exc:
                raise InvalidInputError(
                    f"Parameter {self.name!r} expects a JSON list such as [[0, 1], [2, 3]]: {exc}"
                ) from None
        return self.validate(text)

    def to_json(self, value: Any) -> Any:
        """A JSON-serialisable form of ``value`` (``inf`` is written as the string "inf")."""
        if value is None:
            return None
        if self.type is np.ndarray:
            return np.asarray(value).tolist()
        if self.type is float and math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value

    @property
    def type_name(self) -> str:
        return "array" if self.type is np.ndarray else self.type.__name__

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description (used by ``pairlab list --json`` and the GUI)."""
        return {
            "name": self.name,
            "type": self.type_name,
            "default": self.to_json(self.default),
            "help": self.help,
            "low": self.low,
            "high": self.high,
            "choices": list(self.choices) if self.choices is not None else None,
            "nullable": self.nullable,
            "finite": self.finite,
        }


def resolve_params(
    specs: Iterable[Param], given: Mapping[str, Any] | None = None, *, owner: str = ""
) -> dict[str, Any]:
    """Fill defaults and validate ``given`` against ``specs``; unknown names are an error."""
    specs = tuple(specs)
    by_name = {p.name: p for p in specs}
    given = dict(given or {})
    unknown = [k for k in given if k not in by_name]
    if unknown:
        key = unknown[0]
        close = difflib.get_close_matches(key, by_name, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        where = f" of {owner}" if owner else ""
        raise InvalidInputError(
            f"Unknown parameter {key!r}{where}.{hint} Known parameters: {sorted(by_name) or 'none'}."
        )
    return {p.name: p.validate(given[p.name]) if p.name in given else p.default for p in specs}


def parse_assignments(
    specs: Iterable[Param], assignments: Iterable[str], *, owner: str = ""
) -> dict[str, Any]:
    """Parse ``["key=value", ...]`` (the CLI's ``--set``) into validated values."""
    by_name = {p.name: p for p in specs}
    out: dict[str, Any] = {}
    for item in assignments:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep:
            raise InvalidInputError(f"Expected key=value, got {item!r}.")
        if key not in by_name:
            resolve_params(by_name.values(), {key: None}, owner=owner)  # raises with suggestions
        out[key] = by_name[key].parse(text.strip())
    return out
