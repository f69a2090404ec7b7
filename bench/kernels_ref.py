"""The reference side of bench/kernels.sh: the same work as the vidscreen
kernels, through FAISS and numpy, on the same .npy files. Prints one JSON
object.

usage: kernels_ref.py join A.npy TAU THREADS
       kernels_ref.py vendi V.npy T.npy REPEATS
"""
import ctypes
import json
import sys
import time

import numpy as np


def blas_info():
    """Which OpenBLAS kernel numpy runs (threadpoolctl is not installed)."""
    for name in ("libopenblas.so.0", "libblas.so.3"):
        try:
            lib = ctypes.CDLL(name)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return {"lib": name, "core": lib.openblas_get_corename().decode(),
                    "threads": lib.openblas_get_num_threads()}
        except (OSError, AttributeError):
            continue
    return {"lib": "unknown"}


def join(path, tau, threads):
    import faiss
    faiss.omp_set_num_threads(threads)
    x = np.load(path)
    x = np.ascontiguousarray(x / np.linalg.norm(x, axis=1, keepdims=True), dtype=np.float32)
    t0 = time.perf_counter()
    index = faiss.IndexFlatIP(x.shape[1])
    index.add(x)
    # FAISS keeps inner products strictly above the radius.
    lims, dist, ids = index.range_search(x, tau)
    sec = time.perf_counter() - t0
    rows = np.repeat(np.arange(len(x)), np.diff(lims).astype(np.int64))
    pairs = int(np.count_nonzero(ids > rows))
    return {"tool": "faiss IndexFlatIP range_search", "faiss": faiss.__version__, "threads": threads,
            "n": len(x), "d": x.shape[1], "seconds": sec, "pairs": pairs}


def entropy(lam):
    lam = lam[lam > len(lam) * 2.0**-52 * lam.max()]
    return float(-(lam * np.log(lam)).sum())


def vendi(vpath, tpath, repeats):
    v = np.load(vpath).astype(np.float64)
    t = np.load(tpath).astype(np.float64)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    n = len(v)
    best_total = best_eig = float("inf")
    sum_total = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        k = (v @ v.T) * (t @ t.T) / n
        t1 = time.perf_counter()
        lam = np.linalg.eigvalsh(k)
        t2 = time.perf_counter()
        h = entropy(lam)
        best_total, best_eig = min(best_total, t2 - t0), min(best_eig, t2 - t1)
        sum_total += t2 - t0
    return {"tool": "numpy eigvalsh", "numpy": np.__version__, "blas": blas_info(), "n": n,
            "seconds_total": best_total, "seconds_total_mean": sum_total / repeats, "seconds_eigvalsh": best_eig, "entropy": h, "score": float(np.exp(h))}


if __name__ == "__main__":
    if sys.argv[1] == "join":
        print(json.dumps(join(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]))))
    else:
        print(json.dumps(vendi(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
