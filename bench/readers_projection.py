"""bench/readers_projection.py: the served readers' work on the whole pool
(prompts, images, prefill tokens per level and reader) and its hours on one
node of 8 x H200, for bench/scale_projection.py (`scale_projection.py
readers [DIR]`, DIR holding bench/served.sh's JSON reports).

Every assumption is a named constant below and is printed beside its
number; the readers and frame sets are those of harness/run/video.go and
harness/attack (their levels from each attacker's Level()).
"""
import json
import math
import os

ITEMS, VIDEOS = 505_518, 123_281  # Video-Index pool (002, section 4.5)
PER_VIDEO = ITEMS / VIDEOS
PERMS = 8  # attack.OptionPermutations: each permuted reader asks 1 + 8 orders
FRAMES = 32  # features.UniformFrames
SYSTEM = 20  # Qwen2.5's default system turn and the chat template around the user turn, in tokens

# The GPU's rate, from published vLLM throughput: vLLM's own check of its
# v0.4.2 release (https://github.com/vllm-project/vllm/pull/4600, 2024-05-04:
# `benchmark_throughput.py --input-len 1000 --output-len 100 --model
# meta-llama/Meta-Llama-3-8B-Instruct` on one H100) gave 20.72 requests/s with
# v0.4.1: 20,720 prompt tokens/s while also decoding 2,072 tokens/s. The
# readers ask for one token, so their work is prefill, which is
# compute-bound: counted in flops (2 x parameters per token), the prompt
# tokens alone of that run sustained 3.33e14 flop/s (its decode time is
# counted as lost, so this is a lower bound of vLLM's prefill rate; later
# vLLM releases are faster). An H200 has the H100's 989 TFLOPS of dense BF16
# (the datasheets), so it is taken to prefill at the same rate: 34% of peak.
PUB_URL = "https://github.com/vllm-project/vllm/pull/4600"
PUB_REQS, PUB_IN, PUB_OUT, PUB_PARAMS = 20.72, 1000, 100, 8.03e9  # Llama-3-8B: 8.03 B parameters
PUB_FLOPS = PUB_REQS * PUB_IN * 2 * PUB_PARAMS
H200_BF16 = 989e12  # dense BF16, the H200 SXM datasheet (the H100 SXM's too)
GPUS = 8
LM_PARAMS = 7.6e9  # Qwen2.5-7B-Instruct (7.61 B, model card); Qwen2.5-VL-7B's, InternVL3-8B's (Qwen2.5-7B) and LLaVA-OneVision-7B's (Qwen2-7B) language models are the same size
# Attention is not counted: at the VLM prompts' 4,800 tokens it adds about
# 4 x 2,400 x 3,584 x 28 = 1.0 GFLOP a token to the 15.2 of the weights
# (Qwen2.5-7B's 28 layers of width 3,584): the hours below are about 6% low
# for the 32-frame readers, under 2% for the text readers.

# Tokens of the text parts, measured by servedsim's tokenizer on the bench's
# prompts unless served.sh's reports say otherwise (replaced below).
TEXT_PROMPT = 103  # options-only and blind prompts, template included (bench/served.sh, 1 server)
TEXT_COMPUTED = 0.58  # the share of those tokens computed, the rest cached (the same run)
QA_TEXT = 100  # a VLM prompt's text after its frames: given line, question, options, instruction
CAPTIONS = 32 * 15  # 32 captions of about 15 tokens, the captions reader's context, one per video
TRANSCRIPT = 400  # an assumed 120 s clip at 2.5 spoken words/s, in tokens, one per video
RETRIEVAL = 500  # the retrieval reader's prompt with its neighbours' pairs (fitPairs), not shared

# VLM families: tokens per 448x252 frame (bench/servedsim/sim/imagetokens.go,
# derived in docs/scale.md), vision-tower flops per frame, and the frames
# the client ends with after refitting to a 32,768-token context.
FAMILIES = {
    # 14 px patches of 448x252: 32 x 18 = 576 through a 675 M ViT; 2x2 merged: 144 + 2.
    "Qwen2.5-VL-7B": dict(tokens=146, vit=2 * 0.675e9 * 576),
    # 2 tiles + thumbnail of 448 px, 1024 patches each through InternViT-300M; 256 tokens a tile + 2.
    "InternVL3-8B": dict(tokens=770, vit=2 * 0.3e9 * 3 * 1024),
    # base + a 1x2 grid of 384 px tiles, 729 patches each through SigLIP-400M; 729 + 27 x 48 + 27.
    "LLaVA-OneVision-7B": dict(tokens=2052, vit=2 * 0.4e9 * 3 * 729),
}
CONTEXT = 32768


