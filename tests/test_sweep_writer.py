"""The engine's background trial writer and Dask chunk sizes (issue 37)."""

from __future__ import annotations

import hashlib
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
    (tmp_path / "log").write_text("a file where the store's log folder should be")
    writer = StoreWriter(TrialStore(tmp_path), behind=1)
    writer.put("key", {"v": 1})
    with pytest.raises(OSError):
        writer.close()


def test_synchronous_writer_writes_before_returning(tmp_path):
    store = TrialStore(tmp_path)
    StoreWriter(store, behind=0).put("key", [1.5, None])
    assert store.get("key") == (True, [1.5, None])


def _legacy_file(store, key, value, **fields):
    """A trial file as stores wrote them before the log (``root/ab/<key>.trial``)."""
    payload = json.dumps(value).encode()
    header = {"key": key, "encoding": "json", "length": len(payload),
              "sha256": hashlib.sha256(payload).hexdigest(), **fields}
    store.path(key).parent.mkdir(parents=True, exist_ok=True)
    store.path(key).write_bytes(json.dumps(header).encode() + b"\n" + payload)


def test_a_record_keeps_its_time_and_older_files_without_one_still_load(tmp_path):
    store = TrialStore(tmp_path)
    store.put("timed", {"v": 1}, took=Recorded(0.25, 0.125))
    assert store.get_record("timed") == (True, {"v": 1}, Recorded(0.25, 0.125))
    assert store.get("timed") == (True, {"v": 1})
    _legacy_file(store, "old", {"v": 2})                # a file from before times were recorded
    _legacy_file(store, "older", {"v": 3}, wall_seconds=0.5, cpu_seconds=0.25)
    reader = TrialStore(tmp_path)
    assert reader.get_record("old") == (True, {"v": 2}, None)
    assert reader.get_record("older") == (True, {"v": 3}, Recorded(0.5, 0.25))
    assert reader.get_record("timed") == (True, {"v": 1}, Recorded(0.25, 0.125))
    assert reader.keys() == ["old", "older", "timed"] and not reader.corrupt
    reader.put("old", {"v": 4})                         # a record replaces an older file
    assert TrialStore(tmp_path).get("old") == (True, {"v": 4})


_BAD_TIMES = [{"wall_seconds": -1.0, "cpu_seconds": 0.1}, {"wall_seconds": "1", "cpu_seconds": 0.1},
              {"wall_seconds": 1.0, "cpu_seconds": float("nan")}, {"wall_seconds": 1.0}]


def _edit_header(log, **fields):
    """Rewrite the header of a log's only record (the payload, its length and checksum kept)."""
    head, _, rest = log.read_bytes().partition(b"\n")
    header = {k: v for k, v in json.loads(head).items() if k not in ("wall_seconds", "cpu_seconds")}
    log.write_bytes(json.dumps({**header, **fields}).encode() + b"\n" + rest)


@pytest.mark.parametrize("fields", _BAD_TIMES)
def test_a_damaged_recorded_time_is_reported_and_the_record_not_used(tmp_path, fields):
    store = TrialStore(tmp_path)
    store.put("k", [1], took=Recorded(1.0, 0.5))
    store.close()
    (log,) = (tmp_path / "log").iterdir()
    _edit_header(log, **fields)
    reader = TrialStore(tmp_path)
    assert reader.get_record("k") == (False, None, None) and reader.corrupt == ["k"]
    reader.put("k", [2], took=Recorded(1.0, 0.5))       # recomputed: the new record wins
    again = TrialStore(tmp_path)
    assert again.get("k") == (True, [2]) and not again.corrupt


def test_an_older_stores_damaged_file_is_set_aside(tmp_path):
    store = TrialStore(tmp_path)
    _legacy_file(store, "k", [1], **_BAD_TIMES[0])
    assert store.get_record("k") == (False, None, None) and store.corrupt == ["k"]
    assert store.path("k").with_suffix(".corrupt").is_file() and not store.path("k").exists()


def test_the_engine_records_each_trials_time_and_reports_it_when_reused(tmp_path):
    store = TrialStore(tmp_path)
    tasks = [Task(f"k{i}", _square, (i,)) for i in range(3)]
    first = run_tasks(tasks, store, progress=None)
    assert first.reused_seconds == [None] * 3 and first.reused_time() == (0.0, 0.0, 0)
    again = run_tasks(tasks, store, progress=None)
    assert again.seconds == [0.0] * 3 and again.cpu_seconds == [0.0] * 3
    assert again.reused_seconds == first.seconds and again.reused_cpu_seconds == first.cpu_seconds
    assert again.reused_time() == (sum(first.seconds), sum(first.cpu_seconds), 0)


def test_records_are_written_whole_and_the_newest_wins(tmp_path):
    store = TrialStore(tmp_path)
    big = list(range(200_000))                          # more than one write() may take at once
    store.put("abc", big)
    assert store.get("abc") == (True, big)
    store.put("abd", {"v": 1})
    store.put("abd", {"v": 2})                          # a fresh run's record replaces the older
    assert store.get("abd") == (True, {"v": 2})
    store.close()
    assert [p.suffix for p in tmp_path.rglob("*") if p.is_file()] == [".log"]  # nothing else
    reader = TrialStore(tmp_path)
    assert reader.get("abc") == (True, big) and reader.get("abd") == (True, {"v": 2})


def test_a_torn_last_record_is_left_out_and_a_damaged_log_set_aside_keeping_its_intact_records(
        tmp_path):
    store = TrialStore(tmp_path)
    for i in range(3):
        store.put(f"k{i}", {"i": i})
    store.close()
    (log,) = (tmp_path / "log").iterdir()
    raw = log.read_bytes()
    log.write_bytes(raw[:-5])                           # killed while writing the last record
    torn = TrialStore(tmp_path)
    assert [torn.get(f"k{i}")[0] for i in range(3)] == [True, True, False] and not torn.corrupt
    second = raw.index(b"\n", raw.index(b"\n") + 1) + 1  # where the second record starts
    log.write_bytes(raw[:second] + b"not a header\n" + raw[second:])
    damaged = TrialStore(tmp_path)
    assert damaged.get("k0") == (True, {"i": 0}) and damaged.get("k1") == (False, None)
    assert damaged.corrupt == [f"{log.name} at byte {second}"]
    assert log.with_suffix(".corrupt").is_file() and not log.exists()
    damaged.close()
    assert TrialStore(tmp_path).get("k0") == (True, {"i": 0})   # copied to the reader's log


def test_logs_whose_records_were_all_replaced_are_deleted_unless_still_being_written(tmp_path):
    first = TrialStore(tmp_path)
    first.put("a", 1)
    first.put("b", 1)
    first.close()
    busy = TrialStore(tmp_path)
    busy.put("c", 1)                                    # open for writing (and locked) until closed
    fresh = TrialStore(tmp_path)
    for key in "abc":
        fresh.put(key, 2)
    fresh.close()
    logs = sorted(p.name for p in (tmp_path / "log").iterdir())
    assert len(logs) == 2 and busy._log.rsplit("/", 1)[1] in logs   # the first log is gone
    busy.close()
    reader = TrialStore(tmp_path)
    assert [reader.get(k) for k in "abc"] == [(True, 2)] * 3


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
