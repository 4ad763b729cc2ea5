"""argparse types that refuse out-of-range numbers with a message saying what to give."""

from __future__ import annotations

import argparse

__all__ = ["non_negative_int", "positive_int"]


def _int(text: str, low: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """0, 1, 2, ... (seeds, counts of links)."""
    return _int(text, 0, "a whole number >= 0")


def positive_int(text: str) -> int:
    """1, 2, ... (iteration limits, trials, workers)."""
    return _int(text, 1, "a whole number >= 1")