def frames_that_fit(per_frame, text=QA_TEXT + SYSTEM):
    """The client halves a prompt's frames until it fits (served.VLM.Score)."""
    n = FRAMES
    while n > 1 and n * per_frame + text > CONTEXT:
        n = (n + 1) // 2
    return n


def readers(per_frame, frames):
    """Per reader: (name, level, prompts, images, prompt tokens, computed
    tokens with ideal sharing, shareable tokens, whether the computed
    tokens were measured as they are). Sharing: a prefix the client
    sends first (frames, captions, transcript) is computed once where the
    prompts that carry it are asked together: a video's items for the
    unseeded sets, an item's 1 + PERMS orders for the seeded ones."""
    P = 1 + PERMS
    img = frames * per_frame
    out = []

    def add(name, level, prompts, images, prefix, text, shared_per):
        # prefix: tokens per prompt that repeat among the prompts of one
        # sharing unit (shared_per prompts); text: the rest. The system
        # turn every request starts with stays cached.
        total = prompts * (SYSTEM + prefix + text)
        ideal = prompts / shared_per * prefix + prompts * text
        out.append((name, level, prompts, images, total, ideal, total - ideal, False))

    # The text readers' sharing is what the bench measured on their own
    # prompts (template, the question across an item's orders): computed
    # = the measured computed share of their tokens, all of it "ideal".
    for name, level in (("options-reader (lm)", "option"), ("blind-reader (lm)", "text")):
        total = ITEMS * P * TEXT_PROMPT
        out.append((name, level, ITEMS * P, 0, total, total * TEXT_COMPUTED, 0, True))
    add("centre-reader (vlm, 1 frame)", "frame", ITEMS * P, ITEMS * P, per_frame, QA_TEXT, P * PER_VIDEO)
    add("captions-reader (lm)", "frame", ITEMS * P, 0, CAPTIONS, QA_TEXT, P * PER_VIDEO)
    add("transcript-reader (lm)", "frame", ITEMS, 0, TRANSCRIPT, QA_TEXT, PER_VIDEO)
    add(f"shuffled-reader (vlm, {frames} frames)", "order", ITEMS * P, ITEMS * P * frames, img, QA_TEXT, P)
    add(f"tenth-reader (vlm, {frames} frames)", "order", ITEMS * P, ITEMS * P * frames, img, QA_TEXT, P)
    add(f"full-video-reader (vlm, {frames} in order)", "order", ITEMS, ITEMS * frames, img, QA_TEXT, PER_VIDEO)
    add("diagnostics (vlm: half1, half2, off1, off2)", "order", 4 * ITEMS, 4 * ITEMS * frames, img, QA_TEXT, PER_VIDEO)
    add("retrieval-reader (lm)", "pool", ITEMS, 0, 0, RETRIEVAL, 1)
    return out


def load(d, name):
    if not d or not os.path.exists(os.path.join(d, name)):
        return None
    return json.load(open(os.path.join(d, name)))


def fmt_h(s):
    return f"{s / 3600:.1f} h" if s >= 3600 else f"{s / 60:.0f} min"


