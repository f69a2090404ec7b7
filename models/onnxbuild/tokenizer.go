package onnxbuild

import (
	"encoding/json"
	"fmt"
	"strings"
)

// tokenizerWords are the whole words of the generated WordPiece vocabulary:
// the words that recur in video question answering (NExT-QA, STAR,
// Social-IQ 2.0, VideoHallucer questions and options), so that the small
// models see one id per common word instead of a run of characters; the
// last lines are the words of the readers' wording (letters.Default), which
// would otherwise take most of the small readers' positions as characters.
// Any other word is split into single characters ("##x" pieces), never
// [UNK] for ASCII text.
const tokenizerWords = `the a an of to in on at by for with from and or but not no yes is are was were be been
being do does did doing done have has had having what why how who whom whose which when where
while before after during then than this that these those there here it its he she they them
his her their him man woman men women boy girl baby child children kid kids person people lady
guy dog cat bird horse animal ball toy car bike bicycle table chair sofa bed room house door
window floor ground water grass tree road street camera video hand hands head face arm arms leg
legs foot feet eye eyes mouth hair shirt hat dress food cup bottle phone book box bag paper
picture laptop television tv game music instrument guitar piano drum stick sticks red blue green
yellow black white brown small big large little long short first last next end start beginning
middle again still up down out over under into onto off away back around through left right
front behind near together other another each both all some many much more most one two three
four five six seven eight nine ten play plays playing played walk walks walking walked run runs
running ran sit sits sitting sat stand stands standing stood look looks looking looked watch
watching hold holds holding held pick picked picking put puts putting take takes taking took
give gives giving gave go goes going went come comes coming came turn turns turning move moving
moved talk talking talked say said speak speaking smile smiling smiled laugh laughing laughed
cry crying eat eating ate drink drinking open opening opened close closing closed throw throwing
threw catch catching caught push pushing pushed pull pulling pulled touch touching touched ride
riding dance dancing sing singing clap clapping wave waving jump jumping fall falling fell try
trying tried want wanted feel feeling felt happy sad angry surprised excited interested because
so if can could should would will may might must just also only very really about something
anything nothing someone everyone thing things way time times place scene happened happen
happens
you given frames question text using answer options below choose option likely correct letter
alone frame sampled based captions caption per order cannot see description instead itself
transcript audio answered questions videos nearest example`

// The BERT special tokens, at the ids bert-base-uncased gives them (the
// small models' configs name 101 and 102 as their start and end tokens).
const (
	bertPad  = 0
	bertUNK  = 100
	bertCLS  = 101
	bertSEP  = 102
	bertMask = 103
)

// WordPieceTokenizer returns a Hugging Face tokenizer.json for a BERT-style
// uncased WordPiece tokenizer (BertNormalizer, BertPreTokenizer, [CLS] ...
// [SEP] template) whose vocabulary is the special tokens at BERT's ids,
// every printable ASCII character, its "##" continuation, and
// tokenizerWords: a valid file that any HF tokenizers implementation loads,
// written by the program itself so that a fresh clone has one.
func WordPieceTokenizer() []byte {
	var vocab []string
	add := func(t string) {
		vocab = append(vocab, t)
	}
	add("[PAD]")
	// The first of BERT's unused ids hold the readers' chat template's
	// markers (chatMLTemplate), each one token as in a real reader's
	// vocabulary: <image>, the VLM's image token (VLMImageToken), and
	// ChatML's turn markers.
	for _, t := range chatTokens {
		add(t)
	}
	for i := len(vocab); i < bertUNK; i++ {
		add(fmt.Sprintf("[unused%d]", i-1))
	}
	add("[UNK]")
	add("[CLS]")
	add("[SEP]")
	add("[MASK]")
	seen := map[string]bool{}
	for _, t := range vocab {
		seen[t] = true
	}
	addNew := func(t string) {
		if !seen[t] {
			seen[t] = true
			add(t)
		}
	}
	for c := byte('!'); c <= '~'; c++ {
		if c >= 'A' && c <= 'Z' {
			continue // lower-cased before lookup
		}
		addNew(string(c))
	}
	for c := byte('!'); c <= '~'; c++ {
		if c >= 'A' && c <= 'Z' {
			continue
		}
		addNew("##" + string(c))
	}
	for _, w := range strings.Fields(tokenizerWords) {
		addNew(w)
	}
	ids := make(map[string]int, len(vocab))
	for i, t := range vocab {
		ids[t] = i
	}
	special := func(id int, content string) map[string]any {
		return map[string]any{"id": id, "content": content, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}
	}
	tok := func(id string, typ int) map[string]any {
		return map[string]any{"SpecialToken": map[string]any{"id": id, "type_id": typ}}
	}
	seq := func(id string, typ int) map[string]any {
		return map[string]any{"Sequence": map[string]any{"id": id, "type_id": typ}}
	}
	doc := map[string]any{
		"version":    "1.0",
		"truncation": nil,
		"padding":    nil,
		"added_tokens": append([]any{special(bertPad, "[PAD]")}, append(chatAdded(special), special(bertUNK, "[UNK]"), special(bertCLS, "[CLS]"),
			special(bertSEP, "[SEP]"), special(bertMask, "[MASK]"))...),
		"normalizer":    map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{
			"type":   "TemplateProcessing",
			"single": []any{tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0)},
			"pair":   []any{tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0), seq("B", 1), tok("[SEP]", 1)},
			"special_tokens": map[string]any{
				"[CLS]": map[string]any{"id": "[CLS]", "ids": []int{bertCLS}, "tokens": []string{"[CLS]"}},
				"[SEP]": map[string]any{"id": "[SEP]", "ids": []int{bertSEP}, "tokens": []string{"[SEP]"}},
			},
		},
		"decoder": map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": ids},
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		panic(err) // plain maps of strings and numbers always marshal
	}
	return append(b, '\n')
}

// chatTokens are the markers of the readers' chat template, at ids 1, 2,
// 3 of the WordPiece vocabulary (in place of [unused0] to [unused2]).
var chatTokens = []string{"<image>", "<|im_start|>", "<|im_end|>"}

// chatAdded lists chatTokens as added tokens, so that the tokenizer keeps
// each whole wherever the template writes it.
func chatAdded(special func(int, string) map[string]any) []any {
	var out []any
	for i, t := range chatTokens {
		out = append(out, special(1+i, t))
	}
	return out
}
