"""lmms-eval task functions of a vidscreen release.

Written by `vidscreen select --export-lmms-eval DIR`. The tasks of this
directory read the release's items from dataset.jsonl (one document per
item, in release order) and the videos from the directory named by the
environment variable VIDSCREEN_VIDEOS, where each item's video_path (else
its video, with the usual extensions tried when it has none) must lie.

The functions that take a document, a reply or the per-document records are
pure and need nothing beyond the standard library, so that they can be
checked without lmms-eval; only the frame tasks import decord and PIL, and
only when they decode a video.

Replies are read by vidscreen's answer rules (docs/audit.md), so that the
accuracy lmms-eval reports for a model is the one `vidscreen audit` computes
from the same replies: a leading option letter (not the article "A" or the
pronoun "I" opening a sentence), else the last "answer/option/choice is X",
else the text of exactly one option (the reply equal to it, else the only
option the reply contains as whole words), else a bare number n naming
option n counted from 1. A reply that names no option is wrong.
"""

import os
import re

VIDEO_ROOT_ENV = "VIDSCREEN_VIDEOS"
VIDEO_EXTENSIONS = (".mp4", ".webm", ".mkv", ".mov", ".avi", ".m4v", ".ts", ".MP4")
LETTERS = "ABCDEFGHIJKLMNOP"

# ---------------------------------------------------------------- documents


def expand_blind(batch):
    """One row per (item, option order) of a columnar batch: the blind task
    shows every item under each of its seeded orders (blind_orders), and
    order_index says which."""
    keys = list(batch)
    out = {key: [] for key in keys}
    out["order"], out["order_index"] = [], []
    for i, orders in enumerate(batch["blind_orders"]):
        for k, order in enumerate(orders):
            for key in keys:
                out[key].append(batch[key][i])
            out["order"].append([int(j) for j in order])
            out["order_index"].append(k)
    return out


def blind_process_docs(dataset):
    """process_docs of the blind task: expand_blind over a datasets.Dataset."""
    return dataset.map(expand_blind, batched=True, remove_columns=dataset.column_names)


def shown_options(doc):
    """The option texts in the order the model sees them and the index of
    the gold among them: the released order, or one of the blind orders
    (order[j] is the released index of the option shown at j)."""
    options = [str(o) for o in doc["options"]]
    order = doc.get("order") or list(range(len(options)))
    return [options[j] for j in order], list(order).index(int(doc["answer_index"]))


def doc_to_target(doc):
    """The letter of the gold option as shown."""
    return LETTERS[shown_options(doc)[1]]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    """The prompt: the task's intro, a blank line, the question, the
    lettered options and the instruction to reply with a letter: the layout
    of lmms-eval's Video-MME prompt, which `vidscreen import lmms-eval`
    reads the question and options back from."""
    kwargs = lmms_eval_specific_kwargs or {}
    texts, _ = shown_options(doc)
    lines = []
    if kwargs.get("intro"):
        lines += [kwargs["intro"], ""]
    lines.append(str(doc["question"]))
    lines += [LETTERS[j] + ". " + t for j, t in enumerate(texts)]
    if kwargs.get("post_prompt"):
        lines.append(kwargs["post_prompt"])
    return "\n".join(lines)


# ------------------------------------------------------------------- visual


def video_file(doc, environ=None):
    """The item's video file under $VIDSCREEN_VIDEOS: video_path, else video
    (with each of VIDEO_EXTENSIONS tried when it has no extension). A path
    that leaves the root is refused, as vidscreen refuses it."""
    env = os.environ if environ is None else environ
    root = env.get(VIDEO_ROOT_ENV, "")
    if not root:
        raise RuntimeError(VIDEO_ROOT_ENV + " is not set: set it to the video root the release's items name their videos under")
    root = os.path.realpath(os.path.expanduser(root))
    rel = doc.get("video_path") or doc["video"]
    base = os.path.join(root, rel)
    tried = [base]
    if not os.path.splitext(rel)[1]:
        tried += [base + ext for ext in VIDEO_EXTENSIONS]
    for path in tried:
        real = os.path.realpath(path)
        if os.path.commonpath([root, real]) != root:
            raise ValueError("item %s: video %s leaves the video root %s" % (doc["item_id"], rel, root))
        if os.path.isfile(real):
            return real
    raise FileNotFoundError("item %s: no video %s under %s (%s)" % (doc["item_id"], rel, root, VIDEO_ROOT_ENV))


