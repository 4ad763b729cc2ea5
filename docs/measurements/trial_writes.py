"""Do a sweep's writes slow its trials? (docs/sweeps.md, Measured, eighth session)

Runs the sweep bench's trial (GMM, 20 EM iterations, 1,500 points) in blocks of B trials, the
blocks rotating through four ways of storing each finished trial: nothing, a record appended to a
log (``TrialStore.put``, the store's layout since November 2026), a new file per trial (the earlier
layout: a temporary file written, closed and renamed) and the same files rewritten (a ``--fresh``
run over an earlier one: the old file unlinked, then the rename). Only the trials are timed. On
a machine whose speed is bimodal (trials either ~20 ms or ~30-40 ms, switching every few seconds)
the share of slow trials is what to compare; blocks alternate so the machine's drift falls on
every way alike. Usage: python docs/measurements/trial_writes.py [B] [ROUNDS] [FOLDER]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np

from pairlab.benchcases.sweep import _spec
from pairlab.sweep.executors import blas_limits
from pairlab.sweep.runner import sweep_tasks
from pairlab.sweep.store import Recorded, TrialStore

SLOW_MS = 25.5  # between the two modes of the development machine's trial time


def _file_writer(root: str, replace: bool):
    """The earlier layout's write: ``root/<key>.trial`` through a temporary file and a rename."""
    os.makedirs(root, exist_ok=True)
    count = [0]

    def write(key: str, data: bytes) -> None:
        count[0] += 1
        name = key if replace else f"{key}-{count[0]}"
        path, tmp = f"{root}/{name}.trial", f"{root}/.{name}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, data)
        os.close(fd)
        if replace and os.path.exists(path):
            os.unlink(path)
        os.replace(tmp, path)

    return write


def main(block: int = 50, rounds: int = 40, folder: str | None = None) -> None:
    tasks, _ = sweep_tasks(_spec(200))
    root = tempfile.mkdtemp(dir=folder, prefix="pairlab-trial-writes-")
    store = TrialStore(f"{root}/log")
    new_files, same_files = _file_writer(f"{root}/new", False), _file_writer(f"{root}/same", True)
    ways = ["nothing", "log record", "new file", "rewritten file"]
    times: dict[str, list[float]] = {w: [] for w in ways}
    k = 0
    with blas_limits():
        for r in range(rounds):
            for way in ways[r % 4:] + ways[:r % 4]:
                for _ in range(block):
                    task = tasks[k % len(tasks)]
                    k += 1
                    start = time.perf_counter()
                    value = task.fn(*task.args)
                    times[way].append(time.perf_counter() - start)
                    if way == "log record":
                        store.put(task.key, value, took=Recorded(0.02, 0.02))
                    elif way != "nothing":
                        data, _ = store.encode(task.key, value, "json", Recorded(0.02, 0.02))
                        (new_files if way == "new file" else same_files)(task.key, data)
    store.close()
    base = (np.array(times["nothing"]).reshape(rounds, block) * 1e3 >= SLOW_MS).mean(1)
    print(f"{block} trials a block, {rounds} rounds, store in {root}")
    for way in ways:
        ms = np.array(times[way]) * 1e3
        share = (ms.reshape(rounds, block) >= SLOW_MS).mean(1)
        fast = ms[ms < SLOW_MS]
        print(f"{way:15s} slow share {(ms >= SLOW_MS).mean():.3f}, mean {ms.mean():.2f} ms, "
              f"fast-mode median {np.median(fast):.2f} ms; rounds with more / fewer slow trials "
              f"than with nothing written: {(share > base).sum()} / {(share < base).sum()}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 50, int(args[1]) if len(args) > 1 else 40,
         args[2] if len(args) > 2 else None)
