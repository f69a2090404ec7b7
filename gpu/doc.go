// Package gpu finds the accelerators of the machine at run time and shares them
// out: one worker set and one memory budget per device, work placed by device,
// and the CPU when no GPU is there or none can hold the work.
//
// Discovery needs no CUDA toolkit to build: it opens the NVIDIA driver's own
// libraries with dlopen (github.com/ebitengine/purego), NVML
// (libnvidia-ml.so.1) first, which reports free memory without creating a CUDA
// context, then the CUDA driver API (libcuda.so.1). A machine with neither
// yields an Inventory with no devices and a Missing line naming what was not
// found; callers print it once and run on the CPU.
//
// Data moves one way: Discover gives an Inventory; ParseSpec reads the
// --device flag (cpu, cpu:N, cuda, cuda:N[,M...]) into a Spec, which
// package gpuflag defines on a command's FlagSet beside the other device
// flags and JSON holds as its string; Select turns both into the
// devices a run uses; NewPool gives each a worker set and a memory budget;
// Acquire places one piece of work on a device and Release gives it back.
package gpu
