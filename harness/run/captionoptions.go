package run

import (
	"fmt"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// CaptionOptions rebuilds, from the videos part of a finished run's
// config.json and the models opened again (v), the feature options under
// which the audit wrote the captions its captions-reader read: the same
// uniform frames, decode size, preprocessing, image tower and captioner.
// The red-team gate (vidscreen select) captions a selection with them, so
// that captions-reader re-reads the released option order on the captions
// the audit judged (Video-Index 5.2). Models other than the run's are
// refused: their captions would not be the ones the screen judged. The
// features are cached under cacheDir, which should not be the run's: the
// gate writes nothing into a run.
func CaptionOptions(c *rundir.VideoConfig, v *VideoModels, root, cacheDir string) (features.Options, error) {
	switch {
	case c == nil || c.Captioner == "":
		return features.Options{}, fmt.Errorf("the run captioned no frames (its config.json names no captioner)")
	case v == nil || len(v.Captioner) == 0:
		return features.Options{}, fmt.Errorf("the run's captions were written by %s: the models have no captioner", c.Captioner)
	case v.CaptionerName != c.Captioner:
		return features.Options{}, fmt.Errorf("the models' captioner is %s, but the run's captions were written by %s", v.CaptionerName, c.Captioner)
	case HostFramesName(v.ImageName) != HostFramesName(c.ImageText):
		// The captioner reads host frames on either frame path.
		return features.Options{}, fmt.Errorf("the models' image_text is %s, but the run's frames were read by %s", v.ImageName, c.ImageText)
	case c.Prep != imageprep.Version:
		return features.Options{}, fmt.Errorf("the run preprocessed frames with %s, this vidscreen with %s", c.Prep, imageprep.Version)
	}
	size, err := decode.ParseSize(c.Size)
	if err != nil {
		return features.Options{}, fmt.Errorf("config.json decode_size: %w", err)
	}
	frames := c.Frames
	if frames <= 0 {
		frames = features.UniformFrames
	}
	_, captioned := features.UniformSets(frames)
	encs := make([]features.ImageEncoder, len(v.ImageText))
	for d, m := range v.ImageText {
		encs[d] = m
	}
	return features.Options{
		Root: root, CacheDir: cacheDir, Sets: []features.Set{captioned},
		Image: encs, ImageName: v.ImageName, Prep: v.Prep, Devices: v.Devices,
		Captioner: v.Captioner, CaptionerName: v.CaptionerName,
		Size: size, Decode: v.Decode, MaxBatch: v.MaxBatch,
	}, nil
}

// CaptionTexts returns, per item of an Extract made with CaptionOptions,
// the captions of its clip's frames in time order, empty ones left out, as
// the audit gives them to captions-reader (attack.Visual.CaptionTexts); nil
// for an item whose video failed.
func CaptionTexts(fr *features.Result) [][]string {
	out := make([][]string, len(fr.Items))
	for i, f := range fr.Items {
		if f.Failure != "" || f.Video < 0 {
			continue
		}
		vid := fr.Videos[f.Video]
		for _, r := range f.Rows[features.CaptionSet.Name] {
			if c := vid.Captions[r]; c != "" {
				out[i] = append(out[i], c)
			}
		}
	}
	return out
}
