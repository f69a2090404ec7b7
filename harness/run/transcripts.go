package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/internal/checksum"
)

// Transcriber is the asr role as the audit uses it: the text heard in a 16
// kHz mono track (models.Transcriber, or a served transcription endpoint).
// It must be safe for concurrent use.
type Transcriber interface {
	Transcribe(ctx context.Context, samples []float32) (string, error)
}

// transcriptEntry is one video's cached transcript: the asr's text, or
// that the video has no audio stream, or why its audio could not be read.
type transcriptEntry struct {
	NoStream bool   `json:"no_stream,omitempty"`
	Text     string `json:"text"`
	Failure  string `json:"failure,omitempty"`
	err      error  // the asr's error, for failureASR
}

// failureASR is the transcript failure of a video the asr role could not
// transcribe (a served asr that kept failing after its retries).
const failureASR = "asr"

// transcriptsVersion names how transcripts are made beyond the asr's files
// (the audio decoding, the features): change it when either changes.
const transcriptsVersion = "1"

// transcripts fills vis[i].Transcript for the transcript attackers: each
// video's audio track is decoded once (decode.AudioCache under the run's
// cache, keyed by the video's content) and transcribed once by the asr
// role (the run's cache again, keyed by the content and the asr's files),
// and each transcript and the items' options are embedded by the run's
// text embedder. A video without an audio stream, or whose audio fails,
// gives its items a transcript the attackers abstain on; the counts go to
// the progress log.
func (a *audit) transcripts(ctx context.Context, emb textEmbedder, vis []*attack.Visual, fr *features.Result) error {
	if v := a.opt.Video; v == nil || v.ASR == nil {
		return nil
	}
	hashes, entries, err := a.hear(ctx, fr)
	if err != nil {
		return err
	}
	return a.transcriptsOf(ctx, emb, vis, fr, hashes, entries)
}

// hear transcribes each distinct video of fr once (its audio decoded
// through decode.AudioCache, its transcript kept in the run's cache, both
// flat in cache/ so that merge carries a shard's), in parallel, and returns
// the videos' content hashes, sorted, with their entries. A shard runs it
// to fill its cache for the merge.
func (a *audit) hear(ctx context.Context, fr *features.Result) ([]string, []transcriptEntry, error) {
	v := a.opt.Video
	cacheDir := filepath.Join(a.opt.Out, rundir.CacheDir)
	acache := decode.AudioCache{Dir: cacheDir}
	// The videos to hear, by content, in a fixed order.
	paths := map[string]string{}
	for _, f := range fr.Items {
		if f.Failure == "" && f.Hash != "" && f.Video >= 0 {
			paths[f.Hash] = fr.Videos[f.Video].Path
		}
	}
	hashes := make([]string, 0, len(paths))
	for h := range paths {
		hashes = append(hashes, h)
	}
	sort.Strings(hashes)
	entries := make([]transcriptEntry, len(hashes))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, v.Decode.Workers))
	meter := a.opt.Progress.Stage("transcribe", int64(len(hashes)), "videos")
	for k, h := range hashes {
		g.Go(func() error {
			e, err := a.transcribe(gctx, acache, cacheDir, paths[h], h)
			if err != nil {
				return err
			}
			entries[k] = e
			meter.Add(1)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		meter.Exit()
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("audit interrupted (what is stored in %s stays; run again to resume): %w", a.opt.Out, ctx.Err())
		}
		return nil, nil, fmt.Errorf("asr: %w", err)
	}
	meter.Finish()
	return hashes, entries, nil
}

