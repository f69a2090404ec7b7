package onnxbuild

import (
	"encoding/json"
	"fmt"
	"os"
)

// The colour-and-shape models (ColourModel, ColourCaptioner) read and write
// a small English vocabulary: the names of twelve colours and four shapes,
// the words of their captions, and common question words, in a BERT-style
// WordPiece tokenizer.json that models/tokenizer loads like any HF file.
// Words outside it become [UNK] and carry no meaning for the models.

// ColourNames are the colours the models know, in the order of their
// prototypes; "gray" is read as "grey".
var ColourNames = []string{"red", "green", "blue", "yellow", "purple", "orange", "white", "black", "cyan", "pink", "brown", "grey"}

// colourPrototypes are the RGB values (0-255) each colour name is measured
// against: typical values of each name, at least 85 levels apart.
var colourPrototypes = [][3]float32{
	{220, 30, 30}, {30, 160, 50}, {30, 70, 220}, {245, 215, 30}, {130, 50, 170}, {245, 130, 30},
	{245, 245, 245}, {20, 20, 20}, {40, 210, 220}, {245, 150, 200}, {125, 75, 35}, {128, 128, 128},
}

// ShapeNames are the shapes the models know, and shapeFill the share of its
// bounding box each fills: a square all of it, a circle pi/4, a triangle
// with its base along one side half, a regular five-pointed star about a
// third.
var (
	ShapeNames = []string{"square", "circle", "triangle", "star"}
	shapeFill  = []float32{1, 0.785398, 0.5, 0.33}
)

// Special token ids of the vocabulary, BERT's names.
const (
	tokPad = iota
	tokUnk
	tokCLS
	tokSEP
	tokMask
)

// colourVocab lists the vocabulary in id order.
func colourVocab() []string {
	v := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	v = append(v, ColourNames...)
	v = append(v, "gray", "colour", "color", "colours", "colors")
	v = append(v, ShapeNames...)
	v = append(v, "shape", "shapes", "object", "objects", "thing")
	// Caption words, then common question and option words.
	v = append(v, "a", "an", "the", "on", "and", "background", "with", "of", "in", "at", "is", "are", "it", "there",
		"what", "which", "who", "how", "many", "much", "does", "do", "did", "can", "you", "see", "appear", "appears",
		"first", "last", "before", "after", "video", "clip", "scene", "frame", "small", "large", "big", "left", "right",
		"up", "down", "top", "bottom", "middle", "centre", "center", "moving", "move", "moves", "time", "times",
		"change", "changes", "yes", "no", "not", "one", "two", "three", "four", "man", "woman", "person", "people",
		"doing", "why", "where", "when", "while", "for", "to", "from", "this", "that", "show", "shows", "shown")
	v = append(v, "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "?", ".", ",", ":", "!", "'", "-")
	v = append(v, "##s", "##es", "##ed", "##ing")
	return v
}

// wordIndex maps each vocabulary word to its id.
func wordIndex() map[string]int {
	m := map[string]int{}
	for i, w := range colourVocab() {
		m[w] = i
	}
	return m
}

// colourOfToken and shapeOfToken give, per token id, the colour or shape it
// names, or -1.
func colourOfToken() []int {
	vocab := colourVocab()
	out := make([]int, len(vocab))
	for i, w := range vocab {
		out[i] = -1
		for c, name := range ColourNames {
			if w == name || (w == "gray" && name == "grey") {
				out[i] = c
			}
		}
	}
	return out
}

func shapeOfToken() []int {
	vocab := colourVocab()
	out := make([]int, len(vocab))
	for i, w := range vocab {
		out[i] = -1
		for s, name := range ShapeNames {
			if w == name {
				out[i] = s
			}
		}
	}
	return out
}

// WriteColourTokenizer writes the vocabulary as a HF tokenizer.json: BERT's
// normalizer (lower case), pre-tokenizer (whitespace and punctuation),
// WordPiece with "##" continuations, [CLS] ... [SEP] around every text, and
// the WordPiece decoder.
func WriteColourTokenizer(path string) error {
	vocab := map[string]int{}
	for i, w := range colourVocab() {
		vocab[w] = i
	}
	special := func(id int, s string) map[string]any {
		return map[string]any{"id": id, "content": s, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}
	}
	tok := map[string]any{
		"version":    "1.0",
		"truncation": nil,
		"padding":    nil,
		"added_tokens": []any{special(tokPad, "[PAD]"), special(tokUnk, "[UNK]"), special(tokCLS, "[CLS]"),
			special(tokSEP, "[SEP]"), special(tokMask, "[MASK]")},
		"normalizer":    map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{
			"type":   "TemplateProcessing",
			"single": []any{map[string]any{"SpecialToken": map[string]any{"id": "[CLS]", "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}, map[string]any{"SpecialToken": map[string]any{"id": "[SEP]", "type_id": 0}}},
			"pair": []any{map[string]any{"SpecialToken": map[string]any{"id": "[CLS]", "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}, map[string]any{"SpecialToken": map[string]any{"id": "[SEP]", "type_id": 0}},
				map[string]any{"Sequence": map[string]any{"id": "B", "type_id": 1}}, map[string]any{"SpecialToken": map[string]any{"id": "[SEP]", "type_id": 1}}},
			"special_tokens": map[string]any{
				"[CLS]": map[string]any{"id": "[CLS]", "ids": []int{tokCLS}, "tokens": []string{"[CLS]"}},
				"[SEP]": map[string]any{"id": "[SEP]", "ids": []int{tokSEP}, "tokens": []string{"[SEP]"}},
			},
		},
		"decoder": map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": vocab},
	}
	b, err := json.MarshalIndent(tok, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("onnxbuild: write %s: %w", path, err)
	}
	return nil
}
