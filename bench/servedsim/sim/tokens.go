package sim

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"image"
	_ "image/jpeg" // the client's frames
	_ "image/png"
	"strings"
	"sync"
	"unicode"
)

// A Prompt is a request as the engine sees it: its tokens, in order, as
// ids. Only equality of ids matters (the prefix cache compares them), so
// ids are hashes of the pieces they stand for.
type Prompt struct {
	Tokens []uint64
	// Images counts the images; ImageTokens the tokens they cost.
	Images, ImageTokens int
}

// Tokenizer turns a chat request into a Prompt. Text is cut into the
// pieces a byte-level BPE of a 7B model mostly makes of English (a word
// with its leading space, one digit, one punctuation mark, a newline), one
// token each; the chat template is ChatML's (Qwen2.5's: a system turn
// first, then per turn <|im_start|>ROLE\n ... <|im_end|>\n); an image is
// ImageTokens(Family) tokens whose ids are derived from the image's bytes
// and the position within it, so the same image is the same tokens.
type Tokenizer struct {
	Family string
	// Fixed is the count per image for FamilyFixed.
	Fixed int
	// sizes remembers each distinct image's token count by its digest.
	mu    sync.Mutex
	sizes map[uint64]int
}

// NewTokenizer checks family.
func NewTokenizer(family string, fixed int) (*Tokenizer, error) {
	if _, err := ImageTokens(family, 448, 252, fixed); err != nil {
		return nil, err
	}
	return &Tokenizer{Family: family, Fixed: fixed, sizes: map[uint64]int{}}, nil
}

// A Turn is one chat message: text and images in the order they came.
type Turn struct {
	Role  string
	Parts []Part
}

// A Part is text or an image (a data URL).
type Part struct {
	Text     string
	ImageURL string
}

// systemTurn is Qwen2.5's default system turn, which its template adds
// when the request has none: a prefix every request shares.
const systemTurn = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."

// Tokens tokenizes a chat: the template around turns; with cont the last
// turn is left open (continue_final_message), otherwise with gen an
// assistant header follows (add_generation_prompt).
func (t *Tokenizer) Tokens(turns []Turn, cont, gen bool) (Prompt, error) {
	var p Prompt
	special := func(s string) { p.Tokens = append(p.Tokens, hashString("\x00"+s)) }
	header := func(role string) {
		special("<|im_start|>")
		t.text(&p, role+"\n")
	}
	if len(turns) == 0 || turns[0].Role != "system" {
		header("system")
		t.text(&p, systemTurn)
		special("<|im_end|>")
		t.text(&p, "\n")
	}
	for i, turn := range turns {
		header(turn.Role)
		for j, part := range turn.Parts {
			if part.ImageURL == "" {
				t.text(&p, part.Text)
				continue
			}
			n, h, err := t.image(part.ImageURL)
			if err != nil {
				return Prompt{}, fmt.Errorf("messages[%d].content[%d]: %w", i, j, err)
			}
			p.Images++
			p.ImageTokens += n
			for k := range n {
				p.Tokens = append(p.Tokens, h^uint64(k+1)*0x9e3779b97f4a7c15)
			}
		}
		if cont && i == len(turns)-1 {
			return p, nil
		}
		special("<|im_end|>")
		t.text(&p, "\n")
	}
	if gen {
		header("assistant")
	}
	return p, nil
}

// image returns an image's token count and its digest; the size is read
// from the image's header, once per distinct image.
func (t *Tokenizer) image(url string) (int, uint64, error) {
	h := hashString(url)
	t.mu.Lock()
	defer t.mu.Unlock()
	if n, ok := t.sizes[h]; ok {
		return n, h, nil
	}
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return 0, 0, fmt.Errorf("image URL %.40q is not a data URL (this server fetches nothing)", url)
	}
	_, data, ok := strings.Cut(rest, ";base64,")
	if !ok {
		return 0, 0, fmt.Errorf("image data URL is not base64")
	}
	cfg, _, err := image.DecodeConfig(base64.NewDecoder(base64.StdEncoding, strings.NewReader(data)))
	if err != nil {
		return 0, 0, fmt.Errorf("image: %w", err)
	}
	n, err := ImageTokens(t.Family, cfg.Width, cfg.Height, t.Fixed)
	if err != nil {
		return 0, 0, err
	}
	if len(t.sizes) > 1<<16 { // bounded: forget, and read headers again
		clear(t.sizes)
	}
	t.sizes[h] = n
	return n, h, nil
}

// text appends the pieces of s.
func (t *Tokenizer) text(p *Prompt, s string) {
	rs := []rune(s)
	for i := 0; i < len(rs); {
		j := i + 1
		switch r := rs[i]; {
		case r == ' ' && j < len(rs) && unicode.IsLetter(rs[j]), unicode.IsLetter(r):
			for j < len(rs) && unicode.IsLetter(rs[j]) {
				j++
			}
		}
		p.Tokens = append(p.Tokens, hashString(string(rs[i:j])))
		i = j
	}
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// chain hashes a block's tokens onto its parent's hash, as vLLM's block
// hashes do, so that equal hashes mean equal prefixes.
func chain(parent uint64, toks []uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], parent)
	h.Write(b[:])
	for _, x := range toks {
		binary.LittleEndian.PutUint64(b[:], x)
		h.Write(b[:])
	}
	return h.Sum64()
}