// transcriptsOf finishes transcripts with what hear returned: the counts,
// and the transcripts and options embedded.
func (a *audit) transcriptsOf(ctx context.Context, emb textEmbedder, vis []*attack.Visual, fr *features.Result, hashes []string, entries []transcriptEntry) error {
	byHash := map[string]*transcriptEntry{}
	var texts []string
	textRow := map[string]int{}
	noStream, failed := 0, map[string]int{}
	for k, h := range hashes {
		e := &entries[k]
		byHash[h] = e
		switch {
		case e.NoStream:
			noStream++
		case e.Failure != "":
			failed[e.Failure]++
		case e.Text != "":
			if _, ok := textRow[e.Text]; !ok {
				textRow[e.Text] = len(texts)
				texts = append(texts, e.Text)
			}
		}
	}
	var firstErr error
	asked := 0
	for _, e := range entries {
		if !e.NoStream && (e.Failure == "" || e.Failure == failureASR) {
			asked++
		}
		if e.err != nil && firstErr == nil {
			firstErr = e.err
		}
	}
	if asked > 0 && failed[failureASR] == asked {
		return fmt.Errorf("asr: every one of the %d audio tracks failed; the first: %w", asked, firstErr)
	}
	if firstErr != nil {
		a.opt.Progress.Warn(fmt.Sprintf("the asr could not transcribe %d of %d audio tracks; the transcript attackers abstain on their items (first: %v)", failed[failureASR], asked, firstErr))
	}
	a.opt.Progress.Note("transcripts done", "videos", len(hashes), "no_audio_stream", noStream, "heard", len(textRow), "audio_failed", failedBy(failed))
	cache := a.cache()
	var options []string
	for _, item := range a.items {
		options = append(options, item.Options...)
	}
	om, bad, err := cachedEmbed(ctx, cache, "te-options", emb, options)
	if err != nil {
		return err
	}
	off := 0
	badItem := map[int]bool{}
	for i, item := range a.items {
		for range item.Options {
			for _, r := range bad {
				if r == off {
					badItem[i] = true
				}
			}
			off++
		}
	}
	tm, badT, err := cachedEmbed(ctx, cache, "te-transcripts", emb, texts)
	if err != nil {
		return err
	}
	badText := map[int]bool{}
	for _, r := range badT {
		badText[r] = true
	}
	off = 0
	for i, item := range a.items {
		k := len(item.Options)
		f := fr.Items[i]
		e, ok := byHash[f.Hash]
		x := &attack.Transcript{}
		vis[i].Transcript = x
		if f.Failure != "" || !ok {
			off += k
			continue
		}
		x.NoStream, x.Text = e.NoStream, e.Text
		if e.Failure != "" {
			x.Text = "" // the attackers abstain: nothing was heard
		}
		if r, ok := textRow[x.Text]; ok && !badText[r] && !badItem[i] {
			x.Embedding = tm.Row(r)
			x.Options = sliceRows(om, off, off+k)
		}
		off += k
	}
	return nil
}

// transcribe returns the transcript of the video at path whose content is
// hash, from the run's cache or made and stored there.
func (a *audit) transcribe(ctx context.Context, acache decode.AudioCache, dir, path, hash string) (transcriptEntry, error) {
	v := a.opt.Video
	p := filepath.Join(dir, fmt.Sprintf("transcript-%s-%s.json", hash, rundir.ContentKey(v.ASRName+"/"+transcriptsVersion, nil, nil)))
	var e transcriptEntry
	b, err := checksum.ReadFile(p)
	switch {
	case err == nil && json.Unmarshal(b, &e) == nil:
		return e, nil
	case err != nil && errors.Is(err, checksum.ErrDamaged):
		a.cacheDamaged(p)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return e, err
	}
	e = transcriptEntry{}
	au, _, err := acache.Load(ctx, path, hash)
	switch {
	case err != nil && decode.KindOf(err) != "":
		e.Failure = string(decode.KindOf(err))
	case err != nil:
		return e, err
	case au.NoStream:
		e.NoStream = true
	default:
		if e.Text, err = v.ASR.Transcribe(ctx, au.Samples); err != nil {
			if ctx.Err() != nil {
				return e, ctx.Err()
			}
			// This video's items only; not stored, so a later run asks
			// again.
			return transcriptEntry{Failure: failureASR, err: fmt.Errorf("%s: %w", path, err)}, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return e, err
	}
	err = checksum.Write(p, func(w io.Writer) error {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})
	return e, err
}
