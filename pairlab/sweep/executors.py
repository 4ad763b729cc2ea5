"""Where trials run: in this process, in local worker processes, or on a Dask cluster.

Every executor runs the same worker function (:func:`execute`) on the same task arguments and
yields ``(index, outcome)`` pairs as tasks finish, in whatever order; the engine puts them back
in task order, so the table does not depend on the executor. Workers limit BLAS to one thread
(many single-threaded trials in parallel beat threads fighting over 2 cores, and a fixed thread
count keeps floating-point results identical) and import pairlab's core and the plugins only.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInputError

__all__ = ["DaskExecutor", "Executor", "ProcessExecutor", "SerialExecutor", "Task", "execute",
           "execute_many", "make_executor"]


@dataclass(frozen=True)
class Task:
    """One unit of work: ``fn(*args)`` (``fn`` a module-level function, so it pickles by name).

    ``key`` is the content hash the result is stored under; ``encoding`` how it is stored
    (``"json"`` or ``"pickle"``); ``label`` names the task in messages.
    """

    key: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    label: str = ""
    encoding: str = "json"


_BLAS_LIMITED = False


def _load_blas() -> None:
    """Load numpy's and scipy's BLAS/LAPACK now: threadpoolctl limits only libraries already
    loaded, and scipy brings its own OpenBLAS (left multi-threaded, a 2 x 2 triangular solve took
    18 ms instead of microseconds on a busy 2-core machine)."""
    import numpy.linalg  # noqa: F401
    import scipy.linalg  # noqa: F401


def blas_limits() -> Any:
    """A context manager limiting every loaded BLAS to one thread (a no-op without threadpoolctl)."""
    _load_blas()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a dependency of pairlab
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def single_blas_thread_for_this_process() -> None:
    """Limit BLAS to one thread for the rest of this (worker) process."""
    global _BLAS_LIMITED
    if _BLAS_LIMITED:
        return
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    blas_limits()  # not used as a context: the limit stays for the process's life
    _BLAS_LIMITED = True


def execute(fn: Callable[..., Any], args: tuple[Any, ...], worker: bool = True) -> dict[str, Any]:
    """Run one task; never raises for the task's own errors (they come back as ``error``)."""
    if worker:
        single_blas_thread_for_this_process()
    start, cpu = time.perf_counter(), time.process_time()
    try:
        value = fn(*args)
    except Exception as exc:
        return {"ok": False, "value": None, "seconds": time.perf_counter() - start,
                "cpu_seconds": time.process_time() - cpu,
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": "".join(traceback.format_exception(exc))}
    return {"ok": True, "value": value, "seconds": time.perf_counter() - start,
            "cpu_seconds": time.process_time() - cpu, "error": ""}


def execute_many(calls: Sequence[tuple[Callable[..., Any], tuple[Any, ...]]]) -> list[dict[str, Any]]:
    """:func:`execute` for each ``(fn, args)`` in turn: a chunk of trials as one Dask task."""
    return [execute(fn, args) for fn, args in calls]


Outcomes = Iterator[tuple[int, dict[str, Any]]]


class Executor:
    """Runs tasks and yields ``(index, outcome)`` as they finish."""

    name = "executor"
    workers = 1
    #: the trials run in the calling thread (the engine then writes each trial's file in line:
    #: a writer thread would take the GIL from the trial)
    in_process = False

    def run(self, tasks: Sequence[Task]) -> Outcomes:
        raise NotImplementedError

    def cancel(self) -> None:
        """Stop handing out work (after Ctrl-C); finished results already yielded are kept."""

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return f"{self.name} ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialExecutor(Executor):
    """Tasks one after the other in this process (``--jobs 1``)."""

    name = "this process"
    in_process = True

    def run(self, tasks: Sequence[Task]) -> Outcomes:
        with blas_limits():
            for i, task in enumerate(tasks):
                yield i, execute(task.fn, task.args, worker=False)


def _exit_when_gone(pid: int) -> None:
    """Watchdog thread body: end this worker as soon as process ``pid`` (the sweep) has ended.

    A pidfd becomes readable when the process terminates, zombie included (Linux >= 5.3);
    elsewhere the pid is polled twice a second.
    """
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        import select

        select.select([fd], [], [])
    else:
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            except PermissionError:
                pass
            time.sleep(0.5)
    os._exit(1)


def watch_parent(pid: int) -> None:
    """Make this worker process exit when ``pid`` dies (kill -9, SIGTERM), not linger for minutes.

    Workers are children of the fork server, not of the sweep, so ``os.getppid`` cannot tell.
    """
    import threading

    if pid == os.getpid():
        return
    threading.Thread(target=_exit_when_gone, args=(pid,), daemon=True,
                     name="pairlab-parent-watchdog").start()


def _init_worker(parent: int | None = None) -> None:
    if parent is not None:
        watch_parent(parent)
    single_blas_thread_for_this_process()
    from ..registry import get_registry

    get_registry()  # load the plugins once per worker, before the first task is timed


class ProcessExecutor(Executor):
    """Local worker processes (``--jobs N``), started by a fork server (no Qt, no GUI state)."""

    name = "local processes"

    def __init__(self, jobs: int) -> None:
        self.workers = jobs
        self._futures: list[Any] = []
        self._pool = self._make_pool()

    def _make_pool(self) -> Any:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        ctx = mp.get_context("forkserver" if sys.platform != "win32" else "spawn")
        if sys.platform != "win32":  # workers fork from a server that has imported the engine once
            ctx.set_forkserver_preload(["pairlab.sweep.preload"])
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                   initializer=_init_worker, initargs=(os.getpid(),))

    #: rounds of work after the first whose pool a dead worker broke (as Dask retries them)
    RETRIES = 2

    def run(self, tasks: Sequence[Task]) -> Outcomes:
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool

        pending = list(range(len(tasks)))
        for attempt in range(self.RETRIES + 1):
            if attempt:  # a worker died (killed, out of memory): a new pool runs what was lost
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = self._make_pool()
            index = {self._pool.submit(execute, tasks[i].fn, tasks[i].args): i for i in pending}
            self._futures = list(index)
            lost = []
            for fut in as_completed(index):
                if fut.cancelled():
                    continue
                exc = fut.exception()
                if isinstance(exc, BrokenProcessPool) and attempt < self.RETRIES:
                    lost.append(index[fut])
                elif exc is not None:  # the task could not be sent or its result not returned
                    yield index[fut], {"ok": False, "value": None, "seconds": 0.0,
                                       "error": f"{type(exc).__name__}: {exc}"}
                else:
                    yield index[fut], fut.result()
            if not lost:
                return
            pending = sorted(lost)

    def cancel(self) -> None:
        for fut in self._futures:
            fut.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


