package main

import (
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/models/imageprep/gpuprep"
)

// hostDevice is kernels/cuda's Host with the Go port of the preprocessing
// kernels (gpuprep.Host) beside it: a device on the CPU for every check,
// as the GPU is (gpuDevice in gpu_cuda.go).
type hostDevice struct{ cuda.Host }

// OpenPrep opens gpuprep's Host.
func (hostDevice) OpenPrep() (gpuprep.PrepDevice, error) { return gpuprep.Host{}.OpenPrep() }
