//go:build !cuda

package main

// hasGPUKernels says this build has no GPU kernels: --device cuda always
// falls back to the CPU.
const hasGPUKernels = false
