package conformance

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// rolesTolerance bounds the difference between vidscreen's and
// transformers.js's float results on the same ONNX files: both run ONNX
// Runtime's CPU kernels, so the differences come from batching and padding
// (vidscreen pads a batch to its longest text, the pipeline too but in
// another order) and from float32 against float64 arithmetic in pooling,
// normalisation and the log-softmax.
const rolesTolerance = 1e-4

// roleTexts are the texts the text roles embed: the benchmarks' kind of
// questions and options, capitals, accents, punctuation, emoji and digits,
// each within every role's max_length.
var roleTexts = []string{
	"What is the man doing at the beginning of the video?",
	"Why did the girl pick up the red ball after the dog ran away?",
	"How many people are sitting on the sofa?",
	"A. playing the guitar",
	"the boy waves his hand",
	"Café au lait, naïve résumé — déjà vu",
	"🐶 the dog jumps! 🎉",
	"What happened after the woman opened the door? (choose one)",
	"yes",
	"Watch: 3 kids, 2 cats & 1 horse...",
	"ZEBRA CROSSING IN THE RAIN",
}

// longText is longer than every text role's max_length (77 for image_text,
// 128 for dup_confirm, 512 for text_embed's positions: 183 tokens). Python
// transformers truncates it keeping the final special token ([SEP]), and
// so does vidscreen (models.truncateKeepLast); transformers.js 4.3.1 cuts
// the ids after the special tokens are added (truncateHelper), dropping
// it. So the long text's vectors are compared on vidscreen's ids, fed to
// the same models through transformers.js, and its ids may differ from
// transformers.js's in the last position only.
var longText = strings.Repeat("the man walks to the table and picks up a cup then he sits down ", 12)

// rolesRequest is roles.cjs's input.
type rolesRequest struct {
	Dir  string `json:"dir"`
	CLIP struct {
		Texts  []string    `json:"texts"`
		Pixels pixelsInput `json:"pixels"`
	} `json:"clip"`
	Embed struct {
		Texts []string `json:"texts"`
	} `json:"embed"`
	Long struct {
		Text string                `json:"text"`
		IDs  map[models.Role][]int `json:"ids"`
	} `json:"long"`
	Caption struct {
		Pixels       pixelsInput `json:"pixels"`
		MaxNewTokens int         `json:"max_new_tokens"`
	} `json:"caption"`
	LM struct {
		Seqs         [][]int `json:"seqs"`
		Letters      [][]int `json:"letters"`
		Options      []int   `json:"options"`
		Generate     [][]int `json:"generate"`
		MaxNewTokens int     `json:"max_new_tokens"`
	} `json:"lm"`
	VLM struct {
		Prompts []vlmInput `json:"prompts"`
	} `json:"vlm"`
	Chat [][]chatMessage `json:"chat"`
}

// vlmInput is one VLM prompt as LlavaForConditionalGeneration takes it.
type vlmInput struct {
	IDs     []int       `json:"ids"`
	Pixels  pixelsInput `json:"pixels"`
	Options int         `json:"options"`
}

// chatMessage is one turn of a conversation; Content is a string or a
// list of parts ({"type": "image"}, {"type": "text", "text": ...}).
type chatMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type pixelsInput struct {
	N    int       `json:"n"`
	C    int       `json:"c"`
	H    int       `json:"h"`
	W    int       `json:"w"`
	Data []float32 `json:"data"`
}

func (p pixelsInput) batch() models.ImageBatch {
	return models.ImageBatch{N: p.N, C: p.C, H: p.H, W: p.W, Data: p.Data}
}

// rolesReply is roles.cjs's output.
type rolesReply struct {
	CLIPIDs        [][]int                   `json:"clip_ids"`
	CLIPText       [][]float64               `json:"clip_text"`
	CLIPImage      [][]float64               `json:"clip_image"`
	TextEmbedIDs   [][]int                   `json:"text_embed_ids"`
	TextEmbed      [][]float64               `json:"text_embed"`
	DupConfirmIDs  [][]int                   `json:"dup_confirm_ids"`
	DupConfirm     [][]float64               `json:"dup_confirm"`
	LongIDs        map[models.Role][]int     `json:"long_ids"`
	LongVec        map[models.Role][]float64 `json:"long_vec"`
	LMGenerated    [][]int                   `json:"lm_generated"`
	Chat           []string                  `json:"chat"`
	VLMClass       string                    `json:"vlm_class"`
	VLM            [][]float64               `json:"vlm"`
	VLMGenerated   [][]int                   `json:"vlm_generated"`
	Captions       [][]int                   `json:"captions"`
	CaptionTexts   []string                  `json:"caption_texts"`
	LetterLogProbs [][]float64               `json:"lm"`
}

