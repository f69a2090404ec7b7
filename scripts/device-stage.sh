#!/usr/bin/env bash
# Stages ONNX Runtime with its CUDA provider (about 258 MB) on the device
# machine over several runs, since one run carries at most 64 MiB.
#
#   scripts/device-stage.sh split [SRC_DIR [OUT_DIR]]   here, once
#   scripts/device-stage.sh take PART [STAGE_DIR]       there, one run a part
#   scripts/device-stage.sh status [STAGE_DIR]          there: staged or why not
#
# split packs SRC_DIR's libonnxruntime.so, libonnxruntime_providers_shared.so
# and libonnxruntime_providers_cuda.so (default .cache/onnxruntime, what
# `make setup-cuda` fetched) into one tar.xz (xz -9e: 164 MiB, about 9
# minutes on 2 shared cores), cut into OUT_DIR/part-00, part-01, ... of
# DEVICE_STAGE_PART_SIZE (split -b's size; default 55M, so a part and the
# working tree fit one run's 64 MiB), and writes OUT_DIR/manifest: each part's, the
# archive's and each library's SHA-256 and size. OUT_DIR defaults to
# bin/ort-stage; a manifest whose libraries still match is kept as it is.
#
# take checks PART against the manifest beside it, copies it into
# STAGE_DIR (default $VIDSCREEN_ORT_STAGE, else /tmp/vidscreen-ort: outside
# the run's output folder, so it stays while the machine is warm), and says
# how many parts are still missing; with the last one in, it checks the
# archive's SHA-256, unpacks it into STAGE_DIR/lib and checks every
# library's. A part whose SHA-256 differs is refused, naming it. status
# prints one line and exits 0 when STAGE_DIR/lib holds the manifest's
# libraries, else says how many parts are in and exits 1.
#
# The device side needs bash, coreutils and tar, and xz or Python 3's lzma
# module to unpack.
set -euo pipefail
cd "$(dirname "$0")/.."

libs=(libonnxruntime.so libonnxruntime_providers_shared.so libonnxruntime_providers_cuda.so)
say() { echo "device-stage: $*"; }
die() { echo "device-stage: $*" >&2; exit 1; }

sha() {
  if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1
  else python3 -c 'import hashlib, sys
h = hashlib.sha256()
with open(sys.argv[1], "rb") as f:
    for b in iter(lambda: f.read(1 << 20), b""): h.update(b)
print(h.hexdigest())' "$1"; fi
}
size() { wc -c <"$1" | tr -d ' '; }

# field MANIFEST KIND NAME: the SHA-256 and size of that entry, or nothing.
field() { awk -v k="$2" -v n="$3" '$1 == k && $4 == n {print $2, $3}' "$1"; }
parts_of() { awk '$1 == "part" {print $4}' "$1"; }

unxz() {
  if command -v xz >/dev/null; then xz -dc
  else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.stdin.buffer), sys.stdout.buffer)'; fi
}

split_libs() {
  local src=${1:-.cache/onnxruntime} out=${2:-bin/ort-stage} f
  for f in "${libs[@]}"; do
    [ -s "$src/$f" ] || die "$src/$f missing (make setup-cuda fetches ONNX Runtime's CUDA provider into .cache/onnxruntime)"
  done
  mkdir -p "$out"
  local fresh=1
  if [ -s "$out/manifest" ]; then
    fresh=0
    for f in "${libs[@]}"; do
      [ "$(field "$out/manifest" file "$f")" = "$(sha "$src/$f") $(size "$src/$f")" ] || fresh=1
    done
    for f in $(parts_of "$out/manifest"); do [ -s "$out/$f" ] || fresh=1; done
  fi
  if [ $fresh = 0 ]; then
    say "$out/manifest already stages $src's libraries"
  else
    rm -f "$out"/part-* "$out/manifest"
    say "packing $src's ${libs[*]} (xz -9e)"
    tar -C "$src" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - "${libs[@]}" | xz -9e -T1 >"$out/ort.tar.xz"
    split -b "${DEVICE_STAGE_PART_SIZE:-55M}" -d -a 2 "$out/ort.tar.xz" "$out/part-"
    {
      echo "format - - tar.xz"
      echo "archive $(sha "$out/ort.tar.xz") $(size "$out/ort.tar.xz") ort.tar.xz"
      for f in "$out"/part-*; do echo "part $(sha "$f") $(size "$f") $(basename "$f")"; done
      for f in "${libs[@]}"; do echo "file $(sha "$src/$f") $(size "$src/$f") $f"; done
    } >"$out/manifest.tmp"
    mv "$out/manifest.tmp" "$out/manifest"
    rm -f "$out/ort.tar.xz"
  fi
  local n
  n=$(parts_of "$out/manifest" | wc -l | tr -d ' ')
  say "$n parts in $out (manifest, $(du -cb "$out"/part-* | tail -1 | cut -f1) bytes); on the device machine, one run each, back to back:"
  for f in $(parts_of "$out/manifest"); do
    echo "  carry [\"$out/$f\", \"$out/manifest\"]: bash scripts/device-check.sh --stage $out/$f"
  done
}

# missing STAGE MANIFEST: the parts not yet in STAGE, one a line.
missing() {
  local p want
  for p in $(parts_of "$2"); do
    want=$(field "$2" part "$p" | cut -d' ' -f2)
    [ -f "$1/parts/$p" ] && [ "$(size "$1/parts/$p")" = "$want" ] || echo "$p"
  done
}

