package gpuflag

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

func parse(which Which, args ...string) (*Flags, *flag.FlagSet, error) {
	fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := Add(fs, which)
	return f, fs, fs.Parse(args)
}

func TestAddDefinesOnlyTheFlagsAskedFor(t *testing.T) {
	_, fs, err := parse(Device | Precision)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"device": true, "precision": true, "offload-min-work": false, "device-memory": false} {
		if got := fs.Lookup(name) != nil; got != want {
			t.Errorf("--%s defined: %v, want %v", name, got, want)
		}
	}
}

func TestDefaults(t *testing.T) {
	f, fs, err := parse(Device | Precision | OffloadMinWork | DeviceMemory)
	if err != nil {
		t.Fatal(err)
	}
	if f.Device.CUDA || f.Device.CPUs != 0 || f.Precision != cuda.FP32 || f.OffloadMinWork != kernels.DefaultMinWork || f.DeviceMemory != 0 {
		t.Errorf("defaults: %+v", f)
	}
	for name, want := range map[string]string{"device": "cpu", "precision": "fp32", "offload-min-work": "268435456", "device-memory": "0"} {
		if got := fs.Lookup(name).DefValue; got != want {
			t.Errorf("--%s default %q, want %q", name, got, want)
		}
	}
}

func TestParsedValues(t *testing.T) {
	f, _, err := parse(Device|Precision|OffloadMinWork|DeviceMemory,
		"--device", "cuda:1,0", "--precision", "BF16", "--offload-min-work", "1", "--device-memory", "1GiB")
	if err != nil {
		t.Fatal(err)
	}
	if f.Device.String() != "cuda:1,0" || f.Precision != cuda.BF16 || f.OffloadMinWork != 1 || f.DeviceMemory != 1<<30 {
		t.Errorf("parsed: %+v", f)
	}
}

// TestBadValuesNameTheFlag: a bad value is fs.Parse's error, naming the
// flag, the value and what is wanted.
func TestBadValuesNameTheFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--device", "tpu"}, `invalid value "tpu" for flag -device: device "tpu": unknown device (want cpu, cpu:N, cuda or cuda:N[,M...])`},
		{[]string{"--device", "cuda:0,0"}, "GPU 0 listed twice"},
		{[]string{"--device", "cpu:0"}, "want cpu:N with N from 1"},
		{[]string{"--precision", "fp8"}, `invalid value "fp8" for flag -precision: want fp32, tf32 or bf16`},
		{[]string{"--offload-min-work", "0"}, `invalid value "0" for flag -offload-min-work: want 1 or more multiply-adds`},
		{[]string{"--offload-min-work", "-5"}, `invalid value "-5" for flag -offload-min-work: want 1 or more`},
		{[]string{"--offload-min-work", "lots"}, `invalid value "lots" for flag -offload-min-work: want a number`},
		{[]string{"--device-memory", "lots"}, `invalid value "lots" for flag -device-memory`},
	} {
		_, _, err := parse(Device|Precision|OffloadMinWork|DeviceMemory, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one containing %q", tt.args, err, tt.want)
		}
	}
}

func TestResolvePrecision(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == PrecisionEnv {
				return v
			}
			return ""
		}
	}
	for _, tt := range []struct {
		flag cuda.Precision
		env  string
		want cuda.Precision
		bad  bool
	}{
		{cuda.FP32, "", cuda.FP32, false},
		{cuda.FP32, "tf32", cuda.TF32, false},
		{cuda.BF16, "tf32", cuda.BF16, false},
		{cuda.FP32, "fp8", cuda.FP32, true},
	} {
		got, err := ResolvePrecision(tt.flag, env(tt.env))
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("flag %s, $%s=%q: %s, %v", tt.flag, PrecisionEnv, tt.env, got, err)
		}
	}
}

func ExampleAdd() {
	fs := flag.NewFlagSet("join", flag.ContinueOnError)
	f := Add(fs, Device|Precision)
	if err := fs.Parse([]string{"--device", "cuda:0", "--precision", "tf32"}); err != nil {
		panic(err)
	}
	devs, note, err := gpu.Select(f.Device, gpu.Inventory{Missing: "no driver here"})
	fmt.Println(devs[0].ID(), f.Precision, note, err)
	// Output: cpu tf32 device cuda:0: no GPU found (no driver here); running on the CPU <nil>
}
