package onnxbuild

// The config.json and generation_config.json files of the models init
// layout (hflayout.go). Each names the model_type of the transformers.js
// class that runs the role's ONNX files, with the sizes that class reads
// (the cache's layers, heads and head width; the projection width) taken
// from the built model. The ONNX graphs are the project's own small
// transformers, not those architectures' exact layers: a class reads only
// the graph's inputs and outputs, and the comments below say where the
// computation inside differs from what the model_type's Python class does.

// hfConfig is the image_text role's config.json: model_type clip with
// text_config and vision_config. The text tower pools the row of the
// largest token id, the rule HF's CLIPTextTransformer applies when
// eos_token_id is 2 (the legacy configs of openai/clip-vit-base-patch32),
// so text_config says bos 0, eos 2, pad 1 as those did. The towers use the
// exact GELU, and the vision tower averages its patch rows where CLIP
// takes a class token's: transformers.js reads only text_embeds and
// image_embeds, which it returns as the graph gives them.
func (m *CLIP) hfConfig() map[string]any {
	c := m.Config
	v := c.Vision
	return map[string]any{
		"model_type": "clip", "architectures": []string{"CLIPModel"},
		"projection_dim": c.Embed, "logit_scale_init_value": 4.6052,
		"text_config": map[string]any{
			"model_type": "clip_text_model", "vocab_size": c.Vocab, "hidden_size": c.TextHidden,
			"intermediate_size": c.TextFFN, "num_attention_heads": c.TextHeads, "num_hidden_layers": c.TextLayers,
			"max_position_embeddings": c.MaxPos, "hidden_act": "gelu", "layer_norm_eps": clipEps,
			"projection_dim": c.Embed, "bos_token_id": 0, "eos_token_id": 2, "pad_token_id": 1,
		},
		"vision_config": map[string]any{
			"model_type": "clip_vision_model", "image_size": v.Image, "patch_size": v.Patch, "num_channels": v.Channels,
			"hidden_size": v.Hidden, "intermediate_size": v.FFN, "num_attention_heads": v.Heads,
			"num_hidden_layers": v.Layers, "hidden_act": "gelu", "layer_norm_eps": clipEps, "projection_dim": c.Embed,
		},
	}
}

// hfConfig is a sentence encoder's config.json: model_type bert. The graph
// is a post-LN BERT encoder (learned absolute positions, exact GELU,
// layer_norm_eps 1e-12). The dup_confirm role's encoder has no token
// types (type_vocab_size 0, no token_type_ids input), as MPNet exports
// have none, but it is not an MPNet: MPNet adds a relative position bias to
// every attention and counts positions from padding_idx + 1. So it says
// bert; MPNet's part of that role is its mean pooling, which models.json
// names (pooling "mean").
func (m *Encoder) hfConfig() map[string]any {
	c := m.Config
	return map[string]any{
		"model_type": "bert", "architectures": []string{"BertModel"},
		"vocab_size": c.Vocab, "hidden_size": c.Hidden, "num_attention_heads": c.Heads,
		"num_hidden_layers": c.Layers, "intermediate_size": c.FFN, "hidden_act": "gelu",
		"max_position_embeddings": c.MaxPos, "type_vocab_size": c.TypeVocab, "layer_norm_eps": bertEps,
		"position_embedding_type": "absolute", "pad_token_id": bertPad,
	}
}

// hfQwen2Config is lm_reader's config.json: model_type qwen2, which
// transformers.js runs as Qwen2ForCausalLM from onnx/model.onnx with the
// cache inputs past_key_values.N.key/value of num_hidden_layers layers and
// num_key_value_heads heads of head_dim. Those are the graph's. Inside, the
// graph is a pre-LN GPT-style decoder (learned positions read through
// position_ids, LayerNorm, GELU), not Qwen2's rotary positions, RMSNorm and
// SwiGLU; hidden_act and the norm fields say what it computes.
func (d *Decoder) hfQwen2Config() map[string]any {
	c := d.Config
	return map[string]any{
		"model_type": "qwen2", "architectures": []string{"Qwen2ForCausalLM"},
		"vocab_size": c.Vocab, "hidden_size": c.Hidden, "intermediate_size": c.FFN,
		"num_attention_heads": c.Heads, "num_key_value_heads": c.Heads, "head_dim": c.Hidden / c.Heads,
		"num_hidden_layers": c.Layers, "max_position_embeddings": c.MaxPos,
		"hidden_act": "gelu", "layer_norm_eps": clipEps, "tie_word_embeddings": false, "use_cache": true,
		"bos_token_id": bertCLS, "eos_token_id": bertSEP, "pad_token_id": bertPad,
	}
}