// TestRolesMatchTransformersJS runs every role of the folder `vidscreen
// models init` writes through the functions the audit calls (package
// models) and through transformers.js loading the same folders, on the same
// texts, pixel values and token ids: embeddings and letter log-probabilities
// within rolesTolerance, token ids and captions exactly. vlm_reader is left
// out: no transformers.js class runs its files (onnxbuild's hfconfig.go
// says why).
func TestRolesMatchTransformersJS(t *testing.T) {
	dir := t.TempDir()
	if err := onnxbuild.WriteModelsDir(dir); err != nil {
		t.Fatal(err)
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 1})
	if err != nil {
		t.Fatalf("ONNX Runtime (make setup): %v", err)
	}
	ctx := context.Background()
	cpu := gpu.CPUDevice()

	var req rolesRequest
	req.Dir = dir
	req.CLIP.Texts = roleTexts
	req.CLIP.Pixels = noisePixels(6, 3, 32, 32, 1)
	req.Embed.Texts = roleTexts
	req.Long.Text = longText
	req.Long.IDs = map[models.Role][]int{}
	req.Caption.Pixels = colourFrames(onnxbuild.ColourImageSize)
	req.Caption.MaxNewTokens = m.Roles[models.RoleCaptioner].MaxNewTokens

	// Go side first: the LM's ids are the reference's input.
	it, err := rt.OpenImageText(m, cpu)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	goText, err := it.EmbedTexts(ctx, append(slices.Clone(roleTexts), longText))
	if err != nil {
		t.Fatal(err)
	}
	goImage, err := it.EmbedImages(ctx, req.CLIP.Pixels.batch())
	if err != nil {
		t.Fatal(err)
	}
	goEmbed := map[models.Role][][]float32{}
	goIDs := map[models.Role][][]int{}
	for _, role := range []models.Role{models.RoleImageText, models.RoleTextEmbed, models.RoleDupConfirm} {
		d, spec, err := m.Folder(role)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := models.LoadTokenizer(d + "/tokenizer.json")
		if err != nil {
			t.Fatal(err)
		}
		maxLen := spec.MaxLength
		if maxLen == 0 {
			maxLen = 512 // the encoders' default (models.RoleSpec)
		}
		for _, s := range append(slices.Clone(roleTexts), longText) {
			ids, err := tok.Encode(s, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) > maxLen {
				ids = append(ids[:maxLen-1], ids[len(ids)-1])
			}
			goIDs[role] = append(goIDs[role], ids)
		}
		req.Long.IDs[role] = goIDs[role][len(roleTexts)]
		goIDs[role] = goIDs[role][:len(roleTexts)]
		if role == models.RoleImageText {
			continue
		}
		enc, err := rt.OpenTextEncoder(m, role, cpu)
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Close()
		if goEmbed[role], err = enc.Embed(ctx, append(slices.Clone(roleTexts), longText)); err != nil {
			t.Fatal(err)
		}
	}
	capt, err := rt.OpenCaptioner(m, cpu)
	if err != nil {
		t.Fatal(err)
	}
	defer capt.Close()
	goCaptions, err := capt.Caption(ctx, req.Caption.Pixels.batch())
	if err != nil {
		t.Fatal(err)
	}
	lm, err := rt.OpenLetterScorer(m, cpu)
	if err != nil {
		t.Fatal(err)
	}
	defer lm.Close()
	prompts := letterPrompts()
	for _, p := range prompts {
		ids, err := lm.Encode(p)
		if err != nil {
			t.Fatal(err)
		}
		req.LM.Seqs = append(req.LM.Seqs, ids)
		req.LM.Options = append(req.LM.Options, p.Options)
	}
	req.LM.Letters = lm.LetterIDs()
	goScores, err := lm.Score(ctx, prompts)
	if err != nil {
		t.Fatal(err)
	}

	vlmPrompts, vlmPieces := vlmCases(t, m)
	for i, p := range vlmPrompts {
		req.VLM.Prompts = append(req.VLM.Prompts, vlmInput{IDs: vlmPieces[i].ids, Options: p.Options,
			Pixels: pixelsInput{N: p.Images.N, C: p.Images.C, H: p.Images.H, W: p.Images.W, Data: p.Images.Data}})
	}
	vlm, err := rt.OpenVLMReader(m, cpu)
	if err != nil {
		t.Fatal(err)
	}
	defer vlm.Close()
	goVLM, err := vlm.Score(ctx, vlmPrompts)
	if err != nil {
		t.Fatal(err)
	}

	req.LM.Generate = req.LM.Seqs[:3]
	req.LM.MaxNewTokens = 8
	for _, c := range chatCases {
		req.Chat = append(req.Chat, c.messages)
	}

	var ref rolesReply
	runJS(t, "roles.cjs", req, &ref)

	idCases := []struct {
		name     string
		got, ref [][]int
	}{
		{"image_text tokenizer", goIDs[models.RoleImageText], ref.CLIPIDs},
		{"text_embed tokenizer", goIDs[models.RoleTextEmbed], ref.TextEmbedIDs},
		{"dup_confirm tokenizer", goIDs[models.RoleDupConfirm], ref.DupConfirmIDs},
	}
	for _, c := range idCases {
		if len(c.got) != len(c.ref) {
			t.Fatalf("%s: %d sequences, reference %d", c.name, len(c.got), len(c.ref))
		}
		for i := range c.got {
			if !slices.Equal(c.got[i], c.ref[i]) {
				t.Errorf("%s: text %d: ids %v, transformers.js %v", c.name, i, c.got[i], c.ref[i])
			}
		}
	}
	for _, role := range []models.Role{models.RoleImageText, models.RoleTextEmbed, models.RoleDupConfirm} {
		got, js := req.Long.IDs[role], ref.LongIDs[role]
		if len(got) != len(js) || !slices.Equal(got[:len(got)-1], js[:len(js)-1]) {
			t.Errorf("%s: long text: ids %v, transformers.js %v: they may differ in the last id only", role, got, js)
		} else if got[len(got)-1] != js[len(js)-1] {
			t.Logf("%s: long text cut at %d ids: vidscreen ends with %d as Python transformers does, transformers.js with %d", role, len(got), got[len(got)-1], js[len(js)-1])
		}
	}

	withLong := func(rows [][]float64, role models.Role) [][]float64 {
		return append(slices.Clone(rows), ref.LongVec[role])
	}
	vecCases := []struct {
		name string
		got  [][]float32
		ref  [][]float64
	}{
		{"image_text text_embeds", goText, withLong(ref.CLIPText, models.RoleImageText)},
		{"image_text image_embeds", goImage, ref.CLIPImage},
		{"text_embed (cls, normalised)", goEmbed[models.RoleTextEmbed], withLong(ref.TextEmbed, models.RoleTextEmbed)},
		{"dup_confirm (mean, normalised)", goEmbed[models.RoleDupConfirm], withLong(ref.DupConfirm, models.RoleDupConfirm)},
	}

	for _, c := range vecCases {
		d := maxAbsDiff(t, c.name, c.got, c.ref)
		t.Logf("%s | transformers.js 4.3.1 | %d | %.3g | %g", c.name, len(c.ref), d, rolesTolerance)
		if d > rolesTolerance {
			t.Errorf("%s: largest difference %.3g, tolerance %g", c.name, d, rolesTolerance)
		}
	}

	if len(ref.Captions) != len(goCaptions) {
		t.Fatalf("captions: %d, reference %d", len(goCaptions), len(ref.Captions))
	}
	for i, c := range goCaptions {
		// generate returns the start token, then the new tokens.
		want := ref.Captions[i][1:]
		if len(want) < 3 {
			t.Errorf("frame %d: transformers.js wrote %v, not a caption", i, ref.Captions[i])
		}
		if !slices.Equal(c.IDs, want) || c.Text != ref.CaptionTexts[i] {
			t.Errorf("frame %d: caption %q %v, transformers.js %q %v", i, c.Text, c.IDs, ref.CaptionTexts[i], want)
		}
	}
	t.Logf("captioner greedy caption | transformers.js 4.3.1 | %d | ids equal | exact", len(goCaptions))

	got := make([][]float32, len(goScores))
	for i, s := range goScores {
		for _, x := range s {
			got[i] = append(got[i], float32(x))
		}
	}
	d := 0.0
	for i := range goScores {
		if len(goScores[i]) != len(ref.LetterLogProbs[i]) {
			t.Fatalf("prompt %d: %d letters, reference %d", i, len(goScores[i]), len(ref.LetterLogProbs[i]))
		}
		for k := range goScores[i] {
			d = math.Max(d, math.Abs(goScores[i][k]-ref.LetterLogProbs[i][k]))
		}
	}
	t.Logf("lm_reader letter log-probs | transformers.js 4.3.1 | %d | %.3g | %g", len(goScores), d, rolesTolerance)
	if d > rolesTolerance {
		t.Errorf("lm_reader letter log-probabilities: largest difference %.3g, tolerance %g", d, rolesTolerance)
	}

	// transformers.js generates through the LM's cache inputs; the same
	// weights decoding greedily without a cache (onnxbuild's Go
	// computation) write the same tokens.
	ref0 := onnxbuild.NewLM(onnxbuild.TinyLM, 3)
	for i, seq := range req.LM.Generate {
		want := greedy(ref0, seq, req.LM.MaxNewTokens, 102)
		if !slices.Equal(ref.LMGenerated[i], want) {
			t.Errorf("lm_reader generate from sequence %d: transformers.js %v, without a cache %v", i, ref.LMGenerated[i], want)
		}
	}
	t.Logf("lm_reader greedy generation (cache) | transformers.js 4.3.1 | %d | ids equal | exact", len(req.LM.Generate))

	if ref.VLMClass != "LlavaForConditionalGeneration" {
		t.Errorf("vlm_reader: transformers.js loaded %s, want LlavaForConditionalGeneration", ref.VLMClass)
	}
	d = 0
	for i := range goVLM {
		if len(goVLM[i]) != len(ref.VLM[i]) {
			t.Fatalf("vlm prompt %d: %d letters, reference %d", i, len(goVLM[i]), len(ref.VLM[i]))
		}
		for k := range goVLM[i] {
			d = math.Max(d, math.Abs(goVLM[i][k]-ref.VLM[i][k]))
		}
	}
	t.Logf("vlm_reader letter log-probs | transformers.js 4.3.1 | %d | %.3g | %g", len(goVLM), d, rolesTolerance)
	if d > rolesTolerance {
		t.Errorf("vlm_reader letter log-probabilities: largest difference %.3g, tolerance %g", d, rolesTolerance)
	}
	vref := onnxbuild.NewVLM(onnxbuild.TinyVLMVision, onnxbuild.TinyVLMText, 5)
	for i, pc := range vlmPieces {
		want := greedyVLM(vref, pc.pieces, req.LM.MaxNewTokens, 102)
		if !slices.Equal(ref.VLMGenerated[i], want) {
			t.Errorf("vlm_reader generate from prompt %d: transformers.js %v, without a cache %v", i, ref.VLMGenerated[i], want)
		}
	}
	t.Logf("vlm_reader greedy generation (cache) | transformers.js 4.3.1 | %d | ids equal | exact", len(vlmPieces))

	for i, c := range chatCases {
		if ref.Chat[i] != c.want {
			t.Errorf("chat template, %s: @huggingface/jinja renders %q, want %q", c.name, ref.Chat[i], c.want)
		}
	}
}

