"""The sweep engine's own cost per trial (issue 37), before and after a change, on the bench's sweep
(`pairlab/benchcases/sweep.py`: GMM trials, `--jobs 1`, fresh, store + table + summary + JSON).

Two child processes take turns, one importing pairlab from git revision REV (extracted to a
temporary folder), one from this tree; in each round each child runs the whole sweep and the plain
loop over the same trials (their order alternating from round to round). CPU time is the child's,
every thread included. The engine's cost a trial is CPU(sweep) - CPU(plain loop) of the same round
and child, divided by TRIALS; medians over the rounds. With --canned each trial is replaced by the
row a real trial returned, so the sweep is the engine alone (this hides what a writer thread costs
a trial running beside it).

    python docs/measurements/sweep_engine_cost.py TRIALS ROUNDS REV [--canned]
"""

from __future__ import annotations

import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path


def child(trials: int, canned: bool) -> None:
    """Serve ``sweep`` / ``plain`` requests on stdin with ``wall cpu`` on stdout."""
    import pairlab.sweep.runner as runner
    from pairlab.benchcases.sweep import _executor, _plain_loop, _spec, _sweep

    if canned:  # the plain loop's tasks are made after this too: both sides canned
        tasks, _ = runner.sweep_tasks(_spec(1))
        row = tasks[0].fn(*tasks[0].args)
        runner.run_trial = lambda *args: dict(row)
    fns = {"sweep": _sweep(trials, _executor(1)), "plain": _plain_loop(trials)}
    for fn in fns.values():
        fn()  # warm: imports, BLAS, the store's folder, page cache
    print("ready", flush=True)
    for line in sys.stdin:
        wall, cpu = time.perf_counter(), time.process_time()
        fns[line.strip()]()
        print(time.perf_counter() - wall, time.process_time() - cpu, flush=True)


def main() -> None:
    trials, rounds, rev = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    canned = "--canned" in sys.argv
    root = Path(__file__).resolve().parents[2]
    old = tempfile.mkdtemp(prefix="pairlab-engine-cost-")
    archive = subprocess.run(["git", "-C", str(root), "archive", rev, "pairlab"],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(old, filter="data")
    argv = [sys.executable, __file__, "--child", str(trials), *(["--canned"] if canned else [])]
    kids = {}
    for name, path in ((rev, old), ("this tree", str(root))):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([path, os.environ.get("PYTHONPATH", "")])}
        kids[name] = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, env=env, cwd=tempfile.gettempdir())
        assert kids[name].stdout.readline().strip() == "ready"
    samples: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name in kids}
    for r in range(rounds):
        for name in (list(kids) if r % 2 == 0 else list(kids)[::-1]):
            got = {}
            for what in (("sweep", "plain") if r % 2 == 0 else ("plain", "sweep")):
                kids[name].stdin.write(what + "\n")
                kids[name].stdin.flush()
                got[what] = [float(x) for x in kids[name].stdout.readline().split()]
            samples[name].append((*got["sweep"], *got["plain"]))
        print(f"round {r}: " + ", ".join(f"{n} {s[-1][0]:.2f}/{s[-1][2]:.2f} s" for n, s in
                                          samples.items()), file=sys.stderr, flush=True)
    for kid in kids.values():
        kid.stdin.close()
        kid.wait()
    for name, s in samples.items():
        cost = statistics.median((sc - pc) / trials for _, sc, _, pc in s)
        wall = statistics.median(sw / pw for sw, _, pw, _ in s)
        print(f"{name:10s} engine CPU a trial {1e3 * cost:.3f} ms (sweep - plain loop, median of "
              f"{rounds}); sweep CPU {statistics.median(x[1] for x in s):.2f} s, plain loop "
              f"{statistics.median(x[3] for x in s):.2f} s; wall sweep / plain loop, median of "
              f"rounds {wall:.3f}")


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(int(sys.argv[2]), "--canned" in sys.argv)
    else:
        main()
