"""The engine's background trial writer and Dask chunk sizes (issue 37)."""

from __future__ import annotations

import json
import threading
import time

import pytest

from pairlab.sweep.engine import run_tasks
from pairlab.sweep.executors import DaskExecutor, Task
from pairlab.sweep.store import Recorded, StoreWriter, TrialStore


def _square(x: int) -> dict[str, int]:
    return {"x": x, "y": x * x}


def test_every_trial_is_on_disk_when_run_tasks_returns(tmp_path):
    store = TrialStore(tmp_path)
    tasks = [Task(f"k{i:03d}", _square, (i,)) for i in range(25)]
    result = run_tasks(tasks, store, progress=None)
    assert result.values == [{"x": i, "y": i * i} for i in range(25)]
    assert all(store.get(t.key) == (True, v) for t, v in zip(tasks, result.values, strict=True))
    again = run_tasks(tasks, store, progress=None)
    assert again.stored == 25 and again.values == result.values


class _SlowStore(TrialStore):
    """Writes block until released; records how many were waiting at most."""

    def __init__(self, root):
        super().__init__(root)
        self.gate = threading.Event()
        self.started = 0

    def write(self, key, data):
        self.started += 1
        self.gate.wait(5)
        super().write(key, data)


def test_the_writer_stays_at_most_behind_writes_behind(tmp_path):
    store = _SlowStore(tmp_path)
    writer = StoreWriter(store, behind=1)
    assert writer.put("a", {"v": 1}) == {"v": 1}        # returned at once, as read back
    assert len(writer._pending) == 1
    timer = threading.Timer(0.2, store.gate.set)
    timer.start()
    writer.put("b", {"v": 2})                           # waits for "a" first
    assert len(writer._pending) == 1 and ("a" in store)
    writer.close()
    assert "b" in store and not writer._pending


def test_a_failed_write_is_raised_by_close(tmp_path):
    (tmp_path / "ke").write_text("a file where the trial's folder should be")
    writer = StoreWriter(TrialStore(tmp_path), behind=1)
    writer.put("key", {"v": 1})
    with pytest.raises(OSError):
        writer.close()


def test_synchronous_writer_writes_before_returning(tmp_path):
    store = TrialStore(tmp_path)
    StoreWriter(store, behind=0).put("key", [1.5, None])
    assert store.get("key") == (True, [1.5, None])


def test_a_trial_file_records_its_time_and_files_without_one_still_load(tmp_path):
    store = TrialStore(tmp_path)
    store.put("timed", {"v": 1}, took=Recorded(0.25, 0.125))
    assert store.get_record("timed") == (True, {"v": 1}, Recorded(0.25, 0.125))
    assert store.get("timed") == (True, {"v": 1})
    store.put("old", {"v": 2})                          # as files were written before
    head = json.loads(store.path("old").read_bytes().partition(b"\n")[0])
    assert "wall_seconds" not in head and "cpu_seconds" not in head
    assert store.get_record("old") == (True, {"v": 2}, None)
    assert not store.corrupt


@pytest.mark.parametrize("fields", [{"wall_seconds": -1.0, "cpu_seconds": 0.1},
                                    {"wall_seconds": "1", "cpu_seconds": 0.1},
                                    {"wall_seconds": 1.0, "cpu_seconds": float("nan")},
                                    {"wall_seconds": 1.0}])
def test_a_damaged_recorded_time_sets_the_file_aside(tmp_path, fields):
    store = TrialStore(tmp_path)
    store.put("k", [1], took=Recorded(1.0, 0.5))
    head, _, payload = store.path("k").read_bytes().partition(b"\n")
    header = {k: v for k, v in json.loads(head).items() if k not in ("wall_seconds", "cpu_seconds")}
    store.path("k").write_bytes(json.dumps({**header, **fields}).encode() + b"\n" + payload)
    assert store.get_record("k") == (False, None, None) and store.corrupt == ["k"]
    assert store.path("k").with_suffix(".corrupt").is_file()


def test_the_engine_records_each_trials_time_and_reports_it_when_reused(tmp_path):
    store = TrialStore(tmp_path)
    tasks = [Task(f"k{i}", _square, (i,)) for i in range(3)]
    first = run_tasks(tasks, store, progress=None)
    assert first.reused_seconds == [None] * 3 and first.reused_time() == (0.0, 0.0, 0)
    again = run_tasks(tasks, store, progress=None)
    assert again.seconds == [0.0] * 3 and again.cpu_seconds == [0.0] * 3
    assert again.reused_seconds == first.seconds and again.reused_cpu_seconds == first.cpu_seconds
    assert again.reused_time() == (sum(first.seconds), sum(first.cpu_seconds), 0)


def test_trial_files_are_written_whole_and_leave_no_temporary_file(tmp_path):
    import shutil

    store = TrialStore(tmp_path)
    big = list(range(200_000))                          # more than one write() may take at once
    store.put("abc", big)
    assert store.get("abc") == (True, big)
    shutil.rmtree(store.path("abc").parent)             # its folder removed during the run
    store.put("abd", {"v": 1})
    store.put("abd", {"v": 2})                          # replaces the file
    assert store.get("abd") == (True, {"v": 2})
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["ab", "abd.trial"]


@pytest.mark.parametrize("per_trial,remaining,workers,size", [
    (None, 300, 2, 1),        # trial time unknown: one trial a task
    (0.02, 300, 2, 12),       # about CHUNK_SECONDS (0.25 s) of 20 ms trials
    (0.02, 20, 2, 5),         # near the end: an equal share for each chunk in flight
    (3.0, 300, 2, 1),         # long trials: one a task
    (0.001, 10_000, 0, 250),  # a remote cluster that reports no workers yet counts one
])
def test_dask_chunk_sizes(per_trial, remaining, workers, size):
    ex = DaskExecutor.__new__(DaskExecutor)
    ex.workers = workers
    assert ex._chunk_size(per_trial, remaining) == size


_SEEN: list[bool] = []


def _previous_on_disk(root: str, previous: str | None) -> int:
    _SEEN.append(previous is None or previous in TrialStore(root))
    return len(_SEEN)


def test_trials_in_this_thread_find_the_previous_trial_on_disk(tmp_path):
    """--jobs 1: each file is written before the next trial starts (no writer thread beside it)."""
    _SEEN.clear()
    keys = [f"k{i:03d}" for i in range(6)]
    tasks = [Task(k, _previous_on_disk, (str(tmp_path), keys[i - 1] if i else None))
             for i, k in enumerate(keys)]

    class Slow(TrialStore):  # a writer thread would still be in here when the next trial starts
        def write(self, key, data):
            time.sleep(0.05)
            super().write(key, data)

    run_tasks(tasks, Slow(tmp_path), progress=None)
    assert _SEEN == [True] * 6


def test_a_rewritten_trial_file_is_unlinked_before_the_rename(tmp_path, monkeypatch):
    """ext4 writes a file to disk at once when a rename replaces another (docs/sweeps.md)."""
    import os

    store = TrialStore(tmp_path)
    store.put("key", {"v": 1})
    replaced, real = [], os.replace

    def spy(src, dst):
        replaced.append(os.path.exists(dst))
        real(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    store.put("key", {"v": 2})
    assert replaced == [False] and store.get("key") == (True, {"v": 2})
