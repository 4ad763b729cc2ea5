"""Which library draws a reproduction's figures, in which formats, and the figures it drew.

A recipe draws through ``_drawing()`` of the built-in recipes' common module (or its own code);
:func:`drawing` tells it the backend: ``"auto"`` (the app's Qt canvas when the ``gui`` extra is
installed, else matplotlib), ``"matplotlib"`` (headless, ``pairlab[figures]``, never imports Qt)
or ``"qt"``. Under :func:`figures_drawn` every matplotlib ``Figure`` a recipe draws is recorded,
so :func:`pairlab.reproduce.reproduce` hands the Figures back for restyling.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from .errors import InvalidInputError

__all__ = ["BACKENDS", "FORMATS", "Drawing", "drawing", "figures_drawn", "record"]

BACKENDS = ("auto", "matplotlib", "qt")
#: the formats a figure may be written in (Qt's canvas writes PNG and SVG only)
FORMATS = ("png", "svg", "pdf")


@dataclass
class Drawing:
    """The backend asked for, the formats to write and the matplotlib Figures drawn so far."""

    backend: str = "auto"
    formats: tuple[str, ...] = ("png", "svg")
    figures: list[Any] = field(default_factory=list)

    def use_matplotlib(self) -> bool:
        """True when matplotlib draws (asked for, or auto without the ``gui`` extra)."""
        if self.backend != "auto":
            return self.backend == "matplotlib"
        from .extras import missing_gui

        return bool(missing_gui())


_CURRENT: ContextVar[Drawing | None] = ContextVar("pairlab_drawing", default=None)


def drawing() -> Drawing:
    """The drawing settings in force (see :func:`figures_drawn`); outside it, the defaults (and
    nothing is kept of what is drawn)."""
    return _CURRENT.get() or Drawing()


@contextmanager
def figures_drawn(backend: str = "auto", formats: Sequence[str] | None = None) -> Iterator[Drawing]:
    """Draw with ``backend`` in ``formats`` (default PNG and SVG, plus PDF with matplotlib) inside
    the block; the yielded :class:`Drawing` lists the matplotlib Figures drawn."""
    if backend not in BACKENDS:
        raise InvalidInputError(f"unknown figure backend {backend!r}; use one of {', '.join(BACKENDS)}")
    fmts = tuple(f.lower().lstrip(".") for f in (formats or ("png", "svg")))
    bad = [f for f in fmts if f not in FORMATS]
    if bad or not fmts:
        raise InvalidInputError(f"unknown figure format(s) {bad or fmts!r}; use {', '.join(FORMATS)}")
    current = Drawing(backend, fmts)
    if "pdf" in fmts and not current.use_matplotlib():
        raise InvalidInputError("PDF figures are drawn by matplotlib: use backend 'matplotlib' "
                                '(pip install "pairlab[figures]")')
    token = _CURRENT.set(current)
    try:
        yield current
    finally:
        _CURRENT.reset(token)


def record(figure: Any) -> Any:
    """Note a drawn matplotlib ``figure`` in the current :class:`Drawing`; returns it."""
    drawing().figures.append(figure)
    return figure
