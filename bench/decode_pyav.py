#!/usr/bin/python3
"""Times PyAV sampling N uniform frames the way lmms-eval's pyav backend
does: decode the stream from the start, keep the frames whose index is on
the grid round(i(n-1)/(N-1)), stop after the last one, and convert the kept
frames to RGB (here at short side S, the size vidscreen returns).

Prints one tab-separated line per file:
    TOOL  FILE  SECONDS  RETURNED  DECODED  TOTAL_FRAMES
SECONDS is the median of --repeat runs. --threads auto sets PyAV's
thread_type to AUTO (frame threads); the default leaves PyAV's default
(slice threads), as lmms-eval does.
"""
import argparse
import statistics
import sys
import time

import av


def out_size(w, h, short):
    f = short / min(w, h)
    return max(1, round(w * f)), max(1, round(h * f))


def sample(path, n, short, threads):
    with av.open(path) as container:
        stream = container.streams.video[0]
        if threads == "auto":
            stream.thread_type = "AUTO"
        total = stream.frames
        if total <= 0:  # no count in the container (WebM): estimate from the duration
            if stream.duration is not None:
                secs = float(stream.duration * stream.time_base)
            else:
                secs = container.duration / av.time_base
            total = int(round(secs * float(stream.average_rate)))
        wanted = sorted({round(i * (total - 1) / (n - 1)) for i in range(n)}) if n > 1 else [(total - 1) // 2]
        want = set(wanted)
        last = wanted[-1]
        w, h = out_size(stream.codec_context.width, stream.codec_context.height, short)
        kept, decoded = [], 0
        for i, frame in enumerate(container.decode(stream)):
            decoded += 1
            if i in want:
                kept.append(frame.to_ndarray(format="rgb24", width=w, height=h))
            if i >= last:
                break
        return len(kept), decoded, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=32)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", choices=["default", "auto"], default="default")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    tool = "pyav" if a.threads == "default" else "pyav-auto"
    for f in a.files:
        secs = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            kept, decoded, total = sample(f, a.frames, a.size, a.threads)
            secs.append(time.perf_counter() - t)
        print(f"{tool}\t{f}\t{statistics.median(secs):.4f}\t{kept}\t{decoded}\t{total}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
