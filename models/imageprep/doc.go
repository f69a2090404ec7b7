// Package imageprep turns RGB video frames into the batched pixel tensors
// that CLIP, SigLIP, BLIP, GIT and ViT image encoders take, following the
// model's Hugging Face preprocessor_config.json.
//
// The steps and their order are those of the transformers "slow" image
// processors (CLIPImageProcessor, SiglipImageProcessor, BlipImageProcessor,
// ViTImageProcessor): resize, centre crop, rescale, normalise, channels first.
// Those processors resize through PIL (Image.resize with reducing_gap None),
// so this package implements PIL's resampling exactly:
//
//   - a separable convolution, horizontal pass first, with the kernel
//     stretched by the scale factor when downscaling (antialiasing) and
//     the weights of each output pixel normalised to sum to one;
//   - output pixel i samples around source coordinate (i+0.5)*in/out;
//   - weights in 22-bit fixed point, rounded to nearest, with the
//     intermediate image stored as 8-bit between the two passes;
//   - filters: bicubic (resample 3) with a = -0.5 and support 2, bilinear
//     (2, triangle, support 1), box (4), Hamming (5) and Lanczos (1, a = 3).
//
// The tests check it byte for byte against Pillow's output (fixtures made by
// testdata/make_reference.py), within one level of 255 against a float64 Go
// computation of the same filter for one pass (two when both passes run,
// since a rounding tie in the first pass is carried into the second), and
// within one level against OpenCV's
// INTER_AREA and INTER_LINEAR where those are the same filter. The "fast"
// transformers processors (torchvision) resize in floating point without the
// 8-bit rounding between passes, so their pixels can differ from these by a
// level or so; their configuration files are read all the same.
//
// Rescale and normalise are done as transformers does in float32
// (float32(p*scale) - mean) / std, precomputed for all 256 levels per channel,
// so every output value equals the Python one bit for bit.
package imageprep
