package onnxbuild

// The tokenizer_config.json files models init writes beside each
// tokenizer.json. transformers.js's AutoTokenizer picks its class from
// tokenizer_class and pads batches with pad_token: without one a batch of
// texts of different lengths is refused, so every folder names [PAD].

// chatMLTemplate is a ChatML chat template in the form of Qwen2's
// instruct models' tokenizer_config.json (Qwen/Qwen2-0.5B-Instruct): a
// default system turn when the conversation has none, each message as
// <|im_start|>ROLE\nCONTENT<|im_end|>\n, and <|im_start|>assistant\n to
// open the answer. A message's content may be a string or a list of parts;
// an image part is written as <image>, a text part as its text, so the
// VLM reader's template has a place for each frame.
const chatMLTemplate = `{%- for message in messages -%}` +
	`{%- if loop.first and message['role'] != 'system' -%}{{- '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' -}}{%- endif -%}` +
	`{{- '<|im_start|>' + message['role'] + '\n' -}}` +
	`{%- if message['content'] is string -%}{{- message['content'] -}}` +
	`{%- else -%}{%- for part in message['content'] -%}` +
	`{%- if part['type'] == 'image' -%}{{- '<image>' -}}{%- elif part['type'] == 'text' -%}{{- part['text'] -}}{%- endif -%}` +
	`{%- endfor -%}{%- endif -%}` +
	`{{- '<|im_end|>\n' -}}` +
	`{%- endfor -%}` +
	`{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\n' -}}{%- endif -%}`

// wordPieceTokenizerConfig is the tokenizer_config.json of a BERT-style
// uncased WordPiece tokenizer.json (WordPieceTokenizer, the colour
// vocabulary): BertTokenizer with BERT's special tokens, texts cut at
// maxLength. chatTemplate, when not "", is the readers' chat template.
func wordPieceTokenizerConfig(maxLength int, chatTemplate string) map[string]any {
	c := map[string]any{
		"tokenizer_class":              "BertTokenizer",
		"do_lower_case":                true,
		"tokenize_chinese_chars":       true,
		"strip_accents":                nil,
		"clean_up_tokenization_spaces": true,
		"model_max_length":             maxLength,
		"pad_token":                    "[PAD]",
		"unk_token":                    "[UNK]",
		"cls_token":                    "[CLS]",
		"sep_token":                    "[SEP]",
		"mask_token":                   "[MASK]",
		"padding_side":                 "right",
	}
	if chatTemplate != "" {
		c["chat_template"] = chatTemplate
	}
	return c
}
