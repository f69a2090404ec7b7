"""Read vidscreen's request bodies as vLLM and SGLang read their media parts.

Input (JSON on stdin): {"video_body": str, "images_body": str}, two chat
request bodies for the same frames, one with the frames as one video_url part
and one with an image_url part each.

vLLM (vllm/multimodal/media/connector.py and video.py): a data URL is split at
its first comma into "MEDIA;base64" and the data; VideoMediaIO.load_base64 for
"video/jpeg" splits the data at commas and opens each piece as a JPEG with
Pillow (ImageMediaIO: Image.open, then RGB). An image_url's data URL is one
JPEG. SGLang (python/sglang/srt/utils load_video): everything after the first
comma is base64-decoded with validate=True and opened as a container file.

Output: the frame counts, each frame's size, the largest pixel difference
between the two readings, and the error SGLang's decoding raises ("" if none).
"""
import base64
import binascii
import io
import json
import sys

import numpy as np
from PIL import Image


def parts(body, kind):
    req = json.loads(body)
    out = []
    for m in req["messages"]:
        if isinstance(m["content"], list):
            out += [p[kind]["url"] for p in m["content"] if p["type"] == kind]
    return out


def vllm_split(url):
    assert url.startswith("data:")
    spec, data = url[len("data:"):].split(",", 1)
    media, enc = spec.split(";", 1)
    assert enc == "base64", enc
    return media, data


def jpeg(b64):
    im = Image.open(io.BytesIO(base64.b64decode(b64)))
    im.load()
    return np.asarray(im.convert("RGB"))


def main():
    req = json.load(sys.stdin)
    videos = parts(req["video_body"], "video_url")
    images = parts(req["images_body"], "image_url")
    assert len(videos) == 1, len(videos)
    media, data = vllm_split(videos[0])
    assert media.lower() == "video/jpeg", media
    vframes = [jpeg(f) for f in data.split(",")]
    iframes = []
    for u in images:
        media, data = vllm_split(u)
        assert media == "image/jpeg", media
        iframes.append(jpeg(data))
    diff = 0
    for a, b in zip(vframes, iframes):
        if a.shape != b.shape:
            diff = 255
            continue
        diff = max(diff, int(np.abs(a.astype(np.int16) - b.astype(np.int16)).max()))
    sglang = ""
    try:
        base64.b64decode(videos[0].split(",", 1)[1], validate=True)
    except binascii.Error as e:
        sglang = str(e)
    json.dump({
        "video_frames": len(vframes),
        "image_frames": len(iframes),
        "sizes": [[int(f.shape[1]), int(f.shape[0])] for f in vframes],
        "max_diff": diff,
        "sglang_error": sglang,
    }, sys.stdout)


main()
