// Package spread runs one model role on several devices at once: the role
// is opened once per device (one ONNX Runtime session each, with the CUDA
// provider on that device's ordinal, or one per emulated CPU device of
// --device cpu:N), and each call's inputs are cut into pieces of a fixed
// size that gpu.Pool.Spread places on the devices, under each device's
// memory budget.
//
// The pieces' sizes depend on the role and the budget, never on the number
// of devices, and every result is written back at its input's position, so
// a call returns the same bytes on one device as on four: only which
// device computed what changes, and the pool counts that (gpu.Usage.Done,
// by role).
//
// TextEmbedder serves text_embed and dup_confirm (and image_text's text
// tower), LetterReader serves lm_reader and VLMScorer serves vlm_reader.
// The image tower and the captioner are spread by the feature stage itself
// (harness/features), one worker per device on the decoded videos.
package spread
