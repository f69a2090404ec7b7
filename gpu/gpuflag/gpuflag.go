// Package gpuflag adds the device flags (--device, --precision,
// --offload-min-work, --device-memory) to a flag.FlagSet, with one help
// text each wherever they appear, in the manner of the go command's
// work.AddBuildFlags. Each flag is parsed and checked as the FlagSet
// parses it, so a bad value is an error of fs.Parse naming the flag, the
// value and what is wanted ("invalid value \"fp8\" for flag -precision:
// want fp32, tf32 or bf16"), and the command reads typed values from
// Flags.
package gpuflag

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// Which names the device flags a command has, as a set of bits.
type Which uint8

const (
	Device         Which = 1 << iota // --device
	Precision                        // --precision
	OffloadMinWork                   // --offload-min-work
	DeviceMemory                     // --device-memory
)

// Flags are the device flags' values once the FlagSet is parsed; a flag
// the command does not have keeps its default.
type Flags struct {
	Device gpu.Spec // the CPU by default
	// Precision is what --precision asked for (fp32 by default); see ResolvePrecision
	// for the environment variable that stands in for it.
	Precision cuda.Precision
	// OffloadMinWork is the work, in multiply-adds, from which a search
	// goes to a GPU (kernels.DefaultMinWork by default; 1 or more).
	OffloadMinWork int64
	// DeviceMemory is each device's memory budget in bytes; 0 (the
	// default) is 90% of each GPU's free memory and none on the CPU.
	DeviceMemory uint64
}

// The help texts, the same for every command that has the flag.
const (
	DeviceHelp = "run on `DEVICE`: cpu, cpu:N (N worker sets on the CPU standing in for N devices, to test and size a multi-GPU run without one), cuda (every GPU) or cuda:N[,M...]. " +
		"The --models roles are opened once per device, with ONNX Runtime's CUDA provider on each GPU, which also gets its own NVDEC decoders and memory budget; the work is shared out so that every device stays busy. " +
		"In bin/vidscreen-cuda the searches (copy joins, the near-duplicate join, k-NN and retrieval top-k, the scenes' clustering, vendi's kernel products) run on the first GPU named. " +
		"Where a GPU does not open, and for the searches in bin/vidscreen, the work runs on the CPU after one line saying why. " +
		"The outputs are the same on every device and device count. A command whose work runs on one device (select's and vidomni's models, neardup, vendi) wants one"
	PrecisionHelp      = "`PRECISION` of the GPU's tile products: fp32, tf32 or bf16 (tensor cores: cuBLAS's TF32 mode or BF16 GemmEx, else the binary's own mma kernels; pairs within the band of tau, about 2e-3 under tf32 and 2e-2 under bf16, are recomputed as the CPU computes them, so the pairs are the same); fp32 defers to $" + PrecisionEnv + " when set; ignored on the CPU"
	OffloadMinWorkHelp = "on a GPU, run the searches of `N` multiply-adds (rows x rows x columns) or more there and the smaller ones on the CPU, which answers them before a device is set up; the default, 2^28 (kernels.DefaultMinWork), is an estimate that the device check's offload row measures; 1 sends every search; ignored on the CPU"
	DeviceMemoryHelp   = "give each device of --device a memory budget of `SIZE` (40GiB, 512MiB, or bytes) that the model runs placed on it claim from, their batches sized to fit; 0: 90% of each GPU's free memory, and none on the CPU (set it with cpu:N to size and place the work as on GPUs of that size)"
)

// PrecisionEnv names the environment variable read in place of
// --precision when the flag is left at fp32.
const PrecisionEnv = "VIDSCREEN_CUDA_PRECISION"

// Add defines the flags of which on fs and returns where their values go.
func Add(fs *flag.FlagSet, which Which) *Flags {
	f := &Flags{Precision: cuda.FP32, OffloadMinWork: kernels.DefaultMinWork}
	if which&Device != 0 {
		fs.Var((*specValue)(&f.Device), "device", DeviceHelp)
	}
	if which&Precision != 0 {
		fs.Var((*precisionValue)(&f.Precision), "precision", PrecisionHelp)
	}
	if which&OffloadMinWork != 0 {
		fs.Var((*minWorkValue)(&f.OffloadMinWork), "offload-min-work", OffloadMinWorkHelp)
	}
	if which&DeviceMemory != 0 {
		fs.Var(&bytesValue{n: &f.DeviceMemory, s: "0"}, "device-memory", DeviceMemoryHelp)
	}
	return f
}

// ResolvePrecision is p (a Flags.Precision), or when that is fp32 the
// precision $VIDSCREEN_CUDA_PRECISION names (read through getenv), so that
// a test harness can set it for every command at once.
func ResolvePrecision(p cuda.Precision, getenv func(string) string) (cuda.Precision, error) {
	if p != cuda.FP32 {
		return p, nil
	}
	e := strings.ToLower(getenv(PrecisionEnv))
	if e == "" {
		return cuda.FP32, nil
	}
	ep, err := cuda.ParsePrecision(e)
	if err != nil {
		return cuda.FP32, fmt.Errorf("--precision %s (from $%s): want fp32, tf32 or bf16", e, PrecisionEnv)
	}
	return ep, nil
}

// The flag.Values. Get gives what the flag held before it was typed (a
// string, or an int64), so that help quotes the defaults as it did.

type specValue gpu.Spec

func (v *specValue) String() string     { return (*gpu.Spec)(v).String() }
func (v *specValue) Get() any           { return v.String() }
func (v *specValue) Set(s string) error { return (*gpu.Spec)(v).Set(s) }

type precisionValue cuda.Precision

func (v *precisionValue) String() string { return cuda.Precision(*v).String() }
func (v *precisionValue) Get() any       { return v.String() }
func (v *precisionValue) Set(s string) error {
	p, err := cuda.ParsePrecision(s)
	if err != nil {
		return errors.New("want fp32, tf32 or bf16")
	}
	*v = precisionValue(p)
	return nil
}

type minWorkValue int64

func (v *minWorkValue) String() string { return strconv.FormatInt(int64(*v), 10) }
func (v *minWorkValue) Get() any       { return int64(*v) }
func (v *minWorkValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return errors.New("want a number of multiply-adds")
	}
	if n < 1 {
		// Offload would read 0 as its default, which was not asked for.
		return errors.New("want 1 or more multiply-adds")
	}
	*v = minWorkValue(n)
	return nil
}

type bytesValue struct {
	n *uint64
	s string
}

func (v *bytesValue) String() string {
	if v == nil || v.n == nil {
		return "0"
	}
	return v.s
}
func (v *bytesValue) Get() any { return v.String() }
func (v *bytesValue) Set(s string) error {
	n, err := gpu.ParseBytes(s)
	if err != nil {
		return err
	}
	*v.n, v.s = n, s
	return nil
}
