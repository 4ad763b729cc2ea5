"""Lessons: ready sessions shipped with the package (``pairlab/gui/lessons/*.json``), each with a
title and a two-line note for the instructor. No Qt here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

__all__ = ["Lesson", "lessons"]


@dataclass(frozen=True)
class Lesson:
    """One shipped session: ``data`` opens with :func:`pairlab.gui.session.apply_session`."""

    name: str
    title: str
    note: str
    data: dict[str, Any]


def lessons() -> list[Lesson]:
    """The shipped lessons, in their teaching order."""
    out = []
    for entry in resources.files("pairlab.gui").joinpath("lessons").iterdir():
        if not entry.name.endswith(".json"):
            continue
        data = json.loads(entry.read_text(encoding="utf-8"))
        info = data.get("lesson", {})
        out.append((info.get("order", 99), Lesson(entry.name[:-5], str(info.get("title", entry.name)),
                                                  str(info.get("note", "")), data)))
    return [lesson for _, lesson in sorted(out, key=lambda item: (item[0], item[1].name))]
