"""JSON text that stays valid whatever a plugin returns.

NaN and infinities become null for ``--json`` output (strict JSON a consumer can parse), or, with
``nonfinite="text"``, the strings ``"nan"``, ``"inf"`` and ``"-inf"``: reproduction files and trial
keys use that form, which keeps an infinite penalty distinguishable from a missing value.
"""

from __future__ import annotations

import json
import math
from typing import Any, Literal

import numpy as np

__all__ = ["dumps", "json_ready"]


def json_ready(obj: Any, nonfinite: Literal["null", "text"] = "null") -> Any:
    """``obj`` with numpy values made plain and NaN / +-inf replaced by None (JSON null) or, with
    ``nonfinite="text"``, by their text."""
    if isinstance(obj, dict):
        return {str(k): json_ready(v, nonfinite) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_ready(v, nonfinite) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_ready(obj.tolist(), nonfinite)
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if nonfinite == "null" else str(obj)
    if obj is None or isinstance(obj, str | bool | int | float):
        return obj
    return str(obj)  # anything else a plugin put in (a path, an object) as its text


def dumps(obj: Any, indent: int | None = 1) -> str:
    """Strict JSON (``allow_nan=False``) of :func:`json_ready` of ``obj``."""
    return json.dumps(json_ready(obj), indent=indent, allow_nan=False)
