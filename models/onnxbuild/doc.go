// Package onnxbuild writes small ONNX models with deterministic random
// weights, for tests and benchmarks that must not download anything.
//
// The models have the input and output names of the real HF Optimum / ONNX
// exports of each role: a BERT-like encoder (input_ids, attention_mask,
// token_type_ids -> last_hidden_state), a CLIP-like pair of towers
// (text_model.onnx, vision_model.onnx), a causal LM with an optional
// key-value cache (-> logits, present.*), an image-to-text model whose
// decoder keeps a cache, and a VLM split into vision encoder, token embedder
// and a decoder taking inputs_embeds. Each model type also computes its
// function directly in Go (Forward, TextEmbed, Logits, Generate, ...), one
// unpadded sequence at a time and without a cache, so tests compare ONNX
// Runtime's batched, padded, cached results with an independent computation.
//
// The protobuf is written by hand with protowire (proto.go lists the field
// numbers of onnx.proto3); no onnx Go module or Python onnx is needed.
package onnxbuild
