"""Pixel values of Python transformers' image processors, on Pillow and numpy.

Python transformers' "slow" CLIPImageProcessor, SiglipImageProcessor and
ViTImageProcessor (ViTFeatureExtractor) resize through Pillow; this script
repeats their steps on Debian's python3-pil and python3-numpy, without
transformers itself (torch and its wheels do not install here), so that
conformance/imageproc_test.go can compare models/imageprep with them:

  1. the constructor's defaults, overridden by the keys of
     preprocessor_config.json (image_processing_clip.py, _siglip.py, _vit.py);
  2. resize (image_transforms.resize): the uint8 RGB array becomes a PIL image
     unchanged (to_pil_image does not rescale uint8), Image.resize((w, h),
     resample, reducing_gap=None), back to a uint8 array. The size is, for
     CLIP's {"shortest_edge": S}, get_resize_output_image_size with
     default_to_square=False: short side S, long side int(S * long / short);
     for {"height", "width"}, that size (SigLIP and ViT squash, no crop);
  3. centre crop (image_transforms.center_crop), CLIP only: top =
     (h - crop_h) // 2, left = (w - crop_w) // 2; an image smaller than the
     crop is first padded with zeros, ceil((crop - size) / 2) before;
  4. rescale (image_transforms.rescale): astype(float64) * factor, then
     astype(float32);
  5. normalize (image_transforms.normalize): mean and std as float32 arrays,
     (image - mean) / std in float32, channels last;
  6. channels first.

Input (stdin, JSON): {"pixels": a file of the images' bytes, "out": a file to
write, "images": [{"name", "width", "height", "offset"}] (height*width*3
bytes at offset, RGB, rows top to bottom), "configs": {name:
preprocessor_config.json object}, "cases": [{"image": index, "config": name}]}.
Output: the cases' float32 little-endian channels-first tensors, one after
the other, in the file "out"; on stdout (JSON) {"pillow": version, "numpy":
version, "cases": [{"shape": [3, H, W], "resized": [h, w] before the crop,
"offset": float32 index in "out"}]}.
"""

import json
import math
import sys

import numpy as np
import PIL
from PIL import Image

OPENAI_CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]
OPENAI_CLIP_STD = [0.26862954, 0.26130258, 0.27577711]
IMAGENET_STANDARD_MEAN = [0.5, 0.5, 0.5]
IMAGENET_STANDARD_STD = [0.5, 0.5, 0.5]

BICUBIC = 3
BILINEAR = 2


def defaults(kind):
    """The processor's constructor defaults, as its __init__ sets them."""
    if kind in ("CLIPImageProcessor", "CLIPFeatureExtractor"):
        return {
            "do_resize": True, "size": {"shortest_edge": 224}, "resample": BICUBIC,
            "do_center_crop": True, "crop_size": {"height": 224, "width": 224},
            "do_rescale": True, "rescale_factor": 1 / 255, "do_normalize": True,
            "image_mean": OPENAI_CLIP_MEAN, "image_std": OPENAI_CLIP_STD,
        }
    if kind == "SiglipImageProcessor":
        return {
            "do_resize": True, "size": {"height": 224, "width": 224}, "resample": BICUBIC,
            "do_center_crop": False,
            "do_rescale": True, "rescale_factor": 1 / 255, "do_normalize": True,
            "image_mean": IMAGENET_STANDARD_MEAN, "image_std": IMAGENET_STANDARD_STD,
        }
    if kind in ("ViTImageProcessor", "ViTFeatureExtractor"):
        return {
            "do_resize": True, "size": {"height": 224, "width": 224}, "resample": BILINEAR,
            "do_center_crop": False,
            "do_rescale": True, "rescale_factor": 1 / 255, "do_normalize": True,
            "image_mean": IMAGENET_STANDARD_MEAN, "image_std": IMAGENET_STANDARD_STD,
        }
    raise ValueError("unsupported processor %r" % kind)


