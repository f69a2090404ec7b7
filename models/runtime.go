package models

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/vidscreen/vidscreen/gpu"
)

// LibraryEnv names the environment variable that points at ONNX Runtime's
// shared library (libonnxruntime.so).
const LibraryEnv = "VIDSCREEN_ORT_LIB"

// defaultLibrary is where `make setup-ort` puts the library, relative to the
// repository root.
var defaultLibrary = filepath.Join(".cache", "onnxruntime", "libonnxruntime.so")

// RuntimeOptions configures a Runtime.
type RuntimeOptions struct {
	// Library is the path of libonnxruntime.so. Empty means $VIDSCREEN_ORT_LIB,
	// then .cache/onnxruntime/libonnxruntime.so in the working directory, the
	// executable's directory, or a directory above either.
	Library string
	// Device is the --device value the sessions go on: the CPU (the zero
	// Spec, and for cpu:N, whose worker sets the caller keeps), or the GPUs
	// it names (Spec.Ordinals: "cuda" is GPU 0). A GPU that is not there
	// falls back to the CPU when a session opens, saying why once.
	Device gpu.Spec
	// Threads is the number of intra-op threads of each CPU session; 0 lets
	// ONNX Runtime choose (one per physical core).
	Threads int
	// Log receives the messages a user should see once per runtime, such as
	// the CUDA fallback. Nil discards them.
	Log io.Writer
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// CUDAProviderOptions are given to ONNX Runtime's CUDA provider
	// beside the runtime's own (device_id, which the Device sets, wins):
	// {"use_tf32": "0"} makes float32 GEMMs and convolutions strict
	// float32, where the provider's default is TF32 on Ampere and later.
	CUDAProviderOptions map[string]string
}

// A Runtime loads ONNX Runtime and creates sessions on its devices. Create
// one per process with NewRuntime and share it: sessions are safe for
// concurrent use.
type Runtime struct {
	library string
	devices []gpu.Device
	threads int
	log     io.Writer
	cudaOpt map[string]string

	fallbackOnce sync.Once
	mu           sync.Mutex
	cudaFailure  error // why the CUDA provider did not load, once known
	// plainSaid lists the reader folders already said to have no chat
	// template (noteNoTemplate).
	plainSaid map[string]bool
}

// noteNoTemplate tells the runtime's log, once per folder, that a reader
// folder has no chat template, however many devices open it.
func (r *Runtime) noteNoTemplate(dir string) io.Writer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.log == nil || r.plainSaid[dir] {
		return nil
	}
	if r.plainSaid == nil {
		r.plainSaid = map[string]bool{}
	}
	r.plainSaid[dir] = true
	return r.log
}

// ortEnv guards onnxruntime_go's process-wide environment: the library keeps
// it in package globals, so it can be initialised only once per process and
// only with one shared library. Every Runtime shares it; this is the only
// package-level state in models.
var ortEnv struct {
	once    sync.Once
	library string
	err     error
}

// NewRuntime finds and loads ONNX Runtime and parses the devices of opts.
func NewRuntime(opts RuntimeOptions) (*Runtime, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	lib, err := findLibrary(opts.Library, getenv)
	if err != nil {
		return nil, err
	}
	devs := []gpu.Device{gpu.CPUDevice()}
	if ords := opts.Device.Ordinals(); len(ords) > 0 {
		devs = make([]gpu.Device, len(ords))
		for i, n := range ords {
			devs[i] = gpu.Device{Kind: gpu.CUDA, Index: n}
		}
	}
	ortEnv.once.Do(func() {
		ortEnv.library = lib
		ort.SetSharedLibraryPath(lib)
		if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
			ortEnv.err = fmt.Errorf("load ONNX Runtime from %s (set %s to another libonnxruntime.so, or run `make setup-ort`): %w", lib, LibraryEnv, err)
		}
	})
	if ortEnv.err != nil {
		return nil, ortEnv.err
	}
	if ortEnv.library != lib {
		return nil, fmt.Errorf("ONNX Runtime is already loaded from %s in this process; cannot also load %s", ortEnv.library, lib)
	}
	w := opts.Log
	if w == nil {
		w = io.Discard
	}
	return &Runtime{library: lib, devices: devs, threads: opts.Threads, log: w, cudaOpt: maps.Clone(opts.CUDAProviderOptions)}, nil
}

// Library returns the path of the loaded libonnxruntime.so.
func (r *Runtime) Library() string { return r.library }

// Devices returns the devices sessions are placed on, as configured.
func (r *Runtime) Devices() []gpu.Device { return append([]gpu.Device(nil), r.devices...) }

// Version returns ONNX Runtime's version string.
func (r *Runtime) Version() string { return ort.GetVersion() }

// findLibrary resolves the ONNX Runtime library: an explicit path, the
// environment variable, or the default location under the repository.
func findLibrary(explicit string, getenv func(string) string) (string, error) {
	if explicit != "" {
		return checkLibrary(explicit, "RuntimeOptions.Library")
	}
	if p := getenv(LibraryEnv); p != "" {
		return checkLibrary(p, "$"+LibraryEnv)
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, dir := range starts {
		for {
			p := filepath.Join(dir, defaultLibrary)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("ONNX Runtime library not found: set %s to the path of libonnxruntime.so, or run `make setup-ort` to fetch it into %s", LibraryEnv, defaultLibrary)
}

func checkLibrary(p, from string) (string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("ONNX Runtime library %s (from %s): %w; run `make setup-ort` or point %s at libonnxruntime.so", p, from, err, LibraryEnv)
	}
	if st.IsDir() {
		return "", fmt.Errorf("ONNX Runtime library %s (from %s) is a directory; %s names the file libonnxruntime.so", p, from, LibraryEnv)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return abs, nil
}

// cudaMissing explains why the CUDA provider could not be used, naming the
// file that is missing when it can tell.
func (r *Runtime) cudaMissing(cause error) error {
	dir := filepath.Dir(r.library)
	provider := filepath.Join(dir, "libonnxruntime_providers_cuda.so")
	if _, err := os.Stat(provider); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s is missing (run `make setup-cuda`): %w", provider, cause)
	}
	return fmt.Errorf("the CUDA execution provider did not load (it needs libcudart.so.13, libcublas.so.13, libcublasLt.so.13, libcurand.so.10 and the NVIDIA driver's libcuda.so.1 on the library path): %w", cause)
}

// noteFallback records the first CUDA failure and prints it once.
func (r *Runtime) noteFallback(dev gpu.Device, err error) {
	r.mu.Lock()
	if r.cudaFailure == nil {
		r.cudaFailure = err
	}
	r.mu.Unlock()
	r.fallbackOnce.Do(func() {
		fmt.Fprintf(r.log, "models: %s unavailable, running on cpu: %v\n", dev.ID(), err)
	})
}

// CUDAFailure returns why a CUDA device fell back to the CPU, or nil.
func (r *Runtime) CUDAFailure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cudaFailure
}

// cudaOptions are the CUDA provider's options for a session on dev: the
// caller's, then device_id, and for variable shapes an arena that grows by
// what is asked rather than by powers of two, which keeps GPU memory near
// the largest batch (ONNX Runtime's CUDA execution provider docs,
// arena_extend_strategy).
func (r *Runtime) cudaOptions(dev gpu.Device, profile ShapeProfile) map[string]string {
	opts := maps.Clone(r.cudaOpt)
	if opts == nil {
		opts = map[string]string{}
	}
	opts["device_id"] = fmt.Sprint(dev.Index)
	if profile == DynamicShapes {
		opts["arena_extend_strategy"] = "kSameAsRequested"
	}
	return opts
}