// chatCases are conversations for the readers' chat template and the text
// a ChatML template in Qwen2's form renders for them.
var chatCases = []struct {
	name     string
	messages []chatMessage
	want     string
}{
	{"user turn only", []chatMessage{{"user", "Question: what?\nAnswer:"}},
		"<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nQuestion: what?\nAnswer:<|im_end|>\n<|im_start|>assistant\n"},
	{"system turn and image parts", []chatMessage{{"system", "Answer with a letter."}, {"user", []map[string]string{{"type": "image"}, {"type": "image"}, {"type": "text", "text": "What colour?"}}}},
		"<|im_start|>system\nAnswer with a letter.<|im_end|>\n<|im_start|>user\n<image><image>What colour?<|im_end|>\n<|im_start|>assistant\n"},
}

// greedy decodes from seq with d's Go computation (no cache), until eos or
// n new tokens, eos included.
func greedy(d *onnxbuild.Decoder, seq []int, n, eos int) []int {
	seq = slices.Clone(seq)
	var out []int
	for len(out) < n {
		logits := d.Logits(d.Embed(seq), onnxbuild.Mat{})
		row := logits.Row(logits.Rows - 1)
		next := 0
		for k, x := range row {
			if x > row[next] {
				next = k
			}
		}
		out = append(out, next)
		if next == eos {
			break
		}
		seq = append(seq, next)
	}
	return out
}

