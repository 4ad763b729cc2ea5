"""Exceptions raised by pairlab.

Every error pairlab raises on purpose derives from :class:`PairlabError`, so a caller can catch
them all at once; input errors are also :class:`ValueError`, as scikit-learn users expect.
"""

from __future__ import annotations

import warnings

__all__ = [
    "ConvergenceWarning",
    "InconsistentConstraintsError",
    "InvalidInputError",
    "LinkViolationWarning",
    "NotFittedError",
    "PairlabError",
    "PluginError",
    "PluginWarning",
]


class PairlabError(Exception):
    """Base class of every error raised by pairlab."""


class InvalidInputError(PairlabError, ValueError):
    """Data, constraints or parameters that cannot be used; the message says what to change."""


class InconsistentConstraintsError(InvalidInputError):
    """Hard constraints that contradict each other (a cannot-link inside a must-link chain)."""


class NotFittedError(InvalidInputError, AttributeError):
    """An estimator used before ``fit`` (a ValueError and an AttributeError, as scikit-learn's)."""


class PluginError(PairlabError):
    """A plugin failed to load, returned something malformed, or was asked for but is unknown."""


class PluginWarning(UserWarning):
    """A plugin misbehaved (a metric raised or returned NaN) and was left out; the rest went on."""


class ConvergenceWarning(UserWarning):
    """An algorithm stopped at ``max_iter`` before its convergence test held."""


class LinkViolationWarning(UserWarning):
    """A result breaks links the algorithm treats as certain (the message lists them)."""


def warn_not_converged(name: str, max_iter: int) -> None:
    warnings.warn(
        f"{name} did not converge within max_iter={max_iter} iterations; "
        "increase max_iter or tol, or check the data.",
        ConvergenceWarning,
        stacklevel=3,
    )
