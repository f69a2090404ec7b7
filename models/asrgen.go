package models

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// whisperGeneration is what the asr role reads of a Whisper
// generation_config.json: the fields that make the decoder prompt
// (transformers' WhisperGenerationMixin._retrieve_init_tokens and
// transformers.js's WhisperForConditionalGeneration._retrieve_init_tokens)
// and the suppressed tokens. Every field it reads is checked for its JSON
// type by name: a null where a token id belongs is an error, except the
// language slot of forced_decoder_ids, where null means "detect".
type whisperGeneration struct {
	path string
	// start is decoder_start_token_id (<|startoftranscript|>); nil when
	// the file has none (config.json's is used).
	start *int
	// forced holds forced_decoder_ids' tokens by position 1, 2, ...; -1 is
	// a null (the language slot, detected).
	forced []int
	// langToID and taskToID map "<|en|>" and "transcribe" to their tokens;
	// a multilingual model has both.
	langToID, taskToID map[string]int
	// noTimestamps is <|notimestamps|>, added to the prompt unless it ends
	// with it already.
	noTimestamps *int
	// task and language are the newer fields that replace
	// forced_decoder_ids when set.
	task, language  string
	suppress, begin []int
}

// noLanguage marks the language slot of a prompt that is filled per
// track, by detection.
const noLanguage = -1

// parseWhisperGeneration reads generation_config.json's bytes. Fields it
// does not read are left alone (max_length, alignment_heads, ...); fields
// that would ask for a decoding it does not do (timestamps, beams,
// sampling) are refused by name.
func parseWhisperGeneration(path string, data []byte) (*whisperGeneration, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, jsonError(path, data, err, "")
	}
	g := &whisperGeneration{path: path}
	bad := func(field, want string, v json.RawMessage) error {
		return fmt.Errorf("%s: field %s: want %s, got %s", path, field, want, strings.TrimSpace(string(v)))
	}
	isNull := func(v json.RawMessage) bool { return strings.TrimSpace(string(v)) == "null" }
	// tokenID decodes a non-negative integer; null is refused.
	tokenID := func(field string, v json.RawMessage) (int, error) {
		var n int
		if isNull(v) || json.Unmarshal(v, &n) != nil || n < 0 {
			return 0, bad(field, "a token id (a non-negative integer)", v)
		}
		return n, nil
	}
	for _, key := range slices.Sorted(maps.Keys(raw)) {
		v := raw[key]
		switch key {
		case "decoder_start_token_id", "no_timestamps_token_id":
			if key == "no_timestamps_token_id" && isNull(v) {
				continue
			}
			n, err := tokenID(key, v)
			if err != nil {
				return nil, err
			}
			if key == "decoder_start_token_id" {
				g.start = &n
			} else {
				g.noTimestamps = &n
			}
		case "forced_decoder_ids":
			if isNull(v) {
				continue
			}
			var pairs [][]json.RawMessage
			if err := json.Unmarshal(v, &pairs); err != nil {
				return nil, bad(key, "a list of [position, token] pairs", v)
			}
			f, err := forcedTokens(path, pairs)
			if err != nil {
				return nil, err
			}
			g.forced = f
		case "lang_to_id", "task_to_id":
			if isNull(v) {
				continue
			}
			var m map[string]*int
			if err := json.Unmarshal(v, &m); err != nil {
				return nil, bad(key, "an object of token ids", v)
			}
			out := map[string]int{}
			for name, id := range m {
				if id == nil || *id < 0 {
					return nil, fmt.Errorf("%s: field %s.%s: want a token id, got null or a negative number", path, key, name)
				}
				out[name] = *id
			}
			if key == "lang_to_id" {
				g.langToID = out
			} else {
				g.taskToID = out
			}
		case "task", "language":
			if isNull(v) {
				continue
			}
			var s string
			if err := json.Unmarshal(v, &s); err != nil || s == "" {
				return nil, bad(key, "a string", v)
			}
			if key == "task" {
				g.task = s
			} else {
				g.language = s
			}
		case "suppress_tokens", "begin_suppress_tokens":
			if isNull(v) {
				continue
			}
			var ids []*int
			if err := json.Unmarshal(v, &ids); err != nil {
				return nil, bad(key, "a list of token ids", v)
			}
			out := make([]int, len(ids))
			for i, id := range ids {
				if id == nil || *id < 0 {
					return nil, fmt.Errorf("%s: field %s[%d]: want a token id, got null or a negative number", path, key, i)
				}
				out[i] = *id
			}
			if key == "suppress_tokens" {
				g.suppress = out
			} else {
				g.begin = out
			}
		case "return_timestamps", "do_sample":
			var b *bool
			if err := json.Unmarshal(v, &b); err != nil {
				return nil, bad(key, "true or false", v)
			}
			if b != nil && *b {
				return nil, fmt.Errorf("%s: field %s is true; the asr role decodes greedily without timestamps (set it false)", path, key)
			}
		case "num_beams":
			var n *int
			if err := json.Unmarshal(v, &n); err != nil {
				return nil, bad(key, "an integer", v)
			}
			if n != nil && *n > 1 {
				return nil, fmt.Errorf("%s: field num_beams is %d; the asr role decodes greedily (set it 1)", path, *n)
			}
		}
	}
	if _, ok := g.taskToID[g.task]; g.task != "" && !ok {
		return nil, fmt.Errorf("%s: field task: %q is not in task_to_id (%s)", path, g.task, strings.Join(slices.Sorted(maps.Keys(g.taskToID)), ", "))
	}
	return g, nil
}

