"""The engine: run tasks not yet stored, persist each as it finishes, report progress.

:func:`run_tasks` is what both ``pairlab sweep`` and ``pairlab reproduce`` go through. Each task
has a content-hash key; a task whose intact result is already in the store is not run again, so an
interrupted run (Ctrl-C, a crash, a killed machine) continues where it stopped when the same
command is given again, and no result is lost or duplicated. Results come back in task order
whatever the executor.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..errors import PairlabError
from .executors import Executor, SerialExecutor, Task
from .store import Recorded, StoreWriter, TrialStore

__all__ = ["STDERR", "EngineResult", "Interrupted", "Progress", "run_tasks"]


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at the time (a default bound at import would keep
    a stream that was replaced and closed since, as pytest's capture does)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return bool(getattr(sys.stderr, "isatty", lambda: False)())


STDERR: TextIO = _CurrentStderr()  # type: ignore[assignment]


#: finished trials whose records may still be being written while the next trials run
#: (:class:`.store.StoreWriter`) when the trials run in other processes: what a crash of the
#: sweep's process can lose besides the trials in flight. An executor that runs the trials in
#: this thread (``Executor.in_process``, ``--jobs 1``) gets 0, each record written before the
#: next trial starts: a writer thread beside the trial cost 4.7 ms of CPU a trial against 0.37 ms
#: for a trial file written in line (GIL hand-overs and wake-ups; docs/sweeps.md, Measured).
WRITE_BEHIND = 1


class Interrupted(PairlabError):
    """The run was interrupted; what finished is stored and the same command continues it."""


@dataclass
class EngineResult:
    """Per task (in task order): ``values`` (None where it failed), ``errors`` ("" where it ran),
    ``seconds`` and ``cpu_seconds`` (the worker's wall and CPU time; 0 for stored results),
    ``reused_seconds`` and ``reused_cpu_seconds`` (a stored result's recorded time; None where
    the task ran now or its file has no recorded time) and counts."""

    values: list[Any]
    errors: list[str]
    seconds: list[float]
    cpu_seconds: list[float] = field(default_factory=list)
    stored: int = 0  # results taken from the store
    ran: int = 0
    corrupt: list[str] = field(default_factory=list)
    executor: str = ""
    wall: float = 0.0
    reused_seconds: list[float | None] = field(default_factory=list)
    reused_cpu_seconds: list[float | None] = field(default_factory=list)

    def reused_time(self) -> tuple[float, float, int]:
        """The stored results' recorded wall and CPU seconds, summed, and how many stored results
        have no recorded time (files written before times were recorded)."""
        timed = [(w, c) for w, c in zip(self.reused_seconds, self.reused_cpu_seconds, strict=True)
                 if w is not None and c is not None]
        return (sum(w for w, _ in timed), sum(c for _, c in timed), self.stored - len(timed))


class Progress:
    """``[#####.....] 12/40 trials, 3 stored, 4.1 s, ETA 10 s`` on one line of ``stream``.

    On a terminal the line is redrawn (carriage return) at most 5 times a second; into a file or
    a pipe it is written as plain lines, at the start, every ``every`` seconds and at the end.
    """

    def __init__(self, total: int, stored: int, stream: TextIO | None, width: int = 30,
                 every: float = 10.0) -> None:
        self.total, self.stored, self.stream, self.width = total, stored, stream, width
        try:
            self.tty = bool(stream is not None and stream.isatty())
        except (AttributeError, ValueError):
            self.tty = False
        self.interval = 0.2 if self.tty else every
        self.done = stored
        self.start = time.perf_counter()
        self._last = 0.0
        self._first = self.start
        self.show(force=True)

    def advance(self) -> None:
        if self.done == self.stored:
            self._first = time.perf_counter()
        self.done += 1
        self.show(force=self.done == self.total)

    def show(self, force: bool = False) -> None:
        if self.stream is None:
            return
        now = time.perf_counter()
        if not force and now - self._last < self.interval:
            return
        self._last = now
        filled = int(self.width * self.done / max(self.total, 1))
        elapsed = now - self.start
        ran = self.done - self.stored
        eta = ""
        if ran > 1 and self.done < self.total:  # rate from the first result on: start-up excluded
            rate = (now - self._first) / (ran - 1)
            eta = f", ETA {rate * (self.total - self.done):.0f} s"
        stored = f", {self.stored} stored" if self.stored else ""
        line = (f"[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total}"
                f" trials{stored}, {elapsed:.1f} s{eta}")
        if not self.tty:
            self.stream.write(line + "\n")
        else:
            self.stream.write(f"\r{line}  " + ("\n" if self.done == self.total else ""))
        self.stream.flush()

    def close(self) -> None:
        if self.stream is not None and self.tty and self.done != self.total:
            self.stream.write("\n")
            self.stream.flush()


def run_tasks(tasks: Sequence[Task], store: TrialStore, executor: Executor | None = None, *,
              fresh: bool = False, progress: TextIO | None = STDERR) -> EngineResult:
    """Run the tasks whose results are not in ``store`` on ``executor`` and store each result.

    ``fresh`` ignores stored results (its records replace them). A task that raises, or whose worker
    died, is reported in ``errors`` and not stored (the next run tries it again); a task that
    wants its own failures kept returns them as its result (a sweep trial's row has ``error``).
    Ctrl-C stops the run with :class:`Interrupted` after keeping every finished result.
    With trials in other processes each result's record is written on a background thread while
    the next tasks run, at most :data:`WRITE_BEHIND` results behind; with trials in this thread
    each is written before the next starts. Every write has ended, and the store's log is closed
    (:meth:`TrialStore.close`), when this returns or raises.
    """
    start = time.perf_counter()
    executor = executor or SerialExecutor()
    n = len(tasks)
    values: list[Any] = [None] * n
    errors = [""] * n
    seconds = [0.0] * n
    cpu_seconds = [0.0] * n
    reused: list[Recorded | None] = [None] * n
    todo: list[int] = []
    for i, task in enumerate(tasks):
        found, value, took = (False, None, None) if fresh else store.get_record(task.key)
        if found:
            values[i], reused[i] = value, took
        else:
            todo.append(i)
    stored = n - len(todo)
    bar = Progress(n, stored, progress)
    writer = StoreWriter(store, behind=0 if executor.in_process else WRITE_BEHIND)
    try:
        try:
            for j, outcome in executor.run([tasks[i] for i in todo]):
                i = todo[j]
                seconds[i] = outcome["seconds"]
                cpu_seconds[i] = outcome.get("cpu_seconds", 0.0)
                if outcome["ok"]:
                    took = (Recorded(seconds[i], cpu_seconds[i]) if "cpu_seconds" in outcome
                            else None)  # every executor measures both; never record a made-up 0
                    values[i] = writer.put(tasks[i].key, outcome["value"],
                                           encoding=tasks[i].encoding, took=took)
                errors[i] = outcome["error"]
                bar.advance()
        finally:
            try:
                writer.close()  # every finished trial is on disk before we return or raise
            finally:
                store.close()
    except KeyboardInterrupt:
        executor.cancel()
        bar.close()
        raise Interrupted(f"interrupted: {bar.done} of {n} trials are stored in {store.root}; "
                          "give the same command again to run the rest") from None
    return EngineResult(values, errors, seconds, cpu_seconds, stored=stored, ran=len(todo),
                        corrupt=list(store.corrupt), executor=executor.describe(),
                        wall=time.perf_counter() - start,
                        reused_seconds=[None if r is None else r.wall for r in reused],
                        reused_cpu_seconds=[None if r is None else r.cpu for r in reused])
