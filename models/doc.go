// Package models runs the audit's local models through ONNX Runtime: CLIP or
// SigLIP towers, BGE and MPNet text encoders, a captioner, and causal and
// vision-language readers that score option letters.
//
// Data moves through it in this order:
//
//  1. A Runtime loads libonnxruntime.so once per process ($VIDSCREEN_ORT_LIB,
//     else .cache/onnxruntime/ from `make setup-ort`) and places Sessions on
//     the CPU or a CUDA GPU, falling back to the CPU with one message that
//     names what was missing.
//  2. A Manifest (models.json in a models directory) maps each Role to a
//     folder in the layout HF Optimum exports use; CheckDir validates a
//     whole directory and reports every problem.
//  3. Role runners turn inputs into outputs: TextEncoder (unit sentence
//     vectors, CLS or mean pooling), ImageText (image and text embeddings,
//     logit scale, zero-shot scores), LetterScorer and VLMReader (log
//     p(option letter) from one prefill), Captioner (greedy decoding with a
//     key-value cache). Texts are padded to length buckets, so a text's
//     result does not depend on what shares its batch.
//  4. A Batcher gathers requests from many goroutines into batches;
//     BatchedEmbedder and BatchedLetterScorer put it in front of a runner.
//
// Tokenizers come from models/tokenizer and images from models/imageprep;
// models/onnxbuild writes the small ONNX models the tests run, and computes
// the same functions directly in Go to check every output.
package models
