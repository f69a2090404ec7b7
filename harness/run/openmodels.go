package run

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/vidscreen/vidscreen/harness"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/served"
)

// Models are the models of a models folder an audit runs, each opened on
// every device of the run (OpenModels). Reader, ReaderName and Video are
// what select's red team asks of the run's models again.
type Models struct {
	// embed and confirm are text_embed and dup_confirm on every device (nil
	// when the manifest lacks the role).
	embed, confirm textembed.TextEmbedder
	// Reader is the first lm_reader entry (nil without one); ReaderName
	// names its weights as config.json does.
	Reader     attack.LetterReader
	ReaderName string
	// Prompts names the readers' wording (letters.Wording's ID: the
	// default's, or the models folder's prompts.json's hash).
	Prompts string
	// extra and extraNames are the later lm_reader entries of models.json
	// (ONNX or served), each a
	// further model of the blind test (blind-reader#2, ...), and their
	// weights' names.
	extra      []attack.LetterReader
	extraNames []string
	// Video holds the video levels' models (nil unless they run).
	Video *VideoModels
	// devices shares the run's devices among the roles; its counts say
	// what each device did.
	devices *gpu.Pool
	closes  []func() error
	// rt, devs and towers are the runtime, the run's devices and
	// image_text on each (nil without it), for the GPU frame path
	// (openDeviceFrames).
	rt     *models.Runtime
	devs   []gpu.Device
	towers []*models.ImageText
	// served lists the roles a server serves, for stages.json and the
	// check that each server answered something.
	served []servedReader
}

func (m *Models) Close() error {
	var err error
	for _, c := range m.closes {
		err = errors.Join(err, c())
	}
	return err
}

// OpenModels opens the models of dir once on every device that device
// names, one worker set per device under one gpu.Pool whose per-device
// memory budget is budget (0: 90% of each GPU's free memory, none on the
// CPU): the text encoders (text_embed, and dup_confirm when listed),
// lm_reader and, when video is set, image_text, the captioner, vlm_reader,
// screen_reader, asr and a decoder set per device (NVDEC on that GPU). A
// role the manifest lacks is left out (its attackers are skipped, naming
// it); a malformed manifest, role or file is bad input; a missing ONNX
// Runtime is a failure of the run. A served role's replies are kept in
// runDir's response store (none when runDir is "").
func OpenModels(ctx context.Context, dir string, device gpu.Spec, budget uint64, video bool, runDir string, env Env) (*Models, error) {
	o, err := newOpener(ctx, dir, device, budget, video, runDir, env)
	if err != nil {
		return nil, err
	}
	if err := o.open(video); err != nil {
		o.out.Close()
		return nil, err
	}
	return o.out, nil
}

// open opens the roles in the order their checks must be said: the text
// roles, then those of the video levels, each role once per device.
func (o *opener) open(video bool) error {
	o.warnExtraEntries()
	w, err := letters.LoadWording(o.m.Dir)
	if err != nil {
		return o.bad(err)
	}
	o.out.Prompts = w.ID
	if err := o.textEncoders(); err != nil {
		return err
	}
	if err := o.lmReaders(); err != nil {
		return err
	}
	if !video {
		return nil
	}
	v := &VideoModels{MaxBatch: 32}
	short, err := o.imageText(v)
	if err != nil {
		return err
	}
	if short, err = o.captioner(v, short); err != nil {
		return err
	}
	if err := o.vlmReader(v, short); err != nil {
		return err
	}
	if v.VLM != nil {
		if err := o.extraVLMs(v); err != nil {
			return err
		}
	}
	if err := o.screenReader(v); err != nil {
		return err
	}
	if err := o.asr(v); err != nil {
		return o.bad(err)
	}
	if len(v.ImageText) > 0 || v.VLM != nil {
		o.decoders(v, short)
		o.out.Video = v
	}
	return nil
}

// An opener opens the roles of one manifest on the run's devices into out,
// which holds everything opened so far, to close on a failure.
type opener struct {
	dir   string
	m     *models.Manifest
	rt    *models.Runtime
	devs  []gpu.Device
	pool  *gpu.Pool
	store *served.Store
	env   Env
	out   *Models
}

