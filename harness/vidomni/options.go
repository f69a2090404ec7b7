package vidomni

import (
	"fmt"
	"strconv"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai"
)

// MaxFrames bounds FrameOptions.Frames: no verifier's prompt holds more.
const MaxFrames = 1024

// DefaultSize is the decode size of FrameOptions.Size "" (a served
// vlm_reader's is served.DecodeShort instead).
const DefaultSize = "224"

// FrameOptions are how Verify and Caption sample and decode each video's
// frames and where their models run: the flags the two commands share.
type FrameOptions struct {
	// Frames is the frames sampled per video, uniformly (--frames, 1 to
	// MaxFrames).
	Frames int `json:"frames"`
	// Size is what frames are decoded at before the model's own
	// preprocessing (--size: S, max:L, short:S,max:L or native); "" is
	// DefaultSize, or a served vlm_reader's own size.
	Size string `json:"size,omitempty"`
	// HWAccel decodes on the CPU ("none") or with NVDEC ("cuda"; --hwaccel).
	HWAccel string `json:"hwaccel,omitempty"`
	// Videos is the directory relative video paths are under (--videos;
	// "": the labels file's directory, the working directory for captions).
	Videos string `json:"videos,omitempty"`
	// Models is the models folder holding models.json (--models).
	Models string `json:"models,omitempty"`
	// Device is the one device the models run on (--device; the zero value
	// is the CPU). It encodes as the flag's text.
	Device gpu.Spec `json:"device"`
	// Workers is the videos decoded at once (--workers; 0 one per core).
	Workers int `json:"workers,omitempty"`
}

// DefaultFrameOptions are the frame flags' defaults.
func DefaultFrameOptions() FrameOptions {
	return FrameOptions{Frames: 8, HWAccel: "none"}
}

// sampler checks the frame options and returns the frame sampler, its
// relative paths under defaultRoot unless o.Videos is set.
func (o FrameOptions) sampler(env Env, defaultRoot string) (*FrameSampler, error) {
	if o.Frames < 1 || o.Frames > MaxFrames {
		return nil, harness.Usagef("--frames %d: want 1 to %d", o.Frames, MaxFrames)
	}
	sampler, err := decode.ParseSampler("uniform:" + strconv.Itoa(o.Frames))
	if err != nil {
		return nil, &harness.UsageError{Msg: err.Error()}
	}
	spec := o.Size
	if spec == "" {
		spec = DefaultSize
	}
	size, err := decode.ParseSize(spec)
	if err != nil {
		return nil, &harness.UsageError{Msg: "--size: " + err.Error()}
	}
	root := o.Videos
	if root == "" {
		root = defaultRoot
	}
	pool := &decode.Pool{Workers: o.Workers, Options: decode.Options{HWAccel: o.HWAccel},
		Notify: func(msg string) { fmt.Fprintln(env.Stderr, msg) }}
	return &FrameSampler{Pool: pool, Sampler: sampler, Size: size, Root: root}, nil
}

// manifest loads the manifest of o.Models.
func (o FrameOptions) manifest() (*models.Manifest, error) {
	if o.Models == "" {
		return nil, &harness.UsageError{Msg: "--models DIR is required"}
	}
	m, err := models.LoadManifest(o.Models)
	if err != nil {
		return nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	return m, nil
}

// runtime loads the manifest of o.Models and ONNX Runtime for o.Device,
// the one device its roles open on.
func (o FrameOptions) runtime(env Env) (*models.Manifest, *models.Runtime, gpu.Device, error) {
	var dev gpu.Device
	m, err := o.manifest()
	if err != nil {
		return nil, nil, dev, err
	}
	one, err := o.Device.One()
	if err != nil {
		return nil, nil, dev, &harness.UsageError{Msg: err.Error()}
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Device: o.Device, Log: env.Stderr, Getenv: env.Getenv})
	if err != nil {
		return nil, nil, dev, fmt.Errorf("--models: %w", err)
	}
	return m, rt, one, nil
}

// ServerOptions name a generating model behind a local OpenAI-compatible
// server (vLLM, SGLang, llama.cpp), for verify --method server and
// caption --server.
type ServerOptions struct {
	// URL is the server's base URL, a loopback address (--server).
	URL string `json:"server,omitempty"`
	// Model is the served model's name sent with each request
	// (--server-model).
	Model string `json:"server_model,omitempty"`
	// Seed is the generation seed sent with each request, and for
	// captions the choice of the paper's instruction (--seed).
	Seed int64 `json:"seed,omitempty"`
}

// client opens the server o names.
func (o ServerOptions) client() (*openai.Client, error) {
	if o.URL == "" || o.Model == "" {
		return nil, &harness.UsageError{Msg: "--server and --server-model go together"}
	}
	c, err := openai.New(openai.Config{BaseURL: o.URL, Model: o.Model, Chat: true})
	if err != nil {
		return nil, &harness.UsageError{Msg: "--server: " + err.Error()}
	}
	return c, nil
}
