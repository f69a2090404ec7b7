"""Writes a SentencePiece ModelProto (spiece.model) from a converted Unigram
tokenizer.json, for the spiece loader's conformance test.

T5's original spiece.model is not in any repository reachable here; its
converted tokenizer.json is (testdata/tokenizers/t5-small). transformers'
convert_slow_tokenizer copied the pieces, their scores, the unk id and the
normalizer's precompiled charsmap from the original into that file, so this
script writes them back into the wire format that sentencepiece_model.proto
defines, with an encoder of its own (no protobuf package): the Go loader's
decoder is checked against an independent writer.

usage: python3 spiece_from_tokenizer_json.py tokenizer.json N_PIECES out.model
"""
import base64
import json
import struct
import sys


def varint(v):
    if v < 0:
        v += 1 << 64  # int32 negatives travel as ten-byte two's complement
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(num, wire):
    return varint(num << 3 | wire)


def field_bytes(num, b):
    return key(num, 2) + varint(len(b)) + b


def field_varint(num, v):
    return key(num, 0) + varint(v)


def main():
    src, n, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(src, encoding="utf-8") as f:
        tok = json.load(f)
    model = tok["model"]
    assert model.get("type", "Unigram") == "Unigram" and "unk_id" in model
    unk = model["unk_id"]
    specials = {t["id"] for t in tok["added_tokens"] if t["special"]}
    out = bytearray()
    for i, (piece, score) in enumerate(model["vocab"][:n]):
        typ = 2 if i == unk else (3 if i in specials else 1)
        body = field_bytes(1, piece.encode("utf-8")) + key(2, 5) + struct.pack("<f", score)
        if typ != 1:
            body += field_varint(3, typ)
        out += field_bytes(1, body)
    eos = next(t["id"] for t in tok["added_tokens"] if t["content"] == "</s>")
    pad = next(t["id"] for t in tok["added_tokens"] if t["content"] == "<pad>")
    trainer = (field_varint(3, 1) + field_varint(4, n) + field_varint(40, unk)
               + field_varint(41, -1) + field_varint(42, eos) + field_varint(43, pad))
    out += field_bytes(2, trainer)
    charsmap = base64.b64decode(tok["normalizer"]["precompiled_charsmap"])
    norm = (field_bytes(1, b"nmt_nfkc") + field_bytes(2, charsmap) + field_varint(3, 1)
            + field_varint(4, 1) + field_varint(5, 1))
    out += field_bytes(3, norm)
    with open(dst, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
