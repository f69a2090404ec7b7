package world

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/progress"
	"github.com/vidscreen/vidscreen/harness/world/truth"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// Options size a world. The zero value of each field takes its default.
type Options struct {
	Seed uint64
	// Videos is the number of videos (default 100), shared among the
	// families by fixed weights; each family gets at least one. The audio
	// family's videos come on top (a tenth as many, at least four).
	Videos int
	// MinDuration and MaxDuration bound the videos' lengths in seconds
	// (defaults 4 and 40); a family whose scenes need more time (two
	// objects shown apart, a stretch away from the centre) lengthens its
	// videos to its own minimum.
	MinDuration, MaxDuration float64
	// Width, Height and FPS are the videos' size and frame rate (defaults
	// 192 x 144 at 6 frames per second: enough for a model to tell the
	// shapes apart, small enough that a hundred videos encode in seconds).
	Width, Height, FPS int
	// Workers encodes this many videos at once (GOMAXPROCS when 0); the
	// bytes do not depend on it.
	Workers int
	// Progress, when not nil, is told of each video encoded (a stage
	// "render"), so a person waiting sees the work move; it is no part of
	// the world and does not change its bytes.
	Progress *progress.Reporter
}

func (o *Options) defaults() error {
	if o.Videos == 0 {
		o.Videos = 100
	}
	if o.MinDuration == 0 {
		o.MinDuration = 4
	}
	if o.MaxDuration == 0 {
		o.MaxDuration = 40
	}
	if o.Width == 0 {
		o.Width, o.Height = 192, 144
	}
	if o.FPS == 0 {
		o.FPS = 6
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case o.Videos < MinVideos():
		return fmt.Errorf("world: %d videos: at least %d needed, one per family", o.Videos, MinVideos())
	case o.MinDuration < 1 || o.MaxDuration < o.MinDuration:
		return fmt.Errorf("world: durations %g to %g s: want 1 <= min <= max", o.MinDuration, o.MaxDuration)
	case o.Width < 64 || o.Height < 48 || o.Width%2 != 0 || o.Height%2 != 0:
		return fmt.Errorf("world: size %dx%d: want even sides of at least 64x48", o.Width, o.Height)
	case o.FPS < 1 || o.FPS > 60:
		return fmt.Errorf("world: %d frames per second: want 1 to 60", o.FPS)
	}
	return nil
}

// File names in a world directory.
const (
	ItemsFile = "items.jsonl"
	TruthFile = "truth.json"
	VideosDir = "videos"
	ModelsDir = "models"
)

// RendererVersion names how scenes become videos and models; truth.json
// records it, so that a cached world made by another version is not taken
// for this one's (Matches). Change it with any change to the pictures, the
// encoding or the models.
const RendererVersion = "vidscreen-world/2"

// A World is what Plan drew: the videos' scenes and the items about them,
// with the truth they are judged against.
type World struct {
	Options Options
	Items   []*harness.Item
	Truth   *truth.Truth
	videos  []*video
}

// Plan draws the world of opt without rendering anything.
func Plan(opt Options) (*World, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	p := &planner{rng: rand.New(rand.NewPCG(opt.Seed, 0x766964736372))}
	pool := append(append([]Colour{}, class4...), class5...)
	cs := distinct(p, pool, 6)
	p.copy = copyScene{shapes: distinct(p, Shapes(), 3), colours: cs[:3], wrong: cs[3:], bg: p.pick(classC)}

	fams := visualFamilies()
	counts := allocate(opt.Videos, fams)
	// Interleave the families so that video numbers do not reveal them.
	var order []int
	for left := opt.Videos; left > 0; {
		for f := range fams {
			if counts[f] > 0 {
				order = append(order, f)
				counts[f]--
				left--
			}
		}
	}
	w := &World{Options: opt}
	for i, f := range order {
		fam := &fams[f]
		d := opt.MinDuration + p.rng.Float64()*(opt.MaxDuration-opt.MinDuration)
		d = max(d, fam.minDuration)
		d = math.Round(d*float64(opt.FPS)) / float64(opt.FPS)
		v := &video{id: fmt.Sprintf("w%04d", i), family: fam, duration: d, scene: Scene{Duration: d}}
		fam.build(p, v)
		w.videos = append(w.videos, v)
	}
	// The audio family's videos follow, from a generator of their own.
	ap := audioPlanner(opt)
	audio := audioFamily()
	nVisual := len(w.videos)
	for k := range audioVideos(opt) {
		d := opt.MinDuration + ap.rng.Float64()*(opt.MaxDuration-opt.MinDuration)
		d = max(d, audio.minDuration)
		d = math.Round(d*float64(opt.FPS)) / float64(opt.FPS)
		v := &video{id: fmt.Sprintf("w%04d", nVisual+k), family: audio, duration: d, scene: Scene{Duration: d}}
		audio.build(ap, v)
		w.videos = append(w.videos, v)
	}
	w.Items, w.Truth = w.plannedItems(p, ap, nVisual)
	for redraws := 0; ; redraws++ {
		f := priorFamily(append(fams, *audio), w.Items)
		if f == "" {
			break
		}
		if redraws == maxRedraws {
			return nil, fmt.Errorf("world seed %d: family %s carries an answer prior after %d draws", opt.Seed, f, maxRedraws)
		}
		for _, v := range w.videos {
			if v.family.Name == f {
				v.scene, v.items = Scene{Duration: v.duration}, nil
				if v.family.audio {
					v.family.build(ap, v)
				} else {
					v.family.build(p, v)
				}
			}
		}
		w.Items, w.Truth = w.plannedItems(p, ap, nVisual)
	}
	return w, nil
}