def frame_indices(n_frames, fps, start=None, end=None, rate=1.0, cap=0):
    """The frames sent: the frame nearest each multiple of 1/rate seconds in
    [start, end) (the whole video when the item has no clip bounds), then,
    beyond cap frames, cap of them evenly spread, first and last kept."""
    if n_frames <= 0:
        return []
    if not fps or fps <= 0:
        fps = 1.0
    duration = n_frames / fps
    lo = max(0.0, float(start)) if start is not None else 0.0
    hi = min(duration, float(end)) if end is not None else duration
    if hi <= lo:
        lo, hi = min(lo, duration), min(lo, duration) + 1.0 / rate
    picked = []
    k = 0
    while lo + k / rate < hi:
        i = min(n_frames - 1, int((lo + k / rate) * fps + 0.5))
        if not picked or picked[-1] != i:
            picked.append(i)
        k += 1
    if not picked:
        picked = [min(n_frames - 1, int(lo * fps))]
    if cap and len(picked) > cap:
        if cap == 1:
            return [picked[len(picked) // 2]]
        n = len(picked)
        picked = [picked[j * (n - 1) // (cap - 1)] for j in range(cap)]
    return picked


def doc_to_visual(doc):
    """The video task: the video file; the model wrapper samples its frames."""
    return [video_file(doc)]


def doc_to_visual_blind(doc):
    """The blind task: no visual input."""
    return []


def doc_to_visual_frames(doc, lmms_eval_specific_kwargs=None):
    """The frame tasks: frames at `fps` per second of the item's clip, at
    most `max_frames` (0: no cap), as RGB images, in time order."""
    kwargs = lmms_eval_specific_kwargs or {}
    try:
        import decord
        from PIL import Image
    except ImportError as err:
        raise ImportError("the frame tasks decode videos with decord and PIL: pip install decord pillow") from err
    path = video_file(doc)
    reader = decord.VideoReader(path, ctx=decord.cpu(0), num_threads=1)
    picked = frame_indices(len(reader), reader.get_avg_fps(), doc.get("start"), doc.get("end"),
                           float(kwargs.get("fps", 1.0)), int(kwargs.get("max_frames", 0)))
    frames = reader.get_batch(picked).asnumpy()
    return [Image.fromarray(frame).convert("RGB") for frame in frames]


# ------------------------------------------------------------------ replies

_LEADING_LETTER = re.compile(r"^[(\[]?([A-P])(?:[)\].:,]|[\t\n\f\r ]|\Z)")
_ANSWER_IS = re.compile(r"(?i:answer|option|choice)[\t\n\f\r ]*(?:(?i:is)[\t\n\f\r ]*)?[:\-]?[\t\n\f\r ]*[(\[]?([A-P])\b", re.ASCII)
_NUMBER = re.compile(r"^\(?([0-9]{1,2})\)?[.:)]?\Z")


def normalize(s):
    """Lower case, punctuation and spacing as single spaces: "A dog." is "a dog"."""
    out, space = [], True
    for ch in str(s).lower():
        if ch.isalpha() or ch.isdecimal():
            out.append(ch)
            space = False
        elif not space:
            out.append(" ")
            space = True
    return "".join(out).strip()


def _strip_letter_prefix(s):
    t = s.lstrip(" \t")
    if t and t[0] in "([":
        t = t[1:]
    if len(t) < 3 or not ("A" <= t[0] <= "P") or t[1] not in ".):]":
        return s
    rest = t[2:].lstrip(" \t\n\r")
    if len(rest) == len(t) - 2:
        return s
    return rest


def _match_text(s, options):
    want = normalize(_strip_letter_prefix(s))
    if not want:
        return -1
    found = -1
    for i, o in enumerate(options):
        if normalize(_strip_letter_prefix(o)) == want:
            if found >= 0:
                return -1
            found = i
    return found


def _contained_option(reply, options):
    r = " " + normalize(reply) + " "
    texts = [normalize(_strip_letter_prefix(o)) for o in options]
    hits = [i for i, t in enumerate(texts) if t and (" " + t + " ") in r]
    kept = [i for i in hits
            if not any(j != i and len(texts[j]) > len(texts[i]) and (" " + texts[i] + " ") in (" " + texts[j] + " ") for j in hits)]
    return kept[0] if len(kept) == 1 else -1


def parse_reply(reply, options):
    """The 0-based index of the option a reply names, or -1."""
    n = min(len(options), len(LETTERS))
    s = str(reply or "").strip()
    m = _LEADING_LETTER.match(s)
    if m:
        i = ord(m.group(1)) - ord("A")
        rest = s[len(m.group(0)):]
        article = m.group(1) in "AI" and m.group(0) == m.group(1) + " " and rest[:1].islower()
        if i < n and not article:
            return i
    stated = list(_ANSWER_IS.finditer(s))
    if stated:
        i = ord(stated[-1].group(1)) - ord("A")
        if i < n:
            return i
    i = _match_text(s, options)
    if i >= 0:
        return i
    i = _contained_option(s, options)
    if i >= 0:
        return i
    m = _NUMBER.match(s)
    if m and 1 <= int(m.group(1)) <= n:
        return int(m.group(1)) - 1
    return -1


# ------------------------------------------------------------------ scoring


def process_results(doc, results):
    """One record per document, under every metric: the item (question_id),
    its video, task, duration and capability group, the order shown, the
    letter read from the reply (pred_answer, "" when it names no option), the
    gold letter (answer) and the score (1 right, 0 wrong). The names are
    those of lmms-eval's Video-MME records, which `vidscreen import
    lmms-eval` reads from a samples log: the items and the replies of a
    video or frame task come back from it. The question and the options as
    shown go in too, so that they come back exactly: the prompt's lines
    alone cannot say where an option holding a line break ends."""
    reply = results[0] if results else ""
    if isinstance(reply, (list, tuple)):
        reply = reply[0] if reply else ""
    texts, gold = shown_options(doc)
    pick = parse_reply(reply, texts)
    record = {
        "question_id": doc["item_id"],
        "question": str(doc["question"]),
        "options": texts,
        "video": doc["video"],
        "task": doc.get("task") or "",
        "duration": doc.get("duration"),
        "group": doc.get("group") or "",
        "order_index": int(doc.get("order_index", 0)),
        "pred_answer": LETTERS[pick] if pick >= 0 else "",
        "answer": LETTERS[gold],
        "score": 1.0 if pick == gold else 0.0,
    }
    return {metric: record for metric in METRICS}


def accuracy(results, group=None):
    """Accuracy in percent over the items (of one capability group): an
    item's documents (its blind orders) are averaged first. nan when no item
    is in the results (a --limit that leaves the group out)."""
    per_item = {}
    for record in results:
        if group is None or record["group"] == group:
            per_item.setdefault(record["question_id"], []).append(float(record["score"]))
    if not per_item:
        return float("nan")
    return 100.0 * sum(sum(s) / len(s) for s in per_item.values()) / len(per_item)


# The release's metrics and their aggregations, one per capability group,
# written by vidscreen for this release:
