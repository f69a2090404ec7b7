// Package features is the feature stage of an audit: it turns the videos of
// the items into the embeddings the frame and order attackers read, decoding
// each video once and computing nothing a cache already holds.
//
// Data moves one way, through bounded queues, so that the slowest stage sets
// the pace and memory stays bounded however many videos there are:
//
//	plan     per video, the union of the frame times every frame set of every
//	         item of that video needs (centre, ~1 fps, 32 uniform), so the
//	         video is opened and decoded once and each GOP at most once
//	hash     a content key per video: the video's bytes, the plan, the image
//	         model's and captioner's file hashes and the preprocessing
//	         version; a video whose key is in the cache is not decoded
//	decode   decode.Pool, results in job order
//	prep     models/imageprep: frames to the image tower's pixel tensors
//	infer    the image tower in dynamic batches (frames of several videos
//	         share a run), then the captioner on the frames that need captions
//	store    one .npy of frame embeddings and one .json of times and captions
//	         per video in the cache directory, written atomically, each
//	         with its SHA-256 beside it (internal/checksum): a file whose
//	         bytes changed since is reported (Stats.Damaged) and recomputed
//
// A video that is missing, outside the video root, unreadable, corrupt or
// past its deadline fails only its own items: Result.Items records the
// reason and the run goes on. A cancelled context stops every stage; what is
// stored stays stored.
//
// Outputs do not depend on the number of workers: each frame's embedding
// depends on its pixels alone (the image tower's rows are computed
// independently of the batch they share; the tests check it bit for bit).
package features
