#!/usr/bin/python3
"""Prints bench/decode.sh's table from its raw timings (.cache/bench-decode.tsv):
one line per run, TOOL FILE SECONDS RETURNED DECODED TOTAL_FRAMES, or
pool WORKERSxTHREADS SECONDS VIDEOS FRAMES. Each tool's best run per file
is kept (the machine may be shared; the best run is the least disturbed).
"""
import collections
import os
import sys


def main(path):
    rows = collections.defaultdict(dict)
    pool = {}
    rounds = collections.Counter()
    for line in open(path):
        p = line.rstrip("\n").split("\t")
        if p[0] == "pool":
            secs = float(p[2])
            if p[1] not in pool or secs < pool[p[1]][0]:
                pool[p[1]] = (secs, int(p[3]), int(p[4]))
            continue
        tool, f, secs, ret, dec, total = p[0], p[1], float(p[2]), int(p[3]), int(p[4]), int(p[5])
        rounds[(tool, f)] += 1
        if tool not in rows[f] or secs < rows[f][tool][0]:
            rows[f][tool] = (secs, ret, dec, total)
    n = max(rounds.values(), default=0)
    print(f"Sampling 32 uniform frames at short side 224 (RGB): seconds per video, best of {n} rounds.")
    print("ffmpeg = `ffmpeg -threads 2 -i F -f null -` decoding every frame; vidscreen with 2 FFmpeg threads.")
    print()
    hdr = ["file", "frames", "vidscreen s", "decoded/returned", "pyav s", "pyav-auto s", "opencv s", "ffmpeg s",
           "x pyav", "x pyav-auto", "x opencv", "x ffmpeg", "decoded fps / ffmpeg fps"]
    print("| " + " | ".join(hdr) + " |")
    print("|" + "|".join("---" for _ in hdr) + "|")
    for f, t in rows.items():
        vs = t["vidscreen"]
        total = vs[3]

        def sec(k):
            return f"{t[k][0]:.3f}" if k in t else "-"

        def ratio(k):
            return f"{t[k][0] / vs[0]:.2f}" if k in t else "-"

        ff = t["ffmpeg"][0] if "ffmpeg" in t else float("nan")
        ffps, dfps = total / ff, vs[2] / vs[0]
        print("| " + " | ".join([
            os.path.basename(f), str(total), sec("vidscreen"), f"{vs[2]} / {vs[1]} = {vs[2] / max(vs[1], 1):.1f}",
            sec("pyav"), sec("pyav-auto"), sec("opencv"), sec("ffmpeg"),
            ratio("pyav"), ratio("pyav-auto"), ratio("opencv"), ratio("ffmpeg"),
            f"{dfps:.0f} / {ffps:.0f} = {dfps / ffps:.2f}",
        ]) + " |")
    print()
    print("x TOOL = TOOL's time / vidscreen's time (above 1: vidscreen is faster). pyav: PyAV's default")
    print("(slice) threads, as lmms-eval leaves it; pyav-auto: PyAV with thread_type AUTO (frame threads).")
    print("decoded/returned: frames vidscreen decoded per frame returned (unreferenced frames no target")
    print("needs are skipped on constant-rate streams). decoded fps / ffmpeg fps: vidscreen's decoded")
    print("frames per second, open, seeks and resizing included, against ffmpeg's full-decode rate.")
    if pool:
        print()
        print("| pool (decoders x threads) | videos | seconds | videos/s | frames/s |")
        print("|---|---|---|---|---|")
        for wt, (secs, videos, frames) in sorted(pool.items()):
            print(f"| {wt} | {videos} | {secs:.2f} | {videos / secs:.2f} | {frames / secs:.0f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".cache/bench-decode.tsv")