#: the address schemes Dask distributed's clients speak
DASK_SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")


#: Dask settings of the LocalCluster ``--scheduler local`` starts: no statistical profiler
#: sampling each worker's task thread every 10 ms and no GIL monitor sampling every 1 ms (threads
#: that took CPU from the trials on the same cores; docs/sweeps.md, Measured)
LOCAL_CLUSTER_CONFIG = {"distributed.worker.profile.enabled": False,
                        "distributed.admin.system-monitor.gil.enabled": False}


class DaskExecutor(Executor):
    """A Dask distributed cluster: ``tcp://HOST:PORT`` of a running ``dask scheduler``, or
    ``local`` for a LocalCluster of ``jobs`` single-threaded worker processes on loopback."""

    name = "dask"

    def __init__(self, scheduler: str, jobs: int | None = None) -> None:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise InvalidInputError(
                '--scheduler needs Dask distributed: pip install "pairlab[distributed]"') from None
        scheme, sep, rest = scheduler.partition("://")
        if sep:
            usable = scheme in DASK_SCHEMES and bool(rest)
        else:                                             # HOST:PORT means tcp://HOST:PORT
            usable = scheduler == "local" or ":" in scheduler
        if not usable:
            raise InvalidInputError(
                f"--scheduler {scheduler!r}: give 'local' or the address of a running `dask "
                f"scheduler`, SCHEME://HOST:PORT with SCHEME one of {', '.join(DASK_SCHEMES)} "
                "(e.g. tcp://10.0.0.5:8786)")
        self.scheduler, self.jobs = scheduler, jobs
        self.name = "dask LocalCluster" if scheduler == "local" else f"dask {scheduler}"
        self.workers = (jobs or os.cpu_count() or 1) if scheduler == "local" else 0
        self._client: Any = None
        self._cluster: Any = None
        self._futures: list[Any] = []
        self._stopped = False

    def _connect(self) -> Any:
        """Start the LocalCluster or connect to the scheduler (on first use: a run whose trials
        are all stored starts nothing)."""
        from distributed import Client, LocalCluster

        if self._client is not None:
            return self._client
        if self.scheduler == "local":
            # loopback only; no dashboard (the scheduler's small HTTP server takes a free port
            # instead of 8787, which another cluster may hold)
            import dask

            with dask.config.set(LOCAL_CLUSTER_CONFIG):  # the nannies pass it to the workers
                self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                             processes=True, host="127.0.0.1",
                                             dashboard_address="127.0.0.1:0",
                                             scheduler_kwargs={"dashboard": False})
            self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(self.scheduler, timeout="20s")
            except (OSError, TimeoutError) as exc:
                raise InvalidInputError(
                    f"cannot reach the Dask scheduler at {self.scheduler}: {exc}. Start one with "
                    "`dask scheduler` and workers with `dask worker ADDRESS`, or use "
                    "--scheduler local.") from None
            self.workers = len(self._client.scheduler_info().get("workers", {}))
        return self._client

    #: a chunk of trials (one Dask task) aims at this many seconds of CPU, once trial times
    #: are known: Dask's per-task cost (scheduler, client and worker, a few ms of CPU on the same
    #: cores as the trials) then stays small beside it (docs/sweeps.md)
    CHUNK_SECONDS = 0.25
    #: chunks queued or running per worker, so a worker never waits for the next round trip
    IN_FLIGHT = 2

    def _chunk_size(self, per_trial: float | None, remaining: int) -> int:
        """Trials in the next chunk: one until a trial's time is known, then about
        :attr:`CHUNK_SECONDS` of them, and never more than an equal share of what remains
        for every chunk in flight (the last chunks end together)."""
        if per_trial is None:
            return 1
        share = -(-remaining // (self.IN_FLIGHT * max(self.workers, 1)))
        return max(1, min(share, int(self.CHUNK_SECONDS / max(per_trial, 1e-6))))

    def run(self, tasks: Sequence[Task]) -> Outcomes:
        """Submit chunks of consecutive trials (:func:`execute_many`) as earlier ones finish,
        at most :attr:`IN_FLIGHT` per worker; yield every trial's outcome as its chunk ends."""
        from distributed import as_completed

        if not tasks:
            return
        client = self._connect()
        todo = list(range(len(tasks)))[::-1]            # popped from the end: task order
        chunks: dict[str, list[int]] = {}
        done = as_completed()
        timed = [0.0, 0]                                # CPU seconds and count of finished trials
        slots = self.IN_FLIGHT * max(self.workers, 1)
        self._futures, self._stopped = [], False

        def submit() -> None:
            per_trial = timed[0] / timed[1] if timed[1] else None
            size = self._chunk_size(per_trial, len(todo))
            idx = [todo.pop() for _ in range(min(size, len(todo)))]
            calls = [(tasks[i].fn, tasks[i].args) for i in idx]
            fut = client.submit(execute_many, calls, key=f"pairlab-{tasks[idx[0]].key}-{idx[0]}"
                                f"-{len(idx)}", pure=False)
            chunks[fut.key] = idx
            self._futures.append(fut)
            done.add(fut)

        while todo and len(chunks) < slots:
            submit()
        for fut in done:
            idx = chunks.pop(fut.key)
            self._futures.remove(fut)
            if fut.status == "error":
                exc = fut.exception()
                for i in idx:
                    yield i, {"ok": False, "value": None, "seconds": 0.0,
                              "error": f"{type(exc).__name__}: {exc}"}
            elif fut.status != "cancelled":
                for i, outcome in zip(idx, fut.result(), strict=True):
                    # CPU time: what Dask's per-task CPU cost competes with (wall time swells
                    # with the machine's load and would keep chunks at one trial on a busy one)
                    timed[0] += outcome.get("cpu_seconds") or outcome["seconds"]
                    timed[1] += 1
                    yield i, outcome
            fut.release()
            while todo and not self._stopped and len(chunks) < slots:
                submit()

    def cancel(self) -> None:
        self._stopped = True
        if self._futures:
            self._client.cancel(self._futures)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def make_executor(jobs: int | None = None, scheduler: str | None = None) -> Executor:
    """The executor for ``--jobs`` / ``--scheduler`` (``jobs`` default: all cores)."""
    if jobs is not None and jobs < 1:
        raise InvalidInputError(f"--jobs must be >= 1, got {jobs}")
    if scheduler:
        return DaskExecutor(scheduler, jobs)
    jobs = jobs or os.cpu_count() or 1
    return SerialExecutor() if jobs == 1 else ProcessExecutor(jobs)
