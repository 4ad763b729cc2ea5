"""The matplotlib ``Figure`` pairlab returns: a plain Figure that also shows itself in a notebook.

A Figure made without pyplot has no display hook until a backend registers one (``%matplotlib
inline``); :meth:`PairlabFigure._repr_png_` gives Jupyter the PNG in any case. Imported only when a
figure is drawn (matplotlib is optional: ``pip install "pairlab[figures]"``).
"""

from __future__ import annotations

import io

from matplotlib.figure import Figure

__all__ = ["PairlabFigure"]


class PairlabFigure(Figure):
    """A ``matplotlib.figure.Figure`` with a PNG display for notebooks."""

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.savefig(buf, format="png", metadata={"Software": None})
        return buf.getvalue()