def size_dict(size, default_to_square):
    """image_processing_utils.get_size_dict for an int or a dict."""
    if isinstance(size, int):
        if default_to_square:
            return {"height": size, "width": size}
        return {"shortest_edge": size}
    return size


def settings(config):
    kind = config.get("image_processor_type") or config.get("feature_extractor_type")
    s = defaults(kind.removesuffix("Fast"))
    for k in s:
        if k in config and config[k] is not None:
            s[k] = config[k]
    clip = kind.removesuffix("Fast") in ("CLIPImageProcessor", "CLIPFeatureExtractor")
    if not clip:
        s["do_center_crop"] = False  # SigLIP and ViT have no crop step
    s["size"] = size_dict(s["size"], default_to_square=not clip)
    s["crop_size"] = size_dict(s.get("crop_size", 224), default_to_square=True)
    for k in ("image_mean", "image_std"):
        if not isinstance(s[k], list):
            s[k] = [s[k]] * 3
    return s


def output_size(height, width, size):
    """The (height, width) the resize step makes."""
    if "shortest_edge" in size:
        short, long = (width, height) if width <= height else (height, width)
        new_short = size["shortest_edge"]
        new_long = int(new_short * long / short)
        return (new_long, new_short) if width <= height else (new_short, new_long)
    return size["height"], size["width"]


def center_crop(image, crop_h, crop_w):
    """image_transforms.center_crop on a channels-last array."""
    h, w = image.shape[:2]
    top = (h - crop_h) // 2
    left = (w - crop_w) // 2
    bottom, right = top + crop_h, left + crop_w
    if top >= 0 and bottom <= h and left >= 0 and right <= w:
        return image[top:bottom, left:right]
    nh, nw = max(crop_h, h), max(crop_w, w)
    padded = np.zeros((nh, nw) + image.shape[2:], dtype=image.dtype)
    tp = math.ceil((nh - h) / 2)
    lp = math.ceil((nw - w) / 2)
    padded[tp:tp + h, lp:lp + w] = image
    top, bottom, left, right = top + tp, bottom + tp, left + lp, right + lp
    return padded[max(0, top):min(nh, bottom), max(0, left):min(nw, right)]


def process(image, config):
    s = settings(config)
    resized = list(image.shape[:2])
    if s["do_resize"]:
        h, w = output_size(image.shape[0], image.shape[1], s["size"])
        pil = Image.fromarray(image.astype(np.uint8))
        image = np.array(pil.resize((w, h), resample=s["resample"], reducing_gap=None))
        resized = [h, w]
    if s["do_center_crop"]:
        image = center_crop(image, s["crop_size"]["height"], s["crop_size"]["width"])
    if s["do_rescale"]:
        image = (image.astype(np.float64) * s["rescale_factor"]).astype(np.float32)
    if s["do_normalize"]:
        if not np.issubdtype(image.dtype, np.floating):
            image = image.astype(np.float32)
        mean = np.array(s["image_mean"], dtype=image.dtype)
        std = np.array(s["image_std"], dtype=image.dtype)
        image = (image - mean) / std
    image = np.ascontiguousarray(image.transpose(2, 0, 1), dtype="<f4")
    return image, resized


def main():
    req = json.load(sys.stdin)
    with open(req["pixels"], "rb") as f:
        pixels = f.read()
    images = []
    for im in req["images"]:
        n = im["height"] * im["width"] * 3
        raw = pixels[im["offset"]:im["offset"] + n]
        images.append(np.frombuffer(raw, dtype=np.uint8).reshape(im["height"], im["width"], 3))
    out = []
    offset = 0
    with open(req["out"], "wb") as f:
        for case in req["cases"]:
            values, resized = process(images[case["image"]], req["configs"][case["config"]])
            f.write(values.tobytes())
            out.append({"shape": list(values.shape), "resized": resized, "offset": offset})
            offset += values.size
    json.dump({"pillow": PIL.__version__, "numpy": np.__version__, "cases": out}, sys.stdout)


if __name__ == "__main__":
    main()
