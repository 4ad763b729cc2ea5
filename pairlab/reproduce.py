"""Reproductions of papers' figures: the base class recipes derive from."""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["Reproduction"]


class Reproduction:
    """A recipe that regenerates one figure of a paper.

    ``compute`` returns the numbers (no drawing), ``render`` draws them, and ``claims`` checks the
    paper's statements against the computed numbers.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    paper: ClassVar[str] = ""
    description: ClassVar[str] = ""

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "aliases": list(self.aliases),
                "paper": self.paper, "params": []}
