"""CSC's sparse eigenproblem: LOBPCG (the code before issue 37's change) against shift-invert Lanczos
(``sparse_spectral._low_subspace`` now) on the same L_bar, CPU times in one process.

Run: ``OPENBLAS_NUM_THREADS=1 python docs/measurements/csc_eigensolvers.py [N]`` (default 10000;
LOBPCG only up to 30000). Data: 4 blobs in 2-D (``blobs(N, 2, 4, std=1.5)``), k = 10 neighbours,
19 vectors (CSC's default for K = 4). Prints the CPU seconds and the lowest Ritz values of both.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from pairlab_builtins.algorithms.sparse_spectral import _low_subspace, knn_affinity
from scipy import sparse
from scipy.sparse.linalg import LinearOperator, lobpcg, splu

from pairlab.benchcases.gmm import blobs


def lobpcg_subspace(Lb: sparse.csr_matrix, v0: np.ndarray, m: int) -> np.ndarray:
    """The former solver: LOBPCG preconditioned by an LU of L_bar + 1e-6 I, tol 1e-9."""
    n = Lb.shape[0]
    lu = splu((Lb + 1e-6 * sparse.identity(n, format="csr")).tocsc())
    M = LinearOperator((n, n), matvec=lu.solve, matmat=lu.solve, dtype=float)
    X0 = np.random.default_rng(0).standard_normal((n, m))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, P = lobpcg(Lb, X0, M=M, Y=v0[:, None], largest=False, tol=1e-9, maxiter=500)
    P, _ = np.linalg.qr(P - v0[:, None] * (v0 @ P)[None, :])
    return P


def main(n: int, m: int = 19) -> None:
    X, _ = blobs(n, 2, 4, std=1.5)
    A = knn_affinity(X, 10)
    d = np.asarray(A.sum(axis=1)).ravel()
    S = sparse.diags(1.0 / np.sqrt(d))
    Lb = (sparse.identity(n, format="csr") - S @ A @ S).tocsr()
    v0 = np.sqrt(d) / np.sqrt(d.sum())
    solvers = {"shift-invert Lanczos": _low_subspace}
    if n <= 30_000:
        solvers["LOBPCG"] = lobpcg_subspace
    for name, solve in solvers.items():
        start = time.process_time()
        P = solve(Lb, v0, m)
        cpu = time.process_time() - start
        ritz = np.sort(np.linalg.eigvalsh(P.T @ (Lb @ P)))[:8]
        print(f"{name}: {cpu:.2f} s CPU; lowest Ritz values {np.array2string(ritz, precision=8)}",
              flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