// wordPieceGenerationConfig is the readers' generation_config.json: the
// WordPiece vocabulary's [CLS] starts, [SEP] ends, [PAD] pads.
func wordPieceGenerationConfig() map[string]any {
	return map[string]any{"bos_token_id": bertCLS, "eos_token_id": bertSEP, "pad_token_id": bertPad}
}

// hfConfig is the captioner's config.json: model_type
// vision-encoder-decoder, which transformers.js runs as
// VisionEncoderDecoderModel from onnx/encoder_model.onnx and
// onnx/decoder_model_merged.onnx. Its decoder is described as a gpt2 whose
// cache is the graph's: one layer, one head of width 1
// (past_key_values.0.key/value); its encoder as a vit on the preprocessor's
// image size whose output rows are as wide as the vocabulary. Neither is
// the trained architecture of those names: the encoder measures colours and
// shapes and writes the caption's plan, and the decoder reads the plan's
// row of its step (colourcaption.go).
func (c *ColourCaptioner) hfConfig() map[string]any {
	V := c.Model.vocab
	return map[string]any{
		"model_type": "vision-encoder-decoder", "architectures": []string{"VisionEncoderDecoderModel"},
		"is_encoder_decoder": true, "tie_word_embeddings": false,
		"decoder_start_token_id": tokCLS, "bos_token_id": tokCLS, "eos_token_id": tokSEP, "pad_token_id": tokPad,
		"encoder": map[string]any{"model_type": "vit", "image_size": c.Model.Size, "num_channels": 3, "hidden_size": V},
		"decoder": map[string]any{
			"model_type": "gpt2", "vocab_size": V, "n_layer": 1, "n_head": 1, "n_embd": 1,
			"n_positions": captionSteps + 1, "add_cross_attention": true, "is_decoder": true,
			"bos_token_id": tokCLS, "eos_token_id": tokSEP, "pad_token_id": tokPad,
		},
	}
}

// hfGenerationConfig is the captioner's generation_config.json: greedy
// from [CLS] until [SEP], at most captionSteps new tokens.
func (c *ColourCaptioner) hfGenerationConfig() map[string]any {
	return map[string]any{
		"decoder_start_token_id": tokCLS, "bos_token_id": tokCLS, "eos_token_id": tokSEP, "pad_token_id": tokPad,
		"max_new_tokens": captionSteps, "do_sample": false, "num_beams": 1,
	}
}

// VLMImageToken is the id that stands for one row of an image's features
// in the VLM's input_ids as LlavaForConditionalGeneration takes them
// (config.json's image_token_index): [unused0] of the WordPiece vocabulary,
// which no text encodes to. vidscreen itself splits a prompt at its
// <image> placeholders and never writes this id.
const VLMImageToken = 1

// hfConfig is vlm_reader's config.json: model_type llava, which
// transformers.js runs as LlavaForConditionalGeneration from
// onnx/vision_encoder.onnx (4-D pixel_values -> image_features, already
// projected to the decoder's width), onnx/embed_tokens.onnx and
// onnx/decoder_model_merged.onnx, putting the image's rows where input_ids
// holds image_token_index, one id per row (image_seq_length). That is the
// VLM's structure: a ViT tower whose every patch row ("full", no class
// token) goes through a projection into the decoder, rows spliced into the
// text. The tower is the CLIP-style one of clip.go and the projection is
// one linear layer (LLaVA's is two with a GELU between); text_config is
// the GPT-style decoder of lm_reader, described as qwen2 in the same way.
func (m *VLM) hfConfig() map[string]any {
	c := m.Decoder.Config
	v := m.Vision.Config
	text := m.Decoder.hfQwen2Config()
	delete(text, "architectures")
	return map[string]any{
		"model_type": "llava", "architectures": []string{"LlavaForConditionalGeneration"},
		"bos_token_id": bertCLS, "eos_token_id": bertSEP, "pad_token_id": bertPad,
		"image_token_index": VLMImageToken, "image_seq_length": m.Vision.Patch.Patches(),
		"vision_feature_select_strategy": "full", "vision_feature_layer": -1,
		"projector_hidden_act": nil, "tie_word_embeddings": false,
		"text_config": text,
		"vision_config": map[string]any{
			"model_type": "clip_vision_model", "image_size": v.Image, "patch_size": v.Patch, "num_channels": v.Channels,
			"hidden_size": v.Hidden, "intermediate_size": v.FFN, "num_attention_heads": v.Heads,
			"num_hidden_layers": v.Layers, "hidden_act": "gelu", "layer_norm_eps": clipEps, "projection_dim": c.Hidden,
		},
	}
}
