package gpu

import "fmt"

// Kind says what sort of device a Device is.
type Kind int

const (
	CPU Kind = iota
	CUDA
)

// MarshalText writes the kind as --device spells it.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

func (k Kind) String() string {
	switch k {
	case CPU:
		return "cpu"
	case CUDA:
		return "cuda"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// A Device is one place work can run. A CUDA device's Index is its CUDA
// ordinal, the number ONNX Runtime's device_id and FFmpeg's hardware device
// take, after CUDA_VISIBLE_DEVICES has been applied.
type Device struct {
	Kind        Kind   `json:"kind"`
	Index       int    `json:"index"`
	Name        string `json:"name"`                   // product name, "NVIDIA H200"; "cpu" for the CPU
	UUID        string `json:"uuid,omitempty"`         // "GPU-..." when the driver reports one
	TotalMemory uint64 `json:"total_memory,omitempty"` // bytes; 0 for the CPU
	FreeMemory  uint64 `json:"free_memory,omitempty"`  // bytes free when discovered; valid when FreeKnown
	FreeKnown   bool   `json:"free_known"`             // the CUDA driver API alone cannot tell free memory without a context
	// Emulated marks one of several worker sets on the CPU standing in for
	// devices (--device cpu:N); its Index tells them apart.
	Emulated bool `json:"emulated,omitempty"`
}

// CPUDevice is the device used when no GPU is asked for or none is there.
func CPUDevice() Device { return Device{Kind: CPU, Name: "cpu"} }

// ID is the device as the --device flag names it: "cpu" or "cuda:N".
func (d Device) ID() string {
	if d.Kind == CPU {
		if d.Emulated {
			return fmt.Sprintf("cpu:%d", d.Index)
		}
		return "cpu"
	}
	return fmt.Sprintf("%s:%d", d.Kind, d.Index)
}

// String describes the device for people: "cuda:0 NVIDIA H200, 139.8 GiB, 139.1 GiB free".
func (d Device) String() string {
	if d.Kind == CPU {
		return d.ID()
	}
	s := fmt.Sprintf("%s %s, %s", d.ID(), d.Name, formatBytes(d.TotalMemory))
	if d.FreeKnown {
		s += fmt.Sprintf(", %s free", formatBytes(d.FreeMemory))
	}
	return s
}

func formatBytes(n uint64) string {
	const gib = 1 << 30
	const mib = 1 << 20
	if n >= gib {
		return fmt.Sprintf("%.1f GiB", float64(n)/gib)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/mib)
}
