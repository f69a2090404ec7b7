package onnxbuild

import (
	"path/filepath"
)

// This file writes each role's folder of models init in the layout of the
// Hugging Face Hub's ONNX repositories, which transformers.js loads as it
// is: config.json with the model_type that picks the class, the ONNX files
// under onnx/ with the names that class loads (fp32, Node's CPU default,
// has no dtype suffix), and the processor, tokenizer and generation files
// beside config.json. The WriteDir methods of the model types keep writing
// the flat layout (files at the root, as optimum-cli export onnx does) that
// the tests and the world's models use; the loader reads both.

// hfOnnxDir is the ONNX folder of the Hub layout (models.OnnxSubdir).
const hfOnnxDir = "onnx"

// writeHF writes graphs under dir/onnx/ and the JSON files at dir's root.
func writeHF(dir string, graphs map[string]*Graph, jsons map[string]any) error {
	if err := writeAll(filepath.Join(dir, hfOnnxDir), graphs, nil); err != nil {
		return err
	}
	return writeAll(dir, nil, jsons)
}

// writeHFCLIP writes a CLIP role: onnx/text_model.onnx
// (CLIPTextModelWithProjection), onnx/vision_model.onnx
// (CLIPVisionModelWithProjection), config.json and preprocessor_config.json.
func writeHFCLIP(dir string, m *CLIP) error {
	return writeHF(dir, map[string]*Graph{"text_model.onnx": m.TextGraph(), "vision_model.onnx": m.VisionGraph()},
		map[string]any{"config.json": m.hfConfig(), "preprocessor_config.json": clipPreprocessor(m.Config.Vision.Image)})
}

// writeHFEncoder writes a sentence encoder role: onnx/model.onnx (BertModel;
// feature extraction) and config.json.
func writeHFEncoder(dir string, m *Encoder) error {
	return writeHF(dir, map[string]*Graph{"model.onnx": m.Graph()}, map[string]any{"config.json": m.hfConfig()})
}

// writeHFCaptioner writes the captioner role: onnx/encoder_model.onnx and
// onnx/decoder_model_merged.onnx (VisionEncoderDecoderModel), config.json,
// generation_config.json, preprocessor_config.json and the colour
// vocabulary's tokenizer.json.
func writeHFCaptioner(dir string, c *ColourCaptioner) error {
	err := writeHF(dir, map[string]*Graph{"encoder_model.onnx": c.EncoderGraph(), "decoder_model_merged.onnx": c.DecoderGraph()},
		map[string]any{"config.json": c.hfConfig(), "generation_config.json": c.hfGenerationConfig(),
			"preprocessor_config.json": c.Model.preprocessor()})
	if err != nil {
		return err
	}
	return WriteColourTokenizer(filepath.Join(dir, "tokenizer.json"))
}

// writeHFLM writes the lm_reader role: onnx/model.onnx (Qwen2ForCausalLM,
// with the key-value cache inputs transformers.js feeds), config.json and
// generation_config.json.
func writeHFLM(dir string, d *Decoder) error {
	return writeHF(dir, map[string]*Graph{"model.onnx": d.LMGraph(true)},
		map[string]any{"config.json": d.hfQwen2Config(), "generation_config.json": wordPieceGenerationConfig()})
}

// writeHFVLM writes the vlm_reader role: onnx/vision_encoder.onnx,
// onnx/embed_tokens.onnx and onnx/decoder_model_merged.onnx (with a
// key-value cache, which transformers.js's generation feeds and vidscreen's
// prefill gives empty), the split LlavaForConditionalGeneration loads,
// config.json, generation_config.json and preprocessor_config.json.
func writeHFVLM(dir string, m *VLM) error {
	vis := NewGraph("vision_encoder")
	x := m.Vision.emit(vis, m.Vision.pixelInput(vis))
	vis.Output(x, "image_features", Float, "batch_size", m.Vision.Patch.Patches(), m.Decoder.Config.Hidden)
	return writeHF(dir, map[string]*Graph{"vision_encoder.onnx": vis, "embed_tokens.onnx": m.Decoder.EmbedGraph(), "decoder_model_merged.onnx": m.Decoder.EmbedsGraphWithPast()},
		map[string]any{"config.json": m.hfConfig(), "generation_config.json": wordPieceGenerationConfig(),
			"preprocessor_config.json": clipPreprocessor(m.Vision.Config.Image)})
}
