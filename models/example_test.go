package models_test

import (
	"context"
	"fmt"
	"log"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
)

// A models.json names a folder per role; readers may instead be served by a
// local OpenAI-compatible server.
func ExampleParseManifest() {
	m, err := models.ParseManifest("/models/models.json", []byte(`{
  "roles": {
    "image_text":  {"dir": "clip-vit-b32"},
    "text_embed":  {"dir": "bge-large-en-v1.5", "pooling": "cls"},
    "dup_confirm": {"dir": "all-mpnet-base-v2", "pooling": "mean", "max_length": 384},
    "captioner":   {"dir": "blip-base", "max_new_tokens": 30},
    "lm_reader":   {"dir": "qwen2.5-0.5b-instruct", "letter_variants": ["{L}", " {L}"]},
    "vlm_reader":  {"server": "http://localhost:8000/v1", "server_model": "smolvlm"}
  }
}`))
	if err != nil {
		log.Fatal(err)
	}
	for _, role := range models.Roles {
		dir, spec, _ := m.Folder(role)
		if spec.Server != "" {
			dir = "served by " + spec.Server
		}
		fmt.Printf("%-11s %s\n", role, dir)
	}
	fmt.Println(models.ExpectedFiles(models.RoleCaptioner))
	// Output:
	// image_text  /models/clip-vit-b32
	// text_embed  /models/bge-large-en-v1.5
	// dup_confirm /models/all-mpnet-base-v2
	// captioner   /models/blip-base
	// lm_reader   /models/qwen2.5-0.5b-instruct
	// vlm_reader  served by http://localhost:8000/v1
	// encoder_model.onnx, decoder_model_merged.onnx or decoder_with_past_model.onnx, tokenizer.json, preprocessor_config.json, config.json
}

// Embedding questions with the text_embed role of a models directory,
// shared by many goroutines through a batcher.
func ExampleBatchedEmbedder() {
	ctx := context.Background()
	rt, err := models.NewRuntime(models.RuntimeOptions{Device: gpu.Spec{CUDA: true, Indices: []int{0}}})
	if err != nil {
		log.Fatal(err)
	}
	m, err := models.LoadManifest("/path/to/models")
	if err != nil {
		log.Fatal(err)
	}
	enc, err := rt.OpenTextEncoder(m, models.RoleTextEmbed, rt.Devices()[0])
	if err != nil {
		log.Fatal(err)
	}
	defer enc.Close()
	be := models.NewBatchedEmbedder(enc, models.BatchOptions{MaxBatch: 64})
	defer be.Close()
	vecs, err := be.Embed(ctx, []string{"What is the man doing?", "Why did the boy run?"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(vecs), be.Dim())
}