// newOpener selects the devices, loads the manifest and the runtime, and
// checks every ONNX role the run will use before any is opened.
func newOpener(ctx context.Context, dir string, device gpu.Spec, budget uint64, video bool, runDir string, env Env) (*opener, error) {
	gdevs, runtimeDevice, err := auditDevices(device, env)
	if err != nil {
		return nil, err
	}
	// Several roles run at once on a device (the image tower, the
	// captioner, vlm_reader); the budget, not a worker count, bounds them.
	pool, err := gpu.NewPool(gdevs, gpu.PoolConfig{Workers: poolWorkers, CPUWorkers: poolWorkers, MemoryBudget: budget, CPUMemoryBudget: budget})
	if err != nil {
		return nil, fmt.Errorf("--device: %w", err)
	}
	devs := make([]gpu.Device, len(gdevs))
	for d, g := range gdevs {
		devs[d] = gpu.Device{Kind: g.Kind, Index: g.Index}
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Device: runtimeDevice, Log: env.Stderr, Getenv: env.Getenv})
	if err != nil {
		return nil, fmt.Errorf("--models: %w", err)
	}
	if err := checkAuditRoles(ctx, dir, runtimeDevice, m, video, env); err != nil {
		return nil, err
	}
	if err := checkReplicaModels(ctx, m, env); err != nil {
		return nil, err
	}
	o := &opener{dir: dir, m: m, rt: rt, devs: devs, pool: pool, env: env, out: &Models{devices: pool, rt: rt, devs: devs}}
	if o.store = servedStore(runDir); o.store != nil {
		o.out.closes = append(o.out.closes, o.store.Close)
	}
	return o, nil
}

// bad marks err as a fault of the models folder (exit status 2).
func (o *opener) bad(err error) error {
	return fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
}

// has reports whether the manifest lists role.
func (o *opener) has(role models.Role) bool { _, ok := o.m.Roles[role]; return ok }

// onDevices opens one runner of a role on every device, keeping each to
// close; it stops at the first that fails.
func onDevices[T interface{ Close() error }](o *opener, open func(gpu.Device) (T, error)) ([]T, error) {
	var out []T
	for _, dev := range o.devs {
		r, err := open(dev)
		if err != nil {
			return nil, err
		}
		o.out.closes = append(o.out.closes, r.Close)
		out = append(out, r)
	}
	return out, nil
}

// warnExtraEntries says once for each role but lm_reader and vlm_reader
// that its later entries are parsed and left out: only those two roles'
// later entries run (blind-reader#2, centre-frame-reader#2, ...).
func (o *opener) warnExtraEntries() {
	for _, r := range append(slices.Clone(models.Roles), models.OptionalRoles...) {
		if n := len(o.m.Extra[r]); n > 0 && r != models.RoleLMReader && r != models.RoleVLMReader {
			fmt.Fprintf(o.env.Stderr, "vidscreen audit: %s lists %d further entries; only lm_reader's and vlm_reader's later entries run (as blind-reader#2, centre-frame-reader#2, ...), so %s's first entry alone is used\n", r, n, r)
		}
	}
}

// poolWorkers is how many pieces of work may run at once on one device:
// one per role that runs during the feature stage (decode runs outside
// the pool), so that the roles overlap and the memory budget alone holds
// them back.
const poolWorkers = 4

// noteDevices tells rep what each device of pool did, by role, in the
// units of each (frames decoded, embedded and captioned; texts; prompts).
func noteDevices(rep interface{ Note(string, ...any) }, pool *gpu.Pool) {
	for _, u := range pool.Usage() {
		args := []any{"device", u.Device.ID()}
		for _, role := range []string{"decode", string(models.RoleImageText), "image_text_text", string(models.RoleCaptioner), string(models.RoleTextEmbed), string(models.RoleDupConfirm), string(models.RoleLMReader), string(models.RoleVLMReader), string(models.RoleScreenReader)} {
			if n := u.Done[role]; n > 0 {
				args = append(args, role, n)
			}
		}
		rep.Note("device work", args...)
	}
}

// inputSide is the side of the images a preprocessor makes before its
// centre crop: the shortest edge it resizes to, else its larger side.
func inputSide(c *imageprep.Config) int {
	if c.ShortestEdge > 0 {
		return c.ShortestEdge
	}
	return max(c.Height, c.Width, c.CropHeight, c.CropWidth)
}

// auditDevices reads --device: the devices of the run (gpu.Select; with
// cuda on a machine without a usable GPU, the CPU, saying why once on
// stderr) and the device value ONNX Runtime is opened with.
func auditDevices(spec gpu.Spec, env Env) ([]gpu.Device, gpu.Spec, error) {
	inv := gpu.Inventory{}
	if spec.CUDA {
		inv = gpu.Discover(gpu.DiscoverOptions{Getenv: env.Getenv})
	}
	devs, note, err := gpu.Select(spec, inv)
	if err != nil {
		return nil, gpu.Spec{}, &harness.UsageError{Msg: "--device: " + err.Error()}
	}
	if note != "" {
		fmt.Fprintf(env.Stderr, "vidscreen audit: %s\n", note)
	}
	if devs[0].Kind != gpu.CUDA {
		return devs, gpu.Spec{}, nil
	}
	ids := make([]int, len(devs))
	for d, g := range devs {
		ids[d] = g.Index
	}
	return devs, gpu.Spec{CUDA: true, Indices: ids}, nil
}