unpack() {
  local stage=$1 m=$1/manifest p f
  local -a files=()
  for p in $(parts_of "$m"); do files+=("$stage/parts/$p"); done
  local got want
  got=$(cat "${files[@]}" | sha256sum 2>/dev/null | cut -d' ' -f1 || true)
  [ -n "$got" ] || got=$(cat "${files[@]}" | python3 -c 'import hashlib, sys
h = hashlib.sha256()
for b in iter(lambda: sys.stdin.buffer.read(1 << 20), b""): h.update(b)
print(h.hexdigest())')
  want=$(field "$m" archive ort.tar.xz | cut -d' ' -f1)
  if [ "$got" != "$want" ]; then
    rm -rf "$stage/parts"
    die "the parts joined have sha256 $got, the manifest's archive $want; dropped them all (stage every part again)"
  fi
  rm -rf "$stage/lib.tmp" && mkdir -p "$stage/lib.tmp"
  cat "${files[@]}" | unxz | tar -C "$stage/lib.tmp" -xf -
  for f in $(awk '$1 == "file" {print $4}' "$m"); do
    [ -f "$stage/lib.tmp/$f" ] && [ "$(sha "$stage/lib.tmp/$f") $(size "$stage/lib.tmp/$f")" = "$(field "$m" file "$f")" ] ||
      die "$f unpacked from the parts does not match the manifest's sha256 and size"
  done
  rm -rf "$stage/lib" && mv "$stage/lib.tmp" "$stage/lib"
  rm -rf "$stage/parts"
}

take() {
  local part=${1:?usage: device-stage.sh take PART [STAGE_DIR]}
  local stage=${2:-${VIDSCREEN_ORT_STAGE:-/tmp/vidscreen-ort}}
  local name m
  name=$(basename "$part")
  m=$(dirname "$part")/manifest
  [ -f "$part" ] || die "$part: no such part (carry it: the device tool's carry list names it)"
  [ -s "$m" ] || die "$m missing: carry it with $part"
  local want
  want=$(field "$m" part "$name")
  [ -n "$want" ] || die "$part: not a part that $m lists"
  local got
  got="$(sha "$part") $(size "$part")"
  [ "$got" = "$want" ] || die "$part: sha256 and size $got, the manifest says $want; refused (carry $part again)"
  mkdir -p "$stage"
  if [ -f "$stage/manifest" ] && ! cmp -s "$stage/manifest" "$m"; then
    say "$stage held another staging; starting again"
    rm -rf "$stage/parts" "$stage/lib" "$stage/manifest"
  fi
  cp "$m" "$stage/manifest.tmp" && mv "$stage/manifest.tmp" "$stage/manifest"
  if [ -d "$stage/lib" ]; then
    say "already complete in $stage/lib; $name not needed"
    return
  fi
  mkdir -p "$stage/parts"
  cp "$part" "$stage/parts/$name.tmp" && mv "$stage/parts/$name.tmp" "$stage/parts/$name"
  local left total
  left=$(missing "$stage" "$stage/manifest")
  total=$(parts_of "$m" | wc -l | tr -d ' ')
  if [ -n "$left" ]; then
    say "$name in ($((total - $(echo "$left" | awk NF | wc -l))) of $total parts); missing: $(echo $left)"
    return
  fi
  say "$name in: all $total parts; checking and unpacking"
  unpack "$stage"
  say "complete: ${libs[*]} in $stage/lib, SHA-256 checked"
}

status() {
  local stage=${1:-${VIDSCREEN_ORT_STAGE:-/tmp/vidscreen-ort}} m f
  m=$stage/manifest
  if [ ! -s "$m" ]; then
    local n=""
    [ -s bin/ort-stage/manifest ] && n=" of $(parts_of bin/ort-stage/manifest | wc -l | tr -d ' ')"
    echo "ORT's CUDA provider not staged: 0$n parts in $stage (scripts/device-stage.sh take, one run a part)"
    return 1
  fi
  local total
  total=$(parts_of "$m" | wc -l | tr -d ' ')
  if [ -d "$stage/lib" ]; then
    for f in $(awk '$1 == "file" {print $4}' "$m"); do
      if [ "$(sha "$stage/lib/$f" 2>/dev/null) $(size "$stage/lib/$f" 2>/dev/null)" != "$(field "$m" file "$f")" ]; then
        echo "ORT's CUDA provider not staged: $stage/lib/$f differs from the manifest's (stage it again)"
        return 1
      fi
    done
    echo "staged in $stage/lib from $total parts by scripts/device-stage.sh, SHA-256 checked (manifest $(sha "$m" | cut -c1-12))"
    return 0
  fi
  local left
  left=$(missing "$stage" "$m")
  echo "ORT's CUDA provider not staged: $((total - $(echo "$left" | awk NF | wc -l))) of $total parts in $stage; missing: $(echo $left)"
  return 1
}

case "${1:-}" in
  split) shift; split_libs "$@" ;;
  take) shift; take "$@" ;;
  status) shift; status "$@" ;;
  *) die "usage: device-stage.sh split [SRC_DIR [OUT_DIR]] | take PART [STAGE_DIR] | status [STAGE_DIR]" ;;
esac