// forcedTokens reads forced_decoder_ids: [position, token] pairs that must
// cover positions 1, 2, ... without a gap (what Whisper's generate
// requires), token null only at position 1, the language slot.
func forcedTokens(path string, pairs [][]json.RawMessage) ([]int, error) {
	type pair struct{ pos, tok int }
	var ps []pair
	for i, p := range pairs {
		field := fmt.Sprintf("forced_decoder_ids[%d]", i)
		if len(p) != 2 {
			return nil, fmt.Errorf("%s: field %s: want [position, token], got %d values", path, field, len(p))
		}
		var pos int
		if err := json.Unmarshal(p[0], &pos); err != nil || strings.TrimSpace(string(p[0])) == "null" || pos < 1 {
			return nil, fmt.Errorf("%s: field %s[0]: want a position (1 or more), got %s", path, field, p[0])
		}
		tok := noLanguage
		if strings.TrimSpace(string(p[1])) != "null" {
			if err := json.Unmarshal(p[1], &tok); err != nil || tok < 0 {
				return nil, fmt.Errorf("%s: field %s[1]: want a token id or null, got %s", path, field, p[1])
			}
		} else if pos != 1 {
			return nil, fmt.Errorf("%s: field %s[1]: null at position %d; only the language slot, position 1, may be null (detected)", path, field, pos)
		}
		ps = append(ps, pair{pos, tok})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].pos < ps[j].pos })
	out := make([]int, len(ps))
	for i, p := range ps {
		if p.pos != i+1 {
			return nil, fmt.Errorf("%s: field forced_decoder_ids: positions %v do not run 1, 2, ... without a gap, as Whisper's prompt does", path, positions(ps, func(p pair) int { return p.pos }))
		}
		out[i] = p.tok
	}
	return out, nil
}

func positions[T any](s []T, f func(T) int) []int {
	out := make([]int, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}

// languageToken returns the token of language, given as lang_to_id names
// it ("<|de|>") or as its code ("de"), case aside.
func (g *whisperGeneration) languageToken(language, from string) (int, error) {
	if len(g.langToID) == 0 {
		return 0, fmt.Errorf("%s: language %q given (%s), but the file has no lang_to_id: an English-only Whisper takes no language", g.path, language, from)
	}
	l := strings.ToLower(strings.TrimSpace(language))
	if !strings.HasPrefix(l, "<|") {
		l = "<|" + l + "|>"
	}
	if id, ok := g.langToID[l]; ok {
		return id, nil
	}
	return 0, fmt.Errorf("%s: language %q (%s) is not in lang_to_id; give a code it lists, such as %s", g.path, language, from, strings.Join(firstKeys(g.langToID, 5), ", "))
}

func firstKeys(m map[string]int, n int) []string {
	ks := slices.Sorted(maps.Keys(m))
	return ks[:min(n, len(ks))]
}

// prompt returns the decoder prompt and the index of its language token (1,
// or -1 for a prompt without one, an English-only model's); the token is
// noLanguage when it is to be detected per track. The rules are Whisper's
// generate's:
//
//   - <|startoftranscript|> (start, or the file's decoder_start_token_id);
//   - without a task or language (the manifest's language wins over the
//     file's), forced_decoder_ids' tokens by position;
//   - a multilingual model (lang_to_id) gets a language at position 1:
//     the one given, else the slot is left to detection;
//   - the task: the file's task replaces a task token already there, else
//     a multilingual model without one gets transcribe (transformers.js
//     does this always; transformers where a language is given);
//   - <|notimestamps|> last, unless the prompt already ends with it.
//
// A null language slot in a model without lang_to_id is an error: nothing
// could fill it.
func (g *whisperGeneration) prompt(start int, language string) ([]int, int, error) {
	if g == nil {
		return []int{start}, -1, nil
	}
	if g.start != nil {
		start = *g.start
	}
	from := "the manifest's language"
	if language == "" && g.language != "" {
		language, from = g.language, "generation_config.json's language"
	}
	p := []int{start}
	if g.task == "" && language == "" {
		p = append(p, g.forced...)
	}
	multilingual := len(g.langToID) > 0
	slot := -1
	switch {
	case language != "":
		id, err := g.languageToken(language, from)
		if err != nil {
			return nil, 0, err
		}
		p, slot = setSlot(p, id), 1
	case multilingual && (len(p) == 1 || p[1] == noLanguage):
		p, slot = setSlot(p, noLanguage), 1
	case multilingual && slices.Contains(slices.Collect(maps.Values(g.langToID)), p[1]):
		slot = 1 // forced_decoder_ids fixes the language
	case len(p) > 1 && p[1] == noLanguage:
		return nil, 0, fmt.Errorf("%s: field forced_decoder_ids: the language slot is null, but the file has no lang_to_id to detect it from", g.path)
	}
	taskIDs := slices.Collect(maps.Values(g.taskToID))
	hasTask := slices.ContainsFunc(p[1:], func(id int) bool { return slices.Contains(taskIDs, id) })
	switch {
	case g.task != "":
		id := g.taskToID[g.task]
		if hasTask {
			for i := 1; i < len(p); i++ {
				if slices.Contains(taskIDs, p[i]) {
					p[i] = id
				}
			}
		} else {
			p = append(p, id)
		}
	case multilingual && !hasTask:
		id, ok := g.taskToID["transcribe"]
		if !ok {
			return nil, 0, fmt.Errorf("%s: field task_to_id: a multilingual Whisper (lang_to_id) needs transcribe's token", g.path)
		}
		p = append(p, id)
	}
	if g.noTimestamps != nil && p[len(p)-1] != *g.noTimestamps {
		p = append(p, *g.noTimestamps)
	}
	return p, slot, nil
}

// setSlot puts id at position 1 of p, appending when p is the start alone.
func setSlot(p []int, id int) []int {
	if len(p) > 1 {
		p[1] = id
		return p
	}
	return append(p, id)
}
