"""The experiment engine: sweeps of methods x data x links x noise x trials, resumable, on local
processes or a Dask cluster; ``pairlab reproduce`` runs its trials through it too.

* :mod:`.spec` reads and checks a sweep (TOML or flags); :mod:`.grid` multiplies it out into cells
  with content keys and derived seeds;
* :mod:`.engine` runs tasks not yet in the :mod:`.store` on an executor from :mod:`.executors` and
  persists each as it finishes; :mod:`.trial` is one sweep trial as a worker runs it;
* :mod:`.runner` writes the tidy table, the summary (:mod:`.table`) and the provenance JSON;
* :mod:`.command` is ``pairlab sweep``; :mod:`.figures` draws the summary (presentation layer).
"""

from .engine import EngineResult, Interrupted, run_tasks
from .executors import Task, make_executor
from .grid import Cell, SweepSpec
from .runner import SweepResult, run_sweep
from .spec import load_spec, parse_spec
from .store import TrialStore

__all__ = ["Cell", "EngineResult", "Interrupted", "SweepResult", "SweepSpec", "Task", "TrialStore",
           "load_spec", "make_executor", "parse_spec", "run_sweep", "run_tasks"]
