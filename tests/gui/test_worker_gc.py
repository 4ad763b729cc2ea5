"""The executor keeps Python's cyclic collector off while a job runs on its worker thread, so no
collection destroys the GUI thread's Qt wrappers there (a deadlock seen in the suite)."""

from __future__ import annotations

import gc

from pairlab.gui.worker import Executor


def test_collector_is_off_during_a_job_and_restored_after(qtbot):
    executor = Executor()
    seen = []
    try:
        assert gc.isenabled()
        for _ in range(3):
            executor.submit(lambda job: seen.append(gc.isenabled()))
        assert executor.wait_idle(10)
        assert seen == [False, False, False]
        assert gc.isenabled()

        def fails(job):
            seen.append(gc.isenabled())
            raise ValueError("boom")

        errors = []
        executor.submit(fails, on_error=errors.append)
        assert executor.wait_idle(10)
        assert seen[-1] is False and isinstance(errors[0], ValueError)
        assert gc.isenabled()
    finally:
        executor.shutdown()
    assert gc.isenabled()


def test_collector_state_is_kept_when_it_was_off(qtbot):
    executor = Executor()
    gc.disable()
    try:
        executor.submit(lambda job: None)
        assert executor.wait_idle(10)
        assert not gc.isenabled()
    finally:
        gc.enable()
        executor.shutdown()
