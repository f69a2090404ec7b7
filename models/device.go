package models

import (
	"fmt"
	"strconv"
	"strings"
)

// A Device is where a session runs: the CPU or one CUDA GPU.
type Device struct {
	CUDA bool `json:"cuda"`
	ID   int  `json:"id"` // GPU ordinal; 0 for the CPU
}

// CPU is the CPU device.
var CPU = Device{}

func (d Device) String() string {
	if d.CUDA {
		return "cuda:" + strconv.Itoa(d.ID)
	}
	return "cpu"
}

// ParseDevices reads a --device value: "cpu" (also ""), "cuda" (GPU 0),
// "cuda:N" or "cuda:N,M,...". Duplicates are an error.
func ParseDevices(s string) ([]Device, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "", "cpu":
		return []Device{CPU}, nil
	case "cuda":
		return []Device{{CUDA: true}}, nil
	}
	rest, ok := strings.CutPrefix(s, "cuda:")
	if !ok {
		return nil, fmt.Errorf("device %q: want cpu, cuda, cuda:N or cuda:N,M,...", s)
	}
	var devs []Device
	seen := map[int]bool{}
	for _, f := range strings.Split(rest, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("device %q: %q is not a GPU ordinal (0, 1, ...)", s, f)
		}
		if seen[n] {
			return nil, fmt.Errorf("device %q: GPU %d listed twice", s, n)
		}
		seen[n] = true
		devs = append(devs, Device{CUDA: true, ID: n})
	}
	return devs, nil
}