// maxAbsDiff is the largest difference between got's and ref's values,
// which must have the same shape.
func maxAbsDiff(t *testing.T, name string, got [][]float32, ref [][]float64) float64 {
	t.Helper()
	if len(got) != len(ref) {
		t.Fatalf("%s: %d vectors, reference %d", name, len(got), len(ref))
	}
	d := 0.0
	for i := range got {
		if len(got[i]) != len(ref[i]) {
			t.Fatalf("%s: vector %d has %d values, reference %d", name, i, len(got[i]), len(ref[i]))
		}
		for k := range got[i] {
			d = math.Max(d, math.Abs(float64(got[i][k])-ref[i][k]))
		}
	}
	return d
}

// noisePixels is n images of normalised pixel values drawn from seed,
// within CLIP's normalised range.
func noisePixels(n, c, h, w int, seed uint64) pixelsInput {
	r := rand.New(rand.NewPCG(seed, 0x7069786573))
	p := pixelsInput{N: n, C: c, H: h, W: w, Data: make([]float32, n*c*h*w)}
	for i := range p.Data {
		p.Data[i] = float32(r.Float64()*4 - 2)
	}
	return p
}

// colourFrames draws the captioner's test frames at size x size, already
// normalised as its preprocessor does ((x / 255 - 0.5) / 0.5): plain
// backgrounds, one square, two squares, at several sizes and colours.
func colourFrames(size int) pixelsInput {
	type rgb = [3]float32
	red, blue, yellow, green := rgb{220, 30, 30}, rgb{30, 70, 220}, rgb{245, 215, 30}, rgb{30, 160, 50}
	white, black, orange, purple := rgb{240, 240, 240}, rgb{15, 15, 15}, rgb{240, 140, 20}, rgb{130, 40, 170}
	type square struct {
		x, y, s int
		c       rgb
	}
	frames := []struct {
		bg rgb
		sq []square
	}{
		{blue, []square{{40, 40, 32, red}}},
		{green, []square{{30, 30, 50, yellow}}},
		{yellow, nil},
		{black, []square{{10, 10, 30, white}, {70, 60, 30, orange}}},
		{white, []square{{50, 20, 20, purple}}},
		{purple, []square{{0, 0, 56, green}, {60, 60, 40, red}}},
		{orange, []square{{20, 70, 12, blue}}},
		{red, nil},
	}
	p := pixelsInput{N: len(frames), C: 3, H: size, W: size, Data: make([]float32, len(frames)*3*size*size)}
	for i, f := range frames {
		img := p.Data[i*3*size*size : (i+1)*3*size*size]
		for y := range size {
			for x := range size {
				col := f.bg
				for _, s := range f.sq {
					if x >= s.x && x < s.x+s.s && y >= s.y && y < s.y+s.s {
						col = s.c
					}
				}
				for ch := range 3 {
					img[ch*size*size+y*size+x] = (col[ch]/255 - 0.5) / 0.5
				}
			}
		}
	}
	return p
}

