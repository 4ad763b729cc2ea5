"""Run slow work (initialising and stepping algorithms) off the GUI thread.

:class:`Executor` owns one worker thread and runs jobs on it one at a time, in submission order,
so a pane's run is never stepped by two threads at once. A job is a function ``fn(job)`` that can
poll ``job.cancelled()`` between iterations and report ``job.progress(done, total)``; its result
or exception is handed back on the GUI thread through the job's callbacks. Cancelling stops a job
at its next check; a single iteration already under way is allowed to finish (the window stays
responsive meanwhile, and a result that arrives for a pane that was rebuilt in the meantime is
ignored by the caller).

While a job runs, Python's automatic cyclic garbage collection is off (it is switched back on by
the GUI thread when the job ends): a collection triggered on the worker thread would destroy the
GUI thread's unreachable Qt wrappers there, and a C++ destructor waiting for a Qt lock the GUI
thread holds, while the GUI thread waits for the GIL, hangs the app (seen in the test suite,
2026-11-27). Garbage is still freed by reference counting; cycles wait for the GUI thread.
"""

from __future__ import annotations

import gc
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from PySide6 import QtCore

__all__ = ["Executor", "Job"]

_gc_holds = 0           # jobs running on any executor's worker
_gc_was_enabled = True  # the collector's state before the first of them


def _hold_gc() -> None:
    """Switch automatic collection off while a job runs (GUI thread only)."""
    global _gc_holds, _gc_was_enabled
    if _gc_holds == 0:
        _gc_was_enabled = gc.isenabled()
        gc.disable()
    _gc_holds += 1


def _release_gc() -> None:
    """Give back one hold; the last one restores the collector's state (GUI thread only)."""
    global _gc_holds
    if _gc_holds == 0:
        return
    _gc_holds -= 1
    if _gc_holds == 0 and _gc_was_enabled:
        gc.enable()


class Job:
    """One unit of background work and its callbacks (called on the GUI thread)."""

    def __init__(self, fn: Callable[[Job], Any], label: str,
                 on_done: Callable[[Any], None] | None,
                 on_error: Callable[[BaseException], None] | None,
                 cancellable: bool = True) -> None:
        self.fn = fn
        self.label = label
        self.cancellable = cancellable
        self.on_done = on_done
        self.on_error = on_error
        self._cancel = threading.Event()
        self._emit_progress: Callable[[int, int], None] = lambda done, total: None
        self.started = 0.0

    def cancel(self) -> None:
        self._cancel.set()

    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def progress(self, done: int, total: int) -> None:
        self._emit_progress(done, total)


class _Runner(QtCore.QObject):
    """Lives on the worker thread and executes jobs."""

    finished = QtCore.Signal(object, object, object)  # job, result, exception
    progressed = QtCore.Signal(object, int, int)

    @QtCore.Slot(object)
    def execute(self, job: Job) -> None:
        job._emit_progress = lambda done, total: self.progressed.emit(job, done, total)
        try:
            result, error = job.fn(job), None
        except BaseException as exc:  # the GUI decides what to show; the thread must survive
            result, error = None, exc
        self.finished.emit(job, result, error)


class Executor(QtCore.QObject):
    """A queue of jobs run one at a time on a worker thread.

    Signals: ``busy_changed(bool)``, ``progress(label, done, total)``.
    """

    busy_changed = QtCore.Signal(bool)
    progress = QtCore.Signal(str, int, int)
    _dispatch = QtCore.Signal(object)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = QtCore.QThread()
        self._thread.setObjectName("pairlab-worker")
        self._runner = _Runner()
        self._runner.moveToThread(self._thread)
        self._dispatch.connect(self._runner.execute, QtCore.Qt.ConnectionType.QueuedConnection)
        self._runner.finished.connect(self._finished, QtCore.Qt.ConnectionType.QueuedConnection)
        self._runner.progressed.connect(self._progressed, QtCore.Qt.ConnectionType.QueuedConnection)
        self._queue: deque[Job] = deque()
        self.current: Job | None = None
        self._thread.start()

    @property
    def busy(self) -> bool:
        return self.current is not None or bool(self._queue)

    def submit(self, fn: Callable[[Job], Any], *, label: str = "",
               on_done: Callable[[Any], None] | None = None,
               on_error: Callable[[BaseException], None] | None = None,
               cancellable: bool = True) -> Job:
        """Queue ``fn(job)``; a job that is not ``cancellable`` (e.g. building a run the GUI waits
        for) is neither dropped nor flagged by :meth:`cancel`."""
        job = Job(fn, label, on_done, on_error, cancellable)
        was_busy = self.busy
        self._queue.append(job)
        self._pump()
        if not was_busy:
            self.busy_changed.emit(True)
        return job

    def cancel(self) -> None:
        """Cancel the running job (at its next check) and drop the queued cancellable ones."""
        if self.current is not None and self.current.cancellable:
            self.current.cancel()
        kept = [job for job in self._queue if not job.cancellable]
        self._queue.clear()
        self._queue.extend(kept)

    def _pump(self) -> None:
        if self.current is None and self._queue:
            self.current = self._queue.popleft()
            self.current.started = time.perf_counter()
            _hold_gc()
            self._dispatch.emit(self.current)

    @QtCore.Slot(object, object, object)
    def _finished(self, job: Job, result: Any, error: BaseException | None) -> None:
        if job is self.current:
            _release_gc()
        self.current = None
        try:
            if error is None:
                if job.on_done is not None:
                    job.on_done(result)
            elif job.on_error is not None:
                job.on_error(error)
        finally:
            self._pump()
            if not self.busy:
                self.busy_changed.emit(False)

    @QtCore.Slot(object, int, int)
    def _progressed(self, job: Job, done: int, total: int) -> None:
        if job is self.current:
            self.progress.emit(job.label, done, total)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Process events until every job is done (for scripts and tests); False on timeout."""
        deadline = time.perf_counter() + timeout
        app = QtCore.QCoreApplication.instance()
        while self.busy and time.perf_counter() < deadline:
            if app is not None:
                app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.001)
        return not self.busy

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """Stop the worker thread (waiting for a running iteration up to ``timeout_ms``)."""
        if not self._thread.isRunning():
            return
        self.cancel()
        self._queue.clear()
        self._thread.quit()
        if not self._thread.wait(timeout_ms):
            self._thread.terminate()
            self._thread.wait()
        if self.current is not None:      # its result will never be delivered: give back its hold
            self.current = None
            _release_gc()
