// Package decode turns videos into the frames the models see: it probes a
// video, plans which frames to take with a sampler, decodes exactly those
// with FFmpeg (through go-astiav, on the CPU or on NVDEC), and returns
// them as RGB at the size asked for.
//
// Data moves one way:
//
//	Probe / Open   container, codec, size, rotation, frame rate, keyframes
//	Sampler        (Info, Clip, seed) -> times; pure, testable without decoding
//	Decoder.Frames times -> []Frame, RGB24 into buffers the caller passes back
//	Pool           many videos at once, results in job order, one error per video
//
// # Which frame a time returns
//
// A time selects the frame on screen at that moment: the last frame whose
// presentation time is at or before it (the first frame for earlier times,
// the last for later ones). Times count from the start of the file, as the
// ffmpeg command's -ss does, so Frame.PTS can be handed to
// `ffmpeg -ss PTS -i FILE -frames:v 1` to see the same picture (the tests
// do that; see TestFramesMatchFFmpeg for the one case, leading frames of
// open GOPs, where the -ss-before-input form lands on the next keyframe).
// Samplers aim at the middle of a frame's display time so rounding cannot
// pick a neighbour.
//
// # Decoding no more than needed
//
// The decoder visits the requested times in increasing order. It seeks
// (and flushes the decoder) only when the next time lies in a later GOP
// than the one it is decoding, so no GOP is decoded twice and a GOP is left
// as soon as its last target is out. On constant-frame-rate streams it
// also tells FFmpeg to skip frames that nothing refers to and no target
// falls in (AVDISCARD_NONREF): on a 1080p x264 file with 600-frame GOPs,
// 32 uniform frames took 991 decoded frames instead of 1743. H.264
// packets whose NAL headers mark them unreferenced are dropped before the
// decoder instead, since a packet skipped inside it still occupies a frame
// thread and serialises the reference frames around it (that file: ~4.0 s
// -> 2.7-3.0 s with 2 threads). Stats counts the work.
//
// # Bad videos
//
// Every failure that belongs to one video is a *VideoError whose Kind
// (missing, empty, truncated, corrupt, no-video-stream, unsupported-codec,
// timeout) a harness records before going on; Err keeps FFmpeg's message.
// Options.Timeout (and Pool's per-video deadline) interrupts FFmpeg's I/O
// and stops a decode that makes no progress. A cancelled context is not a
// VideoError: the run, not the video, was stopped.
//
// # NVDEC
//
// With Options.HWAccel "cuda" the video is decoded on the GPU through
// FFmpeg's cuda hwaccel, resized there by the scale_cuda filter and only
// the small frame is downloaded. Where that is impossible (no driver, a
// codec NVDEC lacks such as AV1 on Hopper) the decoder falls back to the
// CPU and Decoder.Fallback says why; Pool.Notify reports each reason once.
// The CPU path is the one tested here; bench/decode_gpu_check.sh compares
// the two on a machine with a GPU.
//
// # cgo
//
// go-astiav v0.16.0 (the last release for Debian 12's FFmpeg 5.1) lacks a
// few calls this package needs; ffmpeg.go and nvdec.go hold them as thin
// cgo over the same FFmpeg objects.
package decode
