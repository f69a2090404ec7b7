#!/usr/bin/python3
"""Writes the reference outputs the imageprep tests compare against.

Run with Debian's python3 (python3-pil, python3-numpy, python3-opencv):
    /usr/bin/python3 make_reference.py
or `go test ./models/imageprep -run Reference -regen`.

reference.json indexes reference.bin: each case names its source image,
the operation and the byte range of its output (uint8 HWC RGB for resizes,
float32 little-endian CHW for whole pipelines).
"""
import json

import numpy as np
from PIL import Image
import cv2


def source(w, h, seed):
    # Smooth gradients, a hard edge and noise: exercises interpolation,
    # overshoot clipping (bicubic, Lanczos) and the borders.
    rng = np.random.RandomState(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 255.0 / (w - 1), y * 255.0 / (h - 1), (x + y) % 17 * 15.0], axis=-1)
    img[:, w // 3 : w // 2] = 255 - img[:, w // 3 : w // 2]
    noise = rng.randint(0, 256, size=(h, w, 3))
    mask = rng.rand(h, w, 1) < 0.3
    img = np.where(mask, noise, img)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def hf_pipeline(img, cfg):
    """The steps of transformers' slow CLIP/SigLIP image processors, written out."""
    h, w = img.shape[:2]
    if "shortest_edge" in cfg:
        s = cfg["shortest_edge"]
        short, long = (w, h) if w <= h else (h, w)
        new_long = int(s * long / short)
        nh, nw = (new_long, s) if w <= h else (s, new_long)
    else:
        nh, nw = cfg["height"], cfg["width"]
    arr = np.array(Image.fromarray(img).resize((nw, nh), resample=cfg["resample"], reducing_gap=None))
    if "crop" in cfg:
        ch, cw = cfg["crop"]
        oh, ow = arr.shape[:2]
        top, left = (oh - ch) // 2, (ow - cw) // 2
        if top >= 0 and left >= 0 and top + ch <= oh and left + cw <= ow:
            arr = arr[top : top + ch, left : left + cw]
        else:  # transformers.image_transforms.center_crop pads with zeros
            nh2, nw2 = max(ch, oh), max(cw, ow)
            pad = np.zeros((nh2, nw2, 3), dtype=arr.dtype)
            tp, lp = int(np.ceil((nh2 - oh) / 2)), int(np.ceil((nw2 - ow) / 2))
            pad[tp : tp + oh, lp : lp + ow] = arr
            top, left = top + tp, left + lp
            arr = pad[max(0, top) : min(nh2, top + ch), max(0, left) : min(nw2, left + cw)]
    x = (arr.astype(np.float64) * (1 / 255)).astype(np.float32)
    mean = np.array(cfg["mean"], dtype=np.float32)
    std = np.array(cfg["std"], dtype=np.float32)
    x = (x - mean) / std
    return np.ascontiguousarray(x.transpose(2, 0, 1)).astype("<f4")


def main():
    sources = {"a": source(97, 61, 7), "b": source(96, 60, 11)}
    sources["tall"] = np.ascontiguousarray(sources["a"].transpose(1, 0, 2))
    blob = bytearray()
    cases = []

    def add(name, src, op, out, **kw):
        data = out.tobytes()
        cases.append(dict(name=name, source=src, op=op, offset=len(blob), length=len(data), **kw))
        blob.extend(data)

    for src in ("a", "b", "tall"):
        add("source " + src, src, "source", sources[src], width=sources[src].shape[1], height=sources[src].shape[0])

    a = Image.fromarray(sources["a"])
    for resample in (3, 2, 4, 5, 1):
        for w, h in ((40, 25), (120, 75), (97, 30), (33, 61), (13, 9)):
            out = np.array(a.resize((w, h), resample=resample, reducing_gap=None))
            add(f"pil resample={resample} {w}x{h}", "a", "pil", out, resample=resample, width=w, height=h)

    b = sources["b"]
    for w, h in ((48, 30), (32, 20)):
        add(f"cv2 INTER_AREA {w}x{h}", "b", "cv2_area", cv2.resize(b, (w, h), interpolation=cv2.INTER_AREA), width=w, height=h)
    for w, h in ((144, 90), (192, 120)):
        add(f"cv2 INTER_LINEAR {w}x{h}", "b", "cv2_linear", cv2.resize(b, (w, h), interpolation=cv2.INTER_LINEAR), width=w, height=h)

    clip_mean, clip_std = [0.48145466, 0.4578275, 0.40821073], [0.26862954, 0.26130258, 0.27577711]
    pipelines = [
        ("clip-like wide", "a", dict(shortest_edge=48, crop=(40, 40), resample=3, mean=clip_mean, std=clip_std)),
        ("clip-like tall", "tall", dict(shortest_edge=48, crop=(40, 40), resample=3, mean=clip_mean, std=clip_std)),
        ("clip-like crop larger than image", "a", dict(shortest_edge=30, crop=(36, 52), resample=3, mean=clip_mean, std=clip_std)),
        ("siglip-like", "a", dict(height=32, width=32, resample=2, mean=[0.5] * 3, std=[0.5] * 3)),
    ]
    for name, src, cfg in pipelines:
        out = hf_pipeline(sources[src], cfg)
        conf = {"image_processor_type": "SiglipImageProcessor" if "height" in cfg else "CLIPImageProcessor",
                "do_resize": True, "resample": cfg["resample"], "do_rescale": True, "rescale_factor": 1 / 255,
                "do_normalize": True, "image_mean": cfg["mean"], "image_std": cfg["std"]}
        if "shortest_edge" in cfg:
            conf["size"] = {"shortest_edge": cfg["shortest_edge"]}
            conf["do_center_crop"] = True
            conf["crop_size"] = {"height": cfg["crop"][0], "width": cfg["crop"][1]}
        else:
            conf["size"] = {"height": cfg["height"], "width": cfg["width"]}
        add("pipeline " + name, src, "pipeline", out, config=conf)

    with open("reference.bin", "wb") as f:
        f.write(blob)
    with open("reference.json", "w") as f:
        json.dump({"pillow": Image.__version__, "opencv": cv2.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