// plannedItems places the gold options of the first nVisual videos with p
// and of the audio family's with ap, so that neither family's draws move
// the other's, and joins their items and truth.
func (w *World) plannedItems(p, ap *planner, nVisual int) ([]*harness.Item, *truth.Truth) {
	items, t := p.items(w.videos[:nVisual], w.Options)
	more, at := ap.items(w.videos[nVisual:], w.Options)
	for i, f := range at.Families {
		if f.Videos > 0 {
			t.Families[i] = f
		}
	}
	t.Videos += at.Videos
	t.Items = append(t.Items, at.Items...)
	return append(items, more...), t
}

// allocate shares n videos among the families by weight (largest
// remainder), at least one each.
func allocate(n int, fams []Family) []int {
	total := 0
	for _, f := range fams {
		total += f.weight
	}
	counts := make([]int, len(fams))
	rem := make([]float64, len(fams))
	left := n - len(fams)
	used := 0
	for i, f := range fams {
		x := float64(left) * float64(f.weight) / float64(total)
		counts[i] = 1 + int(x)
		rem[i] = x - math.Floor(x)
		used += counts[i]
	}
	for used < n {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		counts[best]++
		rem[best] = -1
		used++
	}
	return counts
}

// items turns the drafts into items, placing each gold option so that,
// within a family, every position holds the gold equally often (a shuffled
// deck of positions): no position prior is planted by accident.
func (p *planner) items(videos []*video, opt Options) ([]*harness.Item, *truth.Truth) {
	type deckKey struct {
		family string
		n      int
		// task splits the audio family's deck by question: its two
		// items on one video, dealt from one deck, would rarely share a
		// gold position (a sibling shortcut the siblings learner found
		// on seed 6).
		task string
	}
	decks := map[deckKey][]int{}
	draw := func(k deckKey) int {
		if len(decks[k]) == 0 {
			deck := make([]int, 0, 4*k.n)
			for range 4 {
				for j := range k.n {
					deck = append(deck, j)
				}
			}
			p.rng.Shuffle(len(deck), func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })
			decks[k] = deck
		}
		j := decks[k][0]
		decks[k] = decks[k][1:]
		return j
	}
	t := &truth.Truth{Renderer: RendererVersion, Seed: opt.Seed, Videos: len(videos)}
	famIndex := map[string]int{}
	for _, f := range Families() {
		famIndex[f.Name] = len(t.Families)
		t.Families = append(t.Families, truth.FamilyTruth{Name: f.Name, Benchmark: f.Benchmark(), Expected: f.Expected, Shortcut: f.Shortcut})
	}
	var out []*harness.Item
	for _, v := range videos {
		ft := &t.Families[famIndex[v.family.Name]]
		ft.Videos++
		for k, d := range v.items {
			var options []string
			answer := d.fixedGold
			if d.fixed != nil {
				options = append(options, d.fixed...)
			} else {
				others := append([]string{}, d.others...)
				p.rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
				k := deckKey{family: v.family.Name, n: len(others) + 1}
				if v.family.audio {
					k.task = d.task
				}
				answer = draw(k)
				options = append(options, others[:answer]...)
				options = append(options, d.gold)
				options = append(options, others[answer:]...)
			}
			dur := v.duration
			it := &harness.Item{
				ID: fmt.Sprintf("%s-%02d", v.id, k), Benchmark: ft.Benchmark, Video: v.id,
				Question: d.question, Options: options, Answer: answer, Task: d.task, Duration: &dur,
				Group: v.family.Name, VideoPath: VideosDir + "/" + v.id + ".mp4",
			}
			out = append(out, it)
			ft.Items++
			yn := it.YesNo()
			if yn {
				ft.YesNoItems++
			}
			t.Items = append(t.Items, truth.ItemTruth{ID: it.ID, Benchmark: it.Benchmark, Family: v.family.Name, Expected: v.family.Expected, YesNo: yn})
		}
	}
	return out, t
}