def main(d=None):
    global TEXT_PROMPT, TEXT_COMPUTED
    text1, vg, vi, t8, ceil = (load(d, n) for n in ("text1.json", "vlm-grouped.json", "vlm-item.json", "text8.json", "ceiling.json"))
    text_prompt = TEXT_PROMPT
    if text1:
        text_prompt = text1["prompt_tokens"] / text1["requests"]
        TEXT_COMPUTED = text1["computed_tokens"] / text1["prompt_tokens"]
    # Sharing achieved: of the tokens the bench's grouped order could save
    # against item order, the share it saved (concurrent requests of one
    # video admitted in the same engine step each compute the prefix).
    achieved, why = 0.9, "assumed 90% (bench/served.sh not read)"
    vs = load(d, "vlm-serial.json")
    if vg and vi:
        per_q = vg["prompt_tokens"] / vg["requests"]
        img = vg["image_tokens"] / vg["requests"]
        ideal = vg["requests"] / 4 * (img + SYSTEM) + vg["requests"] * (per_q - img - SYSTEM)
        how = "the frames and system turn counted shared"
        if vs:  # measured: the same items one request at a time
            ideal, how = vs["computed_tokens"], "measured one request at a time"
        achieved = min(1.0, (vi["computed_tokens"] - vg["computed_tokens"]) / (vi["computed_tokens"] - ideal))
        why = (f"measured: grouped computed {vg['computed_tokens']:,} tokens, item order {vi['computed_tokens']:,},"
               f" ideal {ideal:,.0f} ({how}): {achieved:.0%} of the saving")
    # The client's share of the servers' capacity: measured against 8
    # servers at the text readers' request rate. A reader whose requests
    # are fewer than half the client's measured ceiling (requests/s with
    # servers that take no time) is taken to keep them fully busy.
    busy, bwhy = 0.95, "assumed 95%"
    if t8:
        busy, bwhy = t8["busy"], f"measured against 8 servedsim servers ({t8['requests']:,} requests)"
    ceiling = ceil["requests_per_s"] if ceil else 3000.0
    lm_rate = PUB_FLOPS / (2 * LM_PARAMS)
    print()
    print(f"Served readers on the pool: {ITEMS:,} items over {VIDEOS:,} videos ({PER_VIDEO:.1f} a video)")
    print(f"  orders: 1 + {PERMS} permutations for every permuted reader (attack.OptionPermutations); {FRAMES} frames (features.UniformFrames)")
    print(f"  text prompt {text_prompt:.0f} tokens with the template, {TEXT_COMPUTED:.0%} of them computed ({'measured by servedsim on the bench prompts' if text1 else 'assumed'}); VLM text {QA_TEXT}, captions {CAPTIONS}, transcript {TRANSCRIPT}, retrieval {RETRIEVAL} tokens (assumed)")
    print(f"  prefix sharing achieved: {why}")
    print(f"  one H200: vLLM's published {PUB_REQS} requests/s of {PUB_IN} prompt + {PUB_OUT} output tokens on an H100 with an {PUB_PARAMS / 1e9:.2f} B model ({PUB_URL}),"
          f" its prompt tokens alone = {PUB_FLOPS / 1e12:.0f} TFLOP/s ({PUB_FLOPS / H200_BF16:.0%} of the {H200_BF16 / 1e12:.0f} TFLOPS dense BF16 the H100 and H200 datasheets both give),"
          f" taken as the H200's prefill rate = {lm_rate:,.0f} tokens/s at 2 x {LM_PARAMS / 1e9:.1f} B flops/token, plus each family's vision tower per frame at the same flop rate;"
          f" attention not counted (about 6% more at the 32-frame prompts)")
    print(f"  the client keeps the {GPUS} GPUs {busy:.0%} busy ({bwhy}) where a reader needs more than half its ceiling of {ceiling:,.0f} requests/s"
          f" ({'measured, 8 servers that take no time' if ceil else 'assumed'}); fully busy below that")
    TEXT_PROMPT = text_prompt
    for fam, f in FAMILIES.items():
        frames = frames_that_fit(f["tokens"])
        rows = readers(f["tokens"], frames)
        print()
        print(f"{fam}: {f['tokens']} tokens a frame, {f['vit'] / 1e12:.2f} TFLOP of vision tower a frame; {frames} frames fit {CONTEXT:,} tokens"
              + ("" if frames == FRAMES else f" (the client halves {FRAMES} until they fit)"))
        print(f"  {'reader':<44} {'level':<6} {'prompts':>11} {'images':>12} {'prompt tokens':>15} {'computed':>15} {'8 x H200':>9}")
        by_level = {}
        for name, level, prompts, images, total, ideal, shareable, measured in rows:
            computed = ideal if measured else total - achieved * shareable
            # flops: the language model on every computed token, the vision
            # tower on the images whose tokens are computed (a cached
            # prefix's images are not encoded again), in proportion.
            flops = 2 * LM_PARAMS * computed + f["vit"] * images * (computed / total)
            secs = flops / (PUB_FLOPS * GPUS)
            if prompts / secs > ceiling / 2:
                secs /= busy
            by_level[level] = by_level.get(level, 0) + secs
            print(f"  {name:<44} {level:<6} {prompts:>11,.0f} {images:>12,.0f} {total:>15,.0f} {computed:>15,.0f} {fmt_h(secs):>9}")
        cum = 0
        fits = []
        for level in ("option", "text", "pool", "frame", "order"):  # harness.Levels()
            cum += by_level.get(level, 0)
            fits.append(f"{level} {fmt_h(by_level.get(level, 0))} (to here {fmt_h(cum)}{', fits 4 h' if cum <= 4 * 3600 else ''})")
        print("  by level: " + "; ".join(fits))
        order = by_level.get("order", 0)
        print(f"  the rest: the order level's {fmt_h(order)} on one node; the whole pool in 4 h takes {math.ceil(cum / (4 * 3600))} nodes"
              f" (the shards split the readers' work by video), or one node {cum / (4 * 3600):.1f}x longer than 4 h")
