//go:build cuda

package main

// hasGPUKernels says this build has the GPU kernels: --device cuda runs
// on a GPU where one opens.
const hasGPUKernels = true