// Generate plans the world of opt and writes it to dir: videos/*.mp4,
// items.jsonl, truth.json and models/ (the colour-and-shape image_text model,
// the captioner and the tone asr of onnxbuild, with models.json); the audio
// family's videos carry an AAC soundtrack, the others none. Files are written under temporary names and
// renamed into place, so an interrupted run leaves no half-written file
// under a final name.
func Generate(ctx context.Context, dir string, opt Options) (*World, error) {
	w, err := Plan(opt)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, VideosDir), 0o755); err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(w.Options.Workers)
	render := opt.Progress.Stage("render", int64(len(w.videos)), "videos")
	for _, v := range w.videos {
		g.Go(func() error {
			if err := writeVideo(gctx, filepath.Join(dir, VideosDir, v.id+".mp4"), &v.scene, w.Options); err != nil {
				return err
			}
			render.Add(1)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		render.Exit()
		return nil, err
	}
	render.Finish()
	if err := onnxbuild.WriteColourModels(filepath.Join(dir, ModelsDir)); err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	files, err := w.files()
	if err != nil {
		return nil, err
	}
	// truth.json goes last: a directory with it holds a whole world.
	for _, name := range []string{ItemsFile, TruthFile} {
		if err := atomicfile.WriteBytes(filepath.Join(dir, name), files[name]); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// files returns the bytes of items.jsonl and truth.json.
func (w *World) files() (map[string][]byte, error) {
	var items bytes.Buffer
	for _, it := range w.Items {
		b, err := json.Marshal(it)
		if err != nil {
			return nil, fmt.Errorf("world: %w", err)
		}
		items.Write(append(b, '\n'))
	}
	t, err := json.MarshalIndent(w.Truth, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	return map[string][]byte{ItemsFile: items.Bytes(), TruthFile: append(t, '\n')}, nil
}

// Matches reports whether dir holds the world opt describes, as this
// version of the package writes it: the same items.jsonl and truth.json
// (which names the renderer's version) and every video present. It renders
// nothing, so a cached world is checked in milliseconds.
func Matches(dir string, opt Options) (bool, error) {
	w, err := Plan(opt)
	if err != nil {
		return false, err
	}
	files, err := w.files()
	if err != nil {
		return false, err
	}
	for name, want := range files {
		have, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(have, want) {
			return false, nil
		}
	}
	for _, v := range w.videos {
		st, err := os.Stat(filepath.Join(dir, VideosDir, v.id+".mp4"))
		if err != nil || st.Size() == 0 {
			return false, nil
		}
	}
	_, err = os.Stat(filepath.Join(dir, ModelsDir, "models.json"))
	return err == nil, nil
}

// writeVideo renders and encodes one scene, frame k showing the scene at
// the middle of its display time.
func writeVideo(ctx context.Context, path string, s *Scene, opt Options) (err error) {
	tmp := path + ".tmp"
	enc, err := decode.CreateH264(tmp, decode.EncodeOptions{Width: opt.Width, Height: opt.Height, FPS: opt.FPS, GOP: 2 * opt.FPS,
		Audio: soundtrack(s), AudioRate: decode.AudioRate})
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			enc.Close()
			os.Remove(tmp)
		}
	}()
	rgb := make([]byte, opt.Width*opt.Height*3)
	n := int(math.Round(s.Duration * float64(opt.FPS)))
	for k := range n {
		if k%16 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s.Render((float64(k)+0.5)/float64(opt.FPS), opt.Width, opt.Height, rgb)
		if err := enc.WriteRGB(rgb); err != nil {
			return err
		}
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("world: %w", err)
	}
	return nil
}

// MinVideos is the fewest videos a world may have: one per family drawn
// from the video budget (the audio family's videos come on top of it).
func MinVideos() int { return len(visualFamilies()) }
