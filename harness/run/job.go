package run

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/harness/progress"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/place"
)

// Env is what an audit reads of its process beside its Spec: where its
// progress, warnings and notes go (a terminal gets live bars, anything else
// log lines in the Spec's LogFormat), and the environment's variables
// (server API keys, the CUDA and ONNX Runtime settings). The zero Env
// writes nothing and reads the process environment.
type Env struct {
	Stderr io.Writer
	Getenv func(string) string
}

func (e Env) withDefaults() Env {
	if e.Stderr == nil {
		e.Stderr = io.Discard
	}
	if e.Getenv == nil {
		e.Getenv = os.Getenv
	}
	return e
}

// A Job is an opened audit: its Spec checked, its models loaded on their
// devices, its servers and its searches placed. Run it once, then Close it.
type Job struct {
	spec  Spec
	opt   Options
	rep   *progress.Reporter
	env   Env
	ms    *Models        // nil without Spec.Models
	frame *FramePathNote // with FramePath device, the path the image tower took
	close []func()
}

// Open checks spec and opens what it names: the item files are read by
// Run, but every model of the models folder a run uses is checked and
// loaded on every device now, the servers' API keys read, the GPU for the
// searches opened, so that a run names every problem of its models before
// any work. A Spec that asks the impossible is a *harness.UsageError; a models
// folder, manifest or model file that is wrong wraps harness.ErrBadInput;
// a missing ONNX Runtime or a failed device is an error of the run.
func Open(ctx context.Context, spec Spec, env Env) (*Job, error) {
	env = env.withDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	lv, err := spec.levels()
	if err != nil {
		return nil, err
	}
	opt := Options{Items: spec.Items, Out: spec.Out, Levels: lv, Reference: spec.Reference, Seed: spec.Seed, Workers: spec.Workers,
		VideoRoot: spec.Videos, Frames: spec.Frames, Permutations: permutationsOption(spec.Permutations), CrossPool: spec.CrossPool,
		Limit: spec.Limit, Benchmarks: spec.Benchmarks, Sample: spec.Sample, KeepYesNo: spec.KeepYesNo, NoDedup: spec.NoDedup, ReferenceModel: spec.ReferenceModel, VerifyAnswers: spec.VerifyAnswers, Merge: spec.Merge,
		IndexBase: spec.IndexBase, Models: spec.Predictions, Shard: spec.Shard}
	if spec.Shard != nil {
		ss, err := spec.ShardSpec()
		if err != nil {
			return nil, err
		}
		opt.Spec = &ss
	}
	if len(spec.Items) == 0 {
		opt.FS, opt.Items = demo.FS(), demo.Items()
	}
	rep, err := progress.ForWriter(env.Stderr, spec.LogFormat, spec.Quiet)
	if err != nil {
		return nil, &harness.UsageError{Msg: "--log-format: " + err.Error()}
	}
	opt.Progress = rep
	j := &Job{spec: spec, opt: opt, rep: rep, env: env}
	if err := j.open(ctx, videoLevels(lv)); err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// open loads the models and places the searches.
func (j *Job) open(ctx context.Context, video bool) error {
	spec := &j.spec
	if spec.Models != "" {
		// The models' warnings go through the reporter, so that a JSON log
		// stays JSON on every line.
		menv := j.env
		if j.rep != nil {
			menv.Stderr = j.rep.Warnings("vidscreen audit: ")
		}
		ms, err := OpenModels(ctx, spec.Models, spec.Device, spec.DeviceMemory, video || spec.ReferenceModel || spec.VerifyAnswers, spec.Out, menv)
		if err != nil {
			return err
		}
		j.ms = ms
		if spec.FramePath == "device" {
			note := ms.openDeviceFrames(menv.Stderr)
			note.HostResize = spec.frameResize()
			j.frame = &note
		}
		if err := ms.apply(&j.opt, spec, video); err != nil {
			return err
		}
	}
	warn := j.env.Stderr
	if j.rep != nil {
		warn = j.rep.Warnings("vidscreen: ")
	}
	joiner, searcher, release, err := placeSearches(spec, j.env, warn, j.rep.Note)
	if err != nil {
		return err
	}
	j.close = append(j.close, release)
	j.opt.Joiner, j.opt.Searcher = joiner, searcher
	return nil
}

// Run carries out the audit (Audit), whose stages.json holds what only the
// opened job knows beside the stages (stageNotes). The progress reporter is
// closed when it returns, so that a caller's summary follows the last
// progress line. A served role that answered none of its requests fails
// the run, and so does one whose server failed more of its queries than
// Spec.MaxServerFailures allows (a *ServerFailuresError, after the outputs
// are written).
func (j *Job) Run(ctx context.Context) (*Result, error) {
	j.opt.StageNotes = j.stageNotes
	res, err := Audit(ctx, j.opt)
	if err == nil && j.ms != nil {
		err = servedRefused(j.ms.served)
	}
	if err == nil && j.ms != nil {
		err = servedFailures(j.ms.served, j.spec.MaxServerFailures, j.spec.Out)
	}
	if j.ms != nil {
		noteDevices(j.rep, j.ms.devices)
	}
	j.rep.Close()
	if err != nil {
		return nil, err
	}
	return res, nil
}

// stageNotes are the keys the job adds to stages.json: "served", the served
// roles' counts, and "frame_path", the path the image tower took, each when
// the run has one; a merge's "readers" ("from shards") and "requests", the
// requests it sent to the served roles itself.
func (j *Job) stageNotes(res *Result) map[string]any {
	notes := map[string]any{}
	if j.ms != nil && len(j.ms.served) > 0 {
		notes["served"] = servedLines(j.ms.served, j.rep)
	}
	if j.frame != nil {
		notes["frame_path"] = framePathTaken(*j.frame, res.Features, j.rep)
	}
	if len(j.spec.Merge) > 0 {
		// A merge's readers answered in the shards: it says how many
		// requests it sent itself (0 unless a shard's server failed on an
		// item, which the merge then asks again).
		requests := int64(0)
		if j.ms != nil {
			for _, r := range j.ms.served {
				requests += r.Stats().Snapshot().Requests
			}
		}
		notes["requests"] = requests
		notes["readers"] = "from shards"
	}
	return notes
}

// Close releases the models, devices and the searches' GPU.
func (j *Job) Close() error {
	var err error
	if j.ms != nil {
		err = j.ms.Close()
		j.ms = nil
	}
	for _, c := range j.close {
		c()
	}
	j.close = nil
	j.rep.Close()
	return err
}

// placeSearches places the audit's searches (the attackers' copy joins and
// k-NN, cross-store and retrieval top-k, the near-duplicate join, read a
// tile pair at a time, and the perceptual video identity's join) on the
// first GPU the Spec's Device names, when this binary has the GPU kernels
// and that GPU opens; else on the CPU, after one line on warn saying why
// (place.Searches). The models may use several GPUs; the searches use one:
// those of OffloadMinWork multiply-adds or more, one at a time, so that the
// units running at once do not add up device buffers outside the models'
// memory budget. Every backend finds the CPU's pairs and neighbours, so the
// audit's outputs do not depend on where they ran. note hears the device
// the searches run on and the cut; the returned func releases it.
func placeSearches(spec *Spec, env Env, warn io.Writer, note func(msg string, args ...any)) (kernels.Joiner, kernels.NeighbourSearcher, func(), error) {
	device := spec.Device
	prec, err := spec.precision()
	if err != nil {
		return nil, nil, nil, err
	}
	off, name, said, done, err := place.Searches(device, prec, spec.OffloadMinWork, place.Env{Stderr: env.Stderr, Getenv: env.Getenv})
	if err != nil {
		return nil, nil, nil, &harness.UsageError{Msg: err.Error()}
	}
	if off == nil {
		// place's line is a warning when it says why not: the reporter
		// keeps warnings apart from notes.
		if _, err := warn.Write(said); err != nil {
			done()
			return nil, nil, nil, fmt.Errorf("--device %s: %w", device, err)
		}
		return nil, nil, done, nil
	}
	// The audit asks for many small searches too (a benchmark's prefix,
	// once per order), which the CPU answers before a device is set up.
	note("searches", "device", name, "from_multiply_adds", spec.OffloadMinWork, "at_once", 1)
	return off, off, done, nil
}

// permutationsOption maps Spec.Permutations onto Options.Permutations,
// where 0 means the default count and a negative one none; the default is
// left at 0 so that config.json stays as it was for runs that do not set it.
func permutationsOption(n int) int {
	switch n {
	case 0:
		return -1
	case attack.OptionPermutations:
		return 0
	}
	return n
}

// apply hands the opened models to the run's options: the text encoders,
// the readers, the served roles' modes and, when the video levels or the
// reference model run, the video models, which they need.
func (ms *Models) apply(opt *Options, spec *Spec, video bool) error {
	if len(ms.served) > 0 {
		opt.Served = servedModesOf(ms.served)
	}
	if ms.Reader != nil {
		opt.Reader, opt.ReaderName = ms.Reader, ms.ReaderName
		opt.Prompts = ms.Prompts
		opt.ExtraReaders, opt.ExtraReaderNames = ms.extra, ms.extraNames
	}
	if ms.embed != nil {
		opt.Embedder = ms.embed
		if ms.confirm != nil {
			opt.Confirm = ms.confirm
		}
	}
	if !video && !spec.ReferenceModel && !spec.VerifyAnswers {
		return nil
	}
	if ms.Video == nil {
		return fmt.Errorf("%w: --models %s has no image_text role (nor a served vlm_reader), which the frame and order levels, --reference-model and --verify-answers need", harness.ErrBadInput, spec.Models)
	}
	if spec.VerifyAnswers && ms.Video.VLM == nil {
		return fmt.Errorf("%w: --models %s has no vlm_reader role, which --verify-answers needs", harness.ErrBadInput, spec.Models)
	}
	if spec.ReferenceModel && ms.Video.VLM == nil {
		return fmt.Errorf("%w: --models %s has no vlm_reader role, which --reference-model needs", harness.ErrBadInput, spec.Models)
	}
	opt.Video = ms.Video
	opt.Video.Decode.Workers = spec.Workers
	opt.Video.Decode.Options.Timeout = spec.VideoTimeout
	if spec.frameResize() == FrameResizeProcessor {
		opt.Video.resizeInProcessor()
	}
	return nil
}
