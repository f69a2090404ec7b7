// Command vidscreen-devicecheck holds the GPU kernels of kernels/cuda to the
// CPU kernels on data it generates from a seed, and measures them, for a
// GPU machine that has a driver but no Go, no FFmpeg and no network.
//
//	vidscreen-devicecheck reference --out REF.json
//	vidscreen-devicecheck run --reference REF.json --out REPORT.json [--cpu-only]
//
// reference runs on the build machine: the CPU kernels' pair sets and
// neighbour lists on the seeded data, as SHA-256 digests and counts, and
// their times (the CPU figure each GPU rate is printed beside). run
// regenerates the same data, runs each check on the GPU and writes one JSON
// report: per check the GPU result against the reference, and the rates;
// --cpu-only (or a build without the cuda tag) writes the same report with
// the GPU fields null. scripts/device-check.sh drives it;
// scripts/device-bundle.sh builds the GPU binary, which links only
// libcuda.so.1 and the C library (-tags cuda,noopenblas).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "vidscreen-devicecheck: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: vidscreen-devicecheck reference|run [flags]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	out := fs.String("out", "", "write the JSON to `FILE`")
	refPath := fs.String("reference", "", "the CPU reference `REF.json` (run only)")
	cpuOnly := fs.Bool("cpu-only", false, "run no GPU check: the report's GPU fields stay null (the dry run)")
	big := fs.Int("rate-rows", 100_000, "rows of the rate join (`N` x 1024 against itself)")
	vendiRows := fs.Int("vendi-rows", vendiRateRows, "items of the Vendi rate check (`N` x (1152 x 1024); 0 skips it)")
	limit := fs.Duration("timeout", 6*time.Minute, "stop every check after `D`")
	ortLib := fs.String("ort-lib", "", "ONNX Runtime's libonnxruntime.so (`PATH`) for the image tower; empty: $VIDSCREEN_ORT_LIB or .cache/onnxruntime, and on a GPU run the tower is skipped")
	ortStaged := fs.String("ort-staged", "", "what staged --ort-lib on this machine, or why nothing is (`TEXT`, written into the image_tower rows)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("%s: --out is required", args[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), *limit)
	defer cancel()
	var v any
	switch args[0] {
	case "reference":
		ref, err := cpuReference(ctx, towerOptions{lib: *ortLib})
		if err != nil {
			return err
		}
		v = ref
	case "run":
		if *refPath == "" {
			return fmt.Errorf("run: --reference is required")
		}
		var ref Reference
		b, err := os.ReadFile(*refPath)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &ref); err != nil {
			return fmt.Errorf("%s: %w", *refPath, err)
		}
		rep, err := runChecks(ctx, &ref, *cpuOnly, *big, *vendiRows, towerOptions{lib: *ortLib, staged: *ortStaged})
		if err != nil {
			return err
		}
		v = rep
	default:
		return fmt.Errorf("unknown subcommand %q (want reference or run)", args[0])
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(*out, append(b, '\n'), 0o644)
}
