package gpu

import (
	"fmt"
	"strconv"
	"strings"
)

// A Spec is a parsed --device value: the CPU, every visible GPU, or the GPUs
// with the listed CUDA ordinals. The zero Spec is the CPU. It is plain data:
// it marshals to JSON and text as the flag's string ("cuda:0,1") and reads
// back through ParseSpec, and *Spec is a flag.Value. Select resolves it to
// the devices of a run once the machine is inspected; Ordinals gives the
// GPUs it names without looking.
type Spec struct {
	CUDA    bool  // false: the CPU
	Indices []int // the ordinals asked for, in order; empty with CUDA means every GPU found
	// CPUs, with CUDA false and above 1, asks for that many worker sets on
	// the CPU, each standing in for one device ("cpu:4"): a machine without
	// GPUs runs, and tests, the placement and the per-device outputs of a
	// multi-GPU run.
	CPUs int
}

// MaxCPUDevices bounds cpu:N: each emulated device holds its own copy of
// the models.
const MaxCPUDevices = 64

// ParseSpec reads "cpu", "cpu:N" (N worker sets on the CPU, as if it were N
// devices), "cuda" or "cuda:N[,M...]". Ordinals are non-negative and may
// not repeat; spaces around them are ignored.
func ParseSpec(s string) (Spec, error) {
	v := strings.TrimSpace(s)
	switch {
	case v == "cpu":
		return Spec{}, nil
	case strings.HasPrefix(v, "cpu:"):
		n, err := strconv.Atoi(strings.TrimSpace(v[len("cpu:"):]))
		if err != nil || n < 1 || n > MaxCPUDevices {
			return Spec{}, fmt.Errorf("device %q: want cpu:N with N from 1 to %d emulated devices", s, MaxCPUDevices)
		}
		if n == 1 {
			return Spec{}, nil
		}
		return Spec{CPUs: n}, nil
	case v == "cuda":
		return Spec{CUDA: true}, nil
	case strings.HasPrefix(v, "cuda:"):
		list := v[len("cuda:"):]
		if strings.TrimSpace(list) == "" {
			return Spec{}, fmt.Errorf("device %q: no GPU number after \"cuda:\" (want cuda:0 or cuda:0,1)", s)
		}
		seen := map[int]bool{}
		var idx []int
		for _, f := range strings.Split(list, ",") {
			f = strings.TrimSpace(f)
			n, err := strconv.Atoi(f)
			if err != nil || n < 0 {
				return Spec{}, fmt.Errorf("device %q: %q is not a GPU number (want a non-negative integer)", s, f)
			}
			if seen[n] {
				return Spec{}, fmt.Errorf("device %q: GPU %d listed twice", s, n)
			}
			seen[n] = true
			idx = append(idx, n)
		}
		return Spec{CUDA: true, Indices: idx}, nil
	}
	return Spec{}, fmt.Errorf("device %q: unknown device (want cpu, cpu:N, cuda or cuda:N[,M...])", s)
}

// String gives the spec back in the form ParseSpec reads.
func (s Spec) String() string {
	if !s.CUDA {
		if s.CPUs > 1 {
			return "cpu:" + strconv.Itoa(s.CPUs)
		}
		return "cpu"
	}
	if len(s.Indices) == 0 {
		return "cuda"
	}
	parts := make([]string, len(s.Indices))
	for i, n := range s.Indices {
		parts[i] = strconv.Itoa(n)
	}
	return "cuda:" + strings.Join(parts, ",")
}

// Ordinals returns the CUDA ordinals the spec names without looking at the
// machine: the listed ones in order, or 0 alone for "cuda" (every GPU, of
// which a machine with any has GPU 0); nil for the CPU. It is what a caller
// uses that lets the driver or ONNX Runtime say whether the GPU is there,
// and the first of it is the GPU of work that runs on one.
func (s Spec) Ordinals() []int {
	if !s.CUDA {
		return nil
	}
	if len(s.Indices) == 0 {
		return []int{0}
	}
	return append([]int(nil), s.Indices...)
}

// One is the device of work that runs on one device: the CPU, or the GPU
// the spec names ("cuda" is GPU 0), which the driver or ONNX Runtime falls
// back from, saying why, when it is not there. A list of GPUs or cpu:N asks
// for devices such work cannot use: an error naming the value, for the
// caller to give as bad usage.
func (s Spec) One() (Device, error) {
	ords := s.Ordinals()
	if len(ords) > 1 || s.CPUs > 1 {
		return Device{}, fmt.Errorf("--device %s: name one device (cpu, cuda or cuda:N)", s)
	}
	if len(ords) == 0 {
		return CPUDevice(), nil
	}
	return Device{Kind: CUDA, Index: ords[0]}, nil
}

// MarshalText writes the spec as ParseSpec reads it, so that JSON holds the
// flag's string.
func (s Spec) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads the spec with ParseSpec.
func (s *Spec) UnmarshalText(b []byte) error {
	v, err := ParseSpec(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Set implements flag.Value with ParseSpec.
func (s *Spec) Set(v string) error { return s.UnmarshalText([]byte(v)) }

// Select returns the devices a run with spec uses on a machine with inv.
// A CUDA spec on a machine with no GPU falls back to the CPU; note then says
// why, naming what was missing, for the caller to print once. Asking for an
// ordinal the machine does not have is an error listing what it has.
func Select(spec Spec, inv Inventory) (devs []Device, note string, err error) {
	if !spec.CUDA {
		if spec.CPUs > 1 {
			for i := range spec.CPUs {
				devs = append(devs, Device{Kind: CPU, Index: i, Name: "cpu", Emulated: true})
			}
			return devs, "", nil
		}
		return []Device{CPUDevice()}, "", nil
	}
	if len(inv.Devices) == 0 {
		return []Device{CPUDevice()}, fmt.Sprintf("device %s: no GPU found (%s); running on the CPU", spec, inv.Missing), nil
	}
	if len(spec.Indices) == 0 {
		return append([]Device(nil), inv.Devices...), "", nil
	}
	for _, n := range spec.Indices {
		if n >= len(inv.Devices) {
			have := make([]string, len(inv.Devices))
			for i, d := range inv.Devices {
				have[i] = d.ID()
			}
			return nil, "", fmt.Errorf("device %s: cuda:%d does not exist; this machine has %d GPU(s): %s",
				spec, n, len(inv.Devices), strings.Join(have, ", "))
		}
		devs = append(devs, inv.Devices[n])
	}
	return devs, "", nil
}
