#!/usr/bin/env python3
"""bench/scale_projection.py: the projection table at the end of bench/scale.sh.

`scale_projection.py readers [DIR]` prints the served readers' part
instead (bench/readers_projection.py; DIR holds bench/served.sh's reports).

Reads the rates bench/scale.sh measured (one KEY=VALUE per line on stdin; a
value may be empty when a measurement could not run) and prints, per stage of
the whole Video-Index pool (505,518 items over 123,281 videos), the rate
measured here, the rate assumed on one H200 with where it comes from, and the
projected wall time on one node of 8 x H200 and on N such nodes. Every
assumption is printed next to its number; change them below, not in the
output.
"""
import math
import os
import sys

if len(sys.argv) > 1 and sys.argv[1] == "readers":
    # The served readers' prompts, images and tokens (bench/readers_projection.py).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
    import readers_projection
    readers_projection.main(sys.argv[2] if len(sys.argv) > 2 else None)
    sys.exit(0)

ITEMS, VIDEOS = 505_518, 123_281  # Video-Index pool (002, section 4.5)

m = {}
for line in sys.stdin:
    line = line.strip()
    if "=" in line:
        k, v = line.split("=", 1)
        m[k] = float(v) if v not in ("", "nan") else None

def fmt_rate(x, unit):
    return "-" if x is None else f"{x:,.1f} {unit}"

def fmt_time(s):
    if s is None:
        return "-"
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s/60:.1f} min"
    return f"{s/3600:.1f} h"

cores_here = m.get("cores") or 2
gpu_here = bool(m.get("gpu"))

# --- work of the whole pool -------------------------------------------------
# Frames decoded per video: 32 uniform + 1 centre + ~1 fps over the clip; an
# assumed mean clip of 120 s gives ~153 returned frames per video (Video-Index
# does not publish the mean duration of its pool; NExT-QA's is 44 s, STAR's
# clips 10-40 s, long-video benchmarks minutes).
FRAMES_PER_VIDEO = 32 + 1 + 120
frames = VIDEOS * FRAMES_PER_VIDEO
# image_text embeds every returned frame once (frames are cached per video);
# the captioner captions the 32 uniform frames; text_embed (BGE) embeds per
# item the question+options text and the question (2 texts); the lm_reader
# reads each item twice (options-only and blind) on 5 orders.
captions = VIDEOS * 32
texts = ITEMS * 2
prompts = ITEMS * 2 * 5

# --- H200 figures -------------------------------------------------------------
# Published (NVIDIA H200 SXM datasheet): 989 TFLOPS dense BF16 tensor, 7 NVDEC.
H200_BF16 = 989e12
MFU = 0.35  # assumed fraction of peak a batched ONNX Runtime encoder reaches
NVDEC_ENGINES = 7
NVDEC_FPS = 700  # assumed 1080p H.264 frames/s per NVDEC engine; bench/decode_gpu_check.sh measures it
# Model flops per input (2 x parameters x tokens):
FLOPS = {
    # SigLIP2-so400m/14 at 384 px: 0.4 B params x 729 patches.
    "image_text": 2 * 0.4e9 * 729,
    # BGE-large: 335 M params x 64 tokens.
    "text_embed": 2 * 0.335e9 * 64,
    # ViT-GPT2 captioner: ViT-B/16 encoder (86 M x 197) + GPT-2 (124 M) x 32 new tokens.
    "captioner": 2 * 86e6 * 197 + 2 * 124e6 * 32,
    # Qwen2.5-0.5B reader: one prefill of ~200 tokens.
    "lm_reader": 2 * 0.5e9 * 200,
}
gpu_rate = {k: H200_BF16 * MFU / f for k, f in FLOPS.items()}
# A measured GPU rate replaces the assumed one.
for k, key in (("image_text", "gpu_image_text"), ("text_embed", "gpu_text_embed")):
    if m.get(key):
        gpu_rate[k] = m[key]
decode_gpu = m.get("gpu_decode_fps") or NVDEC_ENGINES * NVDEC_FPS

# CPU stages after the features (attack, duplicates, cards) run on the node's
# cores: an 8 x H200 node is assumed to have 96 usable cores, and the
# attack scales with cores (its units run in parallel; measured at
# `cores` cores here).
NODE_CORES = 96
attack_here = m.get("attack_items_s")  # items/s through every attacker, all orders
dups_here = m.get("dups_items_s")
cards_here = m.get("cards_items_s")
join_gflops = m.get("join_gflops")
scale = NODE_CORES / cores_here

rows = []
def row(stage, here, unit, gpu, why, work, per_node_gpus):
    t1 = None if not gpu else work / (gpu * per_node_gpus)
    rows.append((stage, fmt_rate(here, unit), fmt_rate(gpu, unit + " per H200" if per_node_gpus == 8 else unit), why, work, t1))

