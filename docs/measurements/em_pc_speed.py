"""CPU seconds of one GM-PR and one EM-PC fit on the digits with 64 and 256 cannot-links (the
counts of GM-PR's Fig. 7), in one process: python docs/measurements/em_pc_speed.py"""

import time
import warnings

import numpy as np

from pairlab import get_registry
from pairlab.links import random_pairs
from pairlab.run import Run

warnings.simplefilter("ignore")
for classes in ("1,2,3", "4,5,6,7"):
    data = get_registry().dataset("digits").make(seed=0, classes=classes)
    k = len(classes.split(","))
    for count in (64, 256):
        links = random_pairs(data.y, 0, count, np.random.default_rng(count))
        for algorithm in ("gmpr", "em-pc"):
            start = time.process_time()
            run = Run(algorithm, data, links, {"n_components": k}, seed=1)
            run.run()
            print(f"digits {classes}, {count} cannot-links, {algorithm}: {run.n_iter} iterations, "
                  f"{time.process_time() - start:.2f} s CPU", flush=True)
