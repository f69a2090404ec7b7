package vidomni

import (
	"context"
	"fmt"
	"hash/fnv"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/openai"
)

// ChatModel is a generating vision-language model behind a local
// OpenAI-compatible server (*openai.Client with Config.Chat): it writes
// whole replies, so it gets the paper's prompts as they are and its
// replies are parsed as the paper parses them.
type ChatModel interface {
	Generate(ctx context.Context, r openai.GenerateRequest) (string, error)
}

// maxInFlight bounds the requests one video's pairs send at once (the
// client bounds them again across videos).
const maxInFlight = 8

// framesMessage is one user turn: the frames in time order as PNG images,
// then the text.
func framesMessage(frames []imageprep.Frame, text string) ([]openai.Message, error) {
	parts := make([]openai.Part, 0, len(frames)+1)
	for _, f := range frames {
		img, err := openai.RGBImage(f.Pix, f.Width, f.Height)
		if err != nil {
			return nil, err
		}
		parts = append(parts, openai.Part{Image: img})
	}
	parts = append(parts, openai.Part{Text: text})
	return []openai.Message{{Role: "user", Parts: parts}}, nil
}

// A Reply is a generating verifier's raw answer on one pair.
type Reply struct {
	Pair  *Pair
	Reply string
}

// VerifyChat sends each pair's caption, numbered sentence by sentence,
// with the video's sampled frames and the paper's verification prompt
// (figure 14) to a generating model and returns the raw replies, in the
// pairs' order; pairs whose video failed are left out. The replies are
// parsed by ParseReply when scored.
func VerifyChat(ctx context.Context, m ChatModel, fs *FrameSampler, pairs []*Pair, seed int64) ([]Reply, []FailedVideo, error) {
	videos, of := uniqueVideos(pairs)
	byVideo := make([][]int, len(videos))
	for i := range pairs {
		byVideo[of[i]] = append(byVideo[of[i]], i)
	}
	out := make([]Reply, len(pairs))
	var failed []FailedVideo
	err := fs.Each(ctx, videos, func(v int, frames []imageprep.Frame) error {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(maxInFlight)
		for _, i := range byVideo[v] {
			p := pairs[i]
			texts := make([]string, len(p.Sentences))
			for k, s := range p.Sentences {
				texts[k] = s.Text
			}
			msgs, err := framesMessage(frames, VerificationPrompt(texts))
			if err != nil {
				return fmt.Errorf("%s: %w", videos[v], err)
			}
			g.Go(func() error {
				reply, err := m.Generate(gctx, openai.GenerateRequest{Messages: msgs, Seed: seed})
				if err != nil {
					return fmt.Errorf("verify pair %s: %w", p.ID, err)
				}
				out[i] = Reply{Pair: p, Reply: reply}
				return nil
			})
		}
		return g.Wait()
	}, func(v int, err error) error {
		failed = append(failed, FailedVideo{videos[v], err})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var done []Reply
	for _, r := range out {
		if r.Pair != nil {
			done = append(done, r)
		}
	}
	return done, failed, nil
}

// InstructionFor picks one of the paper's captioning instructions for a
// video, as the paper assigns one at random per video and model, but from
// a hash of the seed and the video's name so that a run repeats.
func InstructionFor(video string, seed int64) int {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s", seed, video)
	return int(h.Sum64() % uint64(len(CaptioningInstructions)))
}

// CaptionChat asks a generating model for a dense caption of each video
// from its sampled frames with one of the paper's captioning instructions
// (figure 13, chosen by InstructionFor), and splits it into sentences.
func CaptionChat(ctx context.Context, m ChatModel, source string, fs *FrameSampler, videos []string, seed int64) ([]DenseCaption, []FailedVideo, error) {
	out := make([]DenseCaption, len(videos))
	ok := make([]bool, len(videos))
	var failed []FailedVideo
	err := fs.Each(ctx, videos, func(i int, frames []imageprep.Frame) error {
		k := InstructionFor(videos[i], seed)
		msgs, err := framesMessage(frames, CaptioningInstructions[k])
		if err != nil {
			return fmt.Errorf("%s: %w", videos[i], err)
		}
		caption, err := m.Generate(ctx, openai.GenerateRequest{Messages: msgs, Seed: seed})
		if err != nil {
			return fmt.Errorf("caption %s: %w", videos[i], err)
		}
		out[i] = DenseCaption{Pair: source + "/" + videos[i], Video: videos[i], Source: source, Caption: caption, Sentences: Split(caption), Frames: len(frames), Instruction: k + 1}
		ok[i] = true
		return nil
	}, func(i int, err error) error {
		failed = append(failed, FailedVideo{videos[i], err})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return captioned(out, ok), failed, nil
}