// letterPrompts are multiple-choice prompts as the attackers write them
// (harness/attack: options with their letters, then "Answer:"), with two
// to five options.
func letterPrompts() []letters.Prompt {
	questions := []struct {
		q    string
		opts []string
	}{
		{"What is the man doing at the beginning?", []string{"playing the guitar", "eating", "walking the dog", "sleeping", "dancing"}},
		{"Why did the girl cry?", []string{"she fell", "she was happy"}},
		{"How many people are in the room?", []string{"one", "two", "three"}},
		{"What happened after the door opened?", []string{"a cat came in", "the light went off", "nothing", "a man left"}},
		{"Is the ball red?", []string{"yes", "no"}},
		{"Où est le café?", []string{"sur la table", "dans la cuisine", "🐶"}},
	}
	var out []letters.Prompt
	for _, q := range questions {
		var b strings.Builder
		fmt.Fprintf(&b, "Question: %s\nOptions:\n", q.q)
		for j, o := range q.opts {
			fmt.Fprintf(&b, "%c. %s\n", 'A'+j, o)
		}
		b.WriteString("Answer with the option's letter.\nAnswer:")
		out = append(out, letters.Prompt{Text: b.String(), Options: len(q.opts)})
	}
	return out
}

// vlmPrompt is a VLM prompt's input_ids as LlavaForConditionalGeneration
// takes them and its pieces (token ids and images) for onnxbuild's Go
// computation.
type vlmPrompt struct {
	ids    []int
	pieces []any
}

