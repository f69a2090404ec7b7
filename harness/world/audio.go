package world

import (
	"math/rand/v2"

	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// The audio family (Video-Oasis 3.1, the audio test): the soundtrack names
// two colours, one tone per colour word at the pitch onnxbuild.ToneASR
// hears as that word, and the items ask which colour it names first and
// last. The frames show two large bystanders over a background, all of
// class-C colours, so no frame, caption or bag of frames carries a class-4
// or class-5 colour: only a transcript of the audio answers. It is the
// only family whose videos have an audio stream, so the transcript
// attackers abstain on every other family's items (no audio stream).

// audioSeedStream is the PCG stream of the audio family's own generator.
const audioSeedStream = 0x617564696f

// toneLead is when the first tone starts (s), toneAmp its amplitude.
const (
	toneLead = 0.5
	toneAmp  = 0.3
)

// audioVideos is the number of audio-family videos a world of opt has,
// beyond opt.Videos: a tenth of them, at least four.
func audioVideos(opt Options) int { return max(4, opt.Videos/10) }

// audioPlanner returns the audio family's own generator for opt.
func audioPlanner(opt Options) *planner {
	return &planner{rng: rand.New(rand.NewPCG(opt.Seed, audioSeedStream))}
}

func (p *planner) audio(v *video) {
	p.bystanders(v)
	first, last := p.pick(class4), p.pick(class5)
	v.scene.Tones = []string{first.String(), last.String()}
	v.items = append(v.items,
		colourItem("audio-first", "Which colour does the soundtrack name first?", first, class4),
		colourItem("audio-last", "Which colour does the soundtrack name last?", last, class5))
}

// soundtrack renders s's tones over its duration at the encoder's rate;
// nil when s has none.
func soundtrack(s *Scene) []float32 {
	if len(s.Tones) == 0 {
		return nil
	}
	return onnxbuild.ToneTrack(s.Tones, toneLead, s.Duration, toneAmp)
}