row("decode", m.get("decode_fps"), "frames/s", decode_gpu,
    "measured on the H200" if m.get("gpu_decode_fps") else f"{NVDEC_ENGINES} NVDEC x {NVDEC_FPS} frames/s (assumed); {FRAMES_PER_VIDEO} frames/video (assumed 120 s clips)",
    frames, 8)
for role, here_key, unit, work in (("image_text", "cpu_image_text", "images/s", frames),
                                   ("text_embed", "cpu_text_embed", "texts/s", texts),
                                   ("captioner", "cpu_captioner", "captions/s", captions),
                                   ("lm_reader", "cpu_lm_reader", "prompts/s", prompts)):
    measured = role in ("image_text", "text_embed") and m.get("gpu_" + role)
    why = "measured on the H200" if measured else f"{FLOPS[role]/1e9:,.0f} GFLOP/input at {MFU:.0%} of 989 TFLOPS BF16"
    row("inference " + role, m.get(here_key), unit, gpu_rate[role], why, work, 8)

print()
print(f"Projection: the Video-Index pool, {ITEMS:,} items over {VIDEOS:,} videos")
print(f"(measured here: {int(cores_here)} cores{', GPU present' if gpu_here else ', no GPU'}; a '-' rate was not measured)")
print("(inference here: text_embed is BERT-base with 4 layers; image_text, captioner and lm_reader are the")
print(" project's small models, whose CPU rates do not carry over to SigLIP2, ViT-GPT2 or Qwen: the H200")
print(" column comes from the models' flops, not from them)")
print()
hdr = ("stage", "measured here", "one H200 (assumed unless marked)", "assumption", "8 x H200")
w = [22, 22, 30, 0, 10]
print(f"{hdr[0]:<22} {hdr[1]:>22} {hdr[2]:>30}  {hdr[4]:>10}  {hdr[3]}")
feat = 0.0
for stage, here, gpu, why, work, t1 in rows:
    print(f"{stage:<22} {here:>22} {gpu:>30}  {fmt_time(t1):>10}  {why}")
    if t1:
        feat += t1
# Decode runs on NVDEC while inference runs on the tensor cores: the feature
# stage of a node takes about the larger of the two, not the sum.
dec = rows[0][5] or 0
inf = sum(r[5] or 0 for r in rows[1:])
feat_node = max(dec, inf)
cpu = 0.0
measured_at = int(m.get("pool_items") or 0)
for stage, here, unit in (("attack", attack_here, "items/s"), ("cards", cards_here, "items/s")):
    if here:
        t = ITEMS / (here * scale)
        cpu += t
        print(f"{stage:<22} {fmt_rate(here, unit):>22} {fmt_rate(here*scale, unit + ' per node'):>30}  {fmt_time(t):>10}  measured on {measured_at:,} items at {int(cores_here)} cores, x{scale:.0f} for {NODE_CORES} cores (assumed linear)")
if join_gflops:
    # The near-duplicate search is an all-pairs join over the pool's
    # questions: 505,518^2/2 pairs x 1024 dims x 2 flops (BGE-large width),
    # which grows as the square of the pool, so it is projected from the
    # join's measured GFLOP/s rather than from the audit's items/s.
    jf = ITEMS * ITEMS * 1024
    t = jf / (join_gflops * 1e9 * scale)
    cpu += t
    print(f"{'duplicates (join)':<22} {join_gflops:>13,.1f} GFLOP/s {join_gflops*scale:>16,.0f} GFLOP/s per node  {fmt_time(t):>10}  {jf/1e12:,.0f} TFLOP all-pairs at 1024 dims on the node's CPUs (x{scale:.0f}, assumed linear)")
elif dups_here:
    t = ITEMS / (dups_here * scale)
    cpu += t
    print(f"{'duplicates':<22} {fmt_rate(dups_here, 'items/s'):>22} {fmt_rate(dups_here*scale, 'items/s per node'):>30}  {fmt_time(t):>10}  measured on {measured_at:,} items; the join grows as the square of the pool, so this is a lower bound")
print()
print(f"one node, 8 x H200: features {fmt_time(feat_node)} (max of decode {fmt_time(dec)} and inference {fmt_time(inf)}: they overlap)"
      f" + attack, duplicates and cards {fmt_time(cpu)} on its CPUs = {fmt_time(feat_node + cpu)}")
for nodes in (1, 2, 4, 8, 16):
    # Shards split the feature stage evenly (--shard i/N by video); the merge
    # (attack, duplicates, cards) runs once, on one node.
    print(f"  {nodes:>2} node{'s' if nodes > 1 else ' '} ({8*nodes:>3} x H200): {fmt_time(feat_node/nodes + cpu):>9}"
          f"  (features {fmt_time(feat_node/nodes)} sharded + merge {fmt_time(cpu)})")