// vlmCases are VLM prompts with no, one and two frames, and each as the
// reference takes it. The ids follow VLMReader's layout (models/vlm.go): the
// config's bos_token_id, then the text between <image> placeholders
// tokenized without special tokens, each image as its feature rows (here
// the image token once per row).
func vlmCases(t *testing.T, m *models.Manifest) ([]models.VLMPrompt, []vlmPrompt) {
	t.Helper()
	dir, _, err := m.Folder(models.RoleVLMReader)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := models.LoadTokenizer(dir + "/tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	v := onnxbuild.TinyVLMVision
	rows := (v.Image / v.Patch) * (v.Image / v.Patch)
	frames := noisePixels(3, v.Channels, v.Image, v.Image, 2)
	size := v.Channels * v.Image * v.Image
	lp := letterPrompts()
	texts := []struct {
		text   string
		images int
	}{
		{lp[0].Text, 0},
		{models.ImagePlaceholder + "\n" + lp[1].Text, 1},
		{"Frames: " + models.ImagePlaceholder + " then " + models.ImagePlaceholder + "\n" + lp[2].Text, 2},
	}
	var prompts []models.VLMPrompt
	var refs []vlmPrompt
	used := 0
	for i, c := range texts {
		imgs := models.ImageBatch{N: c.images, C: v.Channels, H: v.Image, W: v.Image, Data: frames.Data[used*size : (used+c.images)*size]}
		prompts = append(prompts, models.VLMPrompt{Text: c.text, Images: imgs, Options: lp[i].Options})
		r := vlmPrompt{ids: []int{101}, pieces: []any{[]int{101}}}
		for k, part := range strings.Split(c.text, models.ImagePlaceholder) {
			if k > 0 {
				for range rows {
					r.ids = append(r.ids, onnxbuild.VLMImageToken)
				}
				img := used + k - 1
				r.pieces = append(r.pieces, frames.Data[img*size:(img+1)*size])
			}
			ids, err := tok.Encode(part, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) > 0 {
				r.ids = append(r.ids, ids...)
				r.pieces = append(r.pieces, ids)
			}
		}
		refs = append(refs, r)
		used += c.images
	}
	return prompts, refs
}

// greedyVLM decodes from pieces with m's Go computation (no cache), until
// eos or n new tokens, eos included.
func greedyVLM(m *onnxbuild.VLM, pieces []any, n, eos int) []int {
	pieces = slices.Clone(pieces)
	var out []int
	for len(out) < n {
		logits := m.Logits(pieces...)
		row := logits.Row(logits.Rows - 1)
		next := 0
		for k, x := range row {
			if x > row[next] {
				next = k
			}
		}
		out = append(out, next)
		if next == eos {
			break
		}
		pieces = append(pieces, []int{next})
	}
	return out
}
