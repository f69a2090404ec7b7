package gpu

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Spec
		wantErr string
	}{
		{in: "cpu", want: Spec{}},
		{in: " cpu ", want: Spec{}},
		{in: "cpu:1", want: Spec{}},
		{in: "cpu:4", want: Spec{CPUs: 4}},
		{in: "cpu:0", wantErr: "want cpu:N with N from 1"},
		{in: "cpu:65", wantErr: "want cpu:N with N from 1"},
		{in: "cpu:x", wantErr: "want cpu:N"},
		{in: "cuda", want: Spec{CUDA: true}},
		{in: "cuda:0", want: Spec{CUDA: true, Indices: []int{0}}},
		{in: "cuda:3,1", want: Spec{CUDA: true, Indices: []int{3, 1}}},
		{in: "cuda:0, 1", want: Spec{CUDA: true, Indices: []int{0, 1}}},
		{in: "cuda:", wantErr: "no GPU number"},
		{in: "cuda:x", wantErr: `"x" is not a GPU number`},
		{in: "cuda:-1", wantErr: `"-1" is not a GPU number`},
		{in: "cuda:0,,1", wantErr: `"" is not a GPU number`},
		{in: "cuda:1,1", wantErr: "GPU 1 listed twice"},
		{in: "gpu", wantErr: "unknown device"},
		{in: "CUDA", wantErr: "unknown device"},
		{in: "", wantErr: "unknown device"},
	}
	for _, tt := range tests {
		got, err := ParseSpec(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseSpec(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSpec(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		// String gives back a form ParseSpec reads to the same spec.
		again, err := ParseSpec(got.String())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("ParseSpec(%q).String() = %q does not round-trip: %+v, %v", tt.in, got.String(), again, err)
		}
	}
}

func twoGPUs() Inventory {
	return Inventory{Driver: "570", Source: "fake", Devices: []Device{
		{Kind: CUDA, Index: 0, Name: "A", TotalMemory: 80 << 30, FreeMemory: 70 << 30, FreeKnown: true},
		{Kind: CUDA, Index: 1, Name: "B", TotalMemory: 80 << 30, FreeMemory: 60 << 30, FreeKnown: true},
	}}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	none := Inventory{Missing: "NVML (libnvidia-ml.so.1): cannot load"}
	tests := []struct {
		name     string
		spec     Spec
		inv      Inventory
		wantIDs  []string
		wantNote string
		wantErr  string
	}{
		{name: "cpu on a GPU machine stays on the cpu", spec: Spec{}, inv: twoGPUs(), wantIDs: []string{"cpu"}},
		{name: "cuda takes every GPU", spec: Spec{CUDA: true}, inv: twoGPUs(), wantIDs: []string{"cuda:0", "cuda:1"}},
		{name: "listed GPUs keep their order", spec: Spec{CUDA: true, Indices: []int{1, 0}}, inv: twoGPUs(), wantIDs: []string{"cuda:1", "cuda:0"}},
		{name: "cuda without a GPU falls back and says what was missing", spec: Spec{CUDA: true}, inv: none,
			wantIDs: []string{"cpu"}, wantNote: "no GPU found (NVML (libnvidia-ml.so.1): cannot load); running on the CPU"},
		{name: "cuda:N without a GPU falls back too", spec: Spec{CUDA: true, Indices: []int{2}}, inv: none,
			wantIDs: []string{"cpu"}, wantNote: "device cuda:2: no GPU found"},
		{name: "an ordinal the machine lacks is an error listing what it has", spec: Spec{CUDA: true, Indices: []int{0, 2}}, inv: twoGPUs(),
			wantErr: "cuda:2 does not exist; this machine has 2 GPU(s): cuda:0, cuda:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			devs, note, err := Select(tt.spec, tt.inv)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range devs {
				ids = append(ids, d.ID())
			}
			if !reflect.DeepEqual(ids, tt.wantIDs) {
				t.Errorf("devices = %v, want %v", ids, tt.wantIDs)
			}
			if tt.wantNote == "" && note != "" || !strings.Contains(note, tt.wantNote) {
				t.Errorf("note = %q, want %q", note, tt.wantNote)
			}
		})
	}
}

// TestSelectEmulatedCPUs: cpu:3 gives three CPU devices with their own ids,
// which a pool takes as three worker sets.
func TestSelectEmulatedCPUs(t *testing.T) {
	t.Parallel()
	devs, note, err := Select(Spec{CPUs: 3}, twoGPUs())
	if err != nil || note != "" || len(devs) != 3 {
		t.Fatalf("Select(cpu:3) = %v, %q, %v", devs, note, err)
	}
	for i, d := range devs {
		if d.Kind != CPU || d.ID() != "cpu:"+string(rune('0'+i)) {
			t.Errorf("device %d: %+v (%s)", i, d, d.ID())
		}
	}
	p, err := NewPool(devs, PoolConfig{})
	if err != nil || len(p.Devices()) != 3 {
		t.Fatalf("NewPool over cpu:3: %v", err)
	}
}

// TestSpecJSON: a Spec is held in JSON as the flag's string, and a bad
// string is refused as ParseSpec refuses it.
func TestSpecJSON(t *testing.T) {
	type holder struct {
		Device Spec `json:"device"`
	}
	for _, in := range []string{"cpu", "cpu:4", "cuda", "cuda:3,1"} {
		var h holder
		if err := json.Unmarshal([]byte(`{"device":"`+in+`"}`), &h); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		b, err := json.Marshal(h)
		if err != nil || string(b) != `{"device":"`+in+`"}` {
			t.Errorf("%s marshals to %s, %v", in, b, err)
		}
	}
	var zero holder
	if b, _ := json.Marshal(zero); string(b) != `{"device":"cpu"}` {
		t.Errorf("the zero Spec marshals to %s, want cpu", b)
	}
	var h holder
	if err := json.Unmarshal([]byte(`{"device":"gpu"}`), &h); err == nil || !strings.Contains(err.Error(), `device "gpu": unknown device`) {
		t.Errorf("a bad device in JSON: %v", err)
	}
}

func TestSpecOrdinals(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []int
	}{
		{"cpu", nil},
		{"cpu:4", nil},
		{"cuda", []int{0}},
		{"cuda:2", []int{2}},
		{"cuda:3,1", []int{3, 1}},
	} {
		spec, err := ParseSpec(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := spec.Ordinals(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Ordinals() = %v, want %v", tt.in, got, tt.want)
		}
	}
}
