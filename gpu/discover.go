package gpu

import (
	"fmt"
	"strconv"
	"strings"
)

// An Inventory is what Discover found.
type Inventory struct {
	Devices []Device `json:"devices"`          // GPUs in CUDA ordinal order; empty means run on the CPU
	Driver  string   `json:"driver,omitempty"` // driver version as the backend reports it, "570.124.06" or "CUDA 13.0"
	Source  string   `json:"source,omitempty"` // the backend that answered, with its library, "NVML (libnvidia-ml.so.1)"
	// Missing says why no GPU was found, naming each library tried and its error;
	// empty when Devices is not.
	Missing string `json:"missing,omitempty"`
}

// String lists the devices, one a line, or the reason there are none.
func (inv Inventory) String() string {
	var b strings.Builder
	if len(inv.Devices) == 0 {
		fmt.Fprintf(&b, "no GPU found: %s\ndevices: cpu\n", inv.Missing)
		return b.String()
	}
	fmt.Fprintf(&b, "driver %s via %s\n", inv.Driver, inv.Source)
	for _, d := range inv.Devices {
		fmt.Fprintf(&b, "%s\n", d)
	}
	return b.String()
}

// A Backend asks one driver library for its devices. Probe returns the
// devices in the backend's own order; visible reports whether that order
// already has CUDA_VISIBLE_DEVICES applied (true for the CUDA driver API,
// false for NVML, which always lists every GPU).
type Backend interface {
	Name() string
	Probe() (driver string, devs []Device, visible bool, err error)
}

// DiscoverOptions adjust Discover. The zero value probes NVML, then the CUDA
// driver API, with no environment.
type DiscoverOptions struct {
	// Getenv reads CUDA_VISIBLE_DEVICES, so that the devices listed are the
	// ones CUDA (and so ONNX Runtime) numbers. Nil reads nothing.
	Getenv func(string) string
	// Backends are tried in order until one finds a device; nil means
	// NVML(DefaultNVMLLibrary) then CUDADriver(DefaultCUDALibrary).
	Backends []Backend
}

// Default driver libraries, as the NVIDIA driver installs them (sonames, so
// the dynamic loader searches its usual paths).
const (
	DefaultNVMLLibrary = "libnvidia-ml.so.1"
	DefaultCUDALibrary = "libcuda.so.1"
)

// Discover asks each backend in turn for the machine's GPUs. It never fails:
// a machine without a driver has no devices, and Missing says what each
// backend could not find.
func Discover(opts DiscoverOptions) Inventory {
	backends := opts.Backends
	if backends == nil {
		backends = []Backend{NVML(DefaultNVMLLibrary), CUDADriver(DefaultCUDALibrary)}
	}
	visibleEnv := ""
	if opts.Getenv != nil {
		visibleEnv = opts.Getenv("CUDA_VISIBLE_DEVICES")
	}
	var why []string
	for _, be := range backends {
		driver, devs, visible, err := be.Probe()
		if err != nil {
			why = append(why, fmt.Sprintf("%s: %v", be.Name(), err))
			continue
		}
		if !visible {
			var hidden string
			devs, hidden = applyVisible(devs, visibleEnv)
			if hidden != "" {
				why = append(why, fmt.Sprintf("%s: %s", be.Name(), hidden))
				continue
			}
		}
		if len(devs) == 0 {
			why = append(why, fmt.Sprintf("%s: driver %s reports no GPU", be.Name(), driver))
			continue
		}
		return Inventory{Devices: devs, Driver: driver, Source: be.Name()}
	}
	if len(why) == 0 {
		why = append(why, "no backend to ask")
	}
	return Inventory{Missing: strings.Join(why, "; ")}
}

// applyVisible keeps the devices CUDA_VISIBLE_DEVICES names, in its order,
// and renumbers them from 0 as CUDA does. Like CUDA, it stops at the first
// entry that names no device. Entries are ordinals or "GPU-" UUID prefixes.
// An empty value means the variable is unset: every device is visible.
// hidden is non-empty when the variable hides every device.
func applyVisible(devs []Device, env string) (kept []Device, hidden string) {
	env = strings.TrimSpace(env)
	if env == "" {
		return devs, ""
	}
	used := map[int]bool{}
	for _, e := range strings.Split(env, ",") {
		e = strings.TrimSpace(e)
		at := -1
		if n, err := strconv.Atoi(e); err == nil {
			if n >= 0 && n < len(devs) {
				at = n
			}
		} else if strings.HasPrefix(e, "GPU-") {
			for i, d := range devs {
				if d.UUID != "" && strings.HasPrefix(d.UUID, e) {
					at = i
					break
				}
			}
		}
		if at < 0 || used[at] {
			break
		}
		used[at] = true
		d := devs[at]
		d.Index = len(kept)
		kept = append(kept, d)
	}
	if len(kept) == 0 {
		return nil, fmt.Sprintf("CUDA_VISIBLE_DEVICES=%q hides all %d GPU(s)", env, len(devs))
	}
	return kept, ""
}
