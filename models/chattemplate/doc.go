// Package chattemplate renders a model folder's chat template (the Jinja
// template transformers' apply_chat_template renders: tokenizer_config.json's
// chat_template, chat_template.json or chat_template.jinja) in Go, so that
// an ONNX reader reads the very prompt a server (vLLM, SGLang) makes of the
// same chat for the same model.
//
// The Jinja engine is github.com/ardanlabs/jinja v1.8.0: pure Go with no
// dependencies, written for LLM chat templates (namespace, loop.first,
// selectattr, tojson, raise_exception, the {% generation %} block of
// transformers' templates), and it builds with this module's Go (its later
// versions need Go 1.27). conformance/chattemplate_test.go holds it to
// @huggingface/jinja, the engine transformers.js renders with, byte for
// byte on the templates of Qwen2.5-VL, LLaVA-OneVision, InternVL and
// Llama 3.
package chattemplate
