#!/usr/bin/python3
"""Times OpenCV sampling N uniform frames by seeking to each one
(CAP_PROP_POS_FRAMES, then read), resizing to short side S and converting
BGR to RGB: the per-frame-seek way many evaluation scripts use.

Prints one tab-separated line per file, as decode_pyav.py does. DECODED is
unknown to OpenCV and printed as 0.
"""
import argparse
import statistics
import sys
import time

import cv2


def sample(path, n, short):
    cap = cv2.VideoCapture(path)
    if not cap.isOpened():
        raise SystemExit(f"decode_opencv: cannot open {path}")
    total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
    f = short / min(w, h)
    size = (max(1, round(w * f)), max(1, round(h * f)))
    idx = [round(i * (total - 1) / (n - 1)) for i in range(n)] if n > 1 else [(total - 1) // 2]
    kept = 0
    for i in idx:
        cap.set(cv2.CAP_PROP_POS_FRAMES, i)
        ok, img = cap.read()
        if not ok:
            continue
        img = cv2.cvtColor(cv2.resize(img, size, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB)
        kept += 1
    cap.release()
    return kept, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=32)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    for f in a.files:
        secs = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            kept, total = sample(f, a.frames, a.size)
            secs.append(time.perf_counter() - t)
        print(f"opencv\t{f}\t{statistics.median(secs):.4f}\t{kept}\t0\t{total}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
