"""Writes the .npy inputs of bench/kernels.sh: unit embeddings in clusters
whose members sit near cosine 0.9 of each other (so a 0.9 join finds real
near-duplicates), written in chunks so 200,000 x 1024 fits in little memory.

usage: kernels_data.py OUT.npy N D SEED
"""
import sys

import numpy as np


def main():
    out, n, d, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(n // 8, 1), d)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    # A shared direction puts all items in a cone, as real text and image
    # embeddings are (typical cosines 0.3 to 0.7).
    common = rng.standard_normal(d).astype(np.float32)
    common /= np.linalg.norm(common)
    m = np.lib.format.open_memmap(out, mode="w+", dtype="<f4", shape=(n, d))
    step = 16384
    for s in range(0, n, step):
        e = min(n, s + step)
        c = centres[rng.integers(0, len(centres), e - s)]
        x = 0.8 * common + c + 0.35 * rng.standard_normal((e - s, d)).astype(np.float32) / np.sqrt(d)
        m[s:e] = x / np.linalg.norm(x, axis=1, keepdims=True)
    m.flush()


if __name__ == "__main__":
    main()
