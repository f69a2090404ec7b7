//go:build cuda

package models

import (
	"errors"

	kcuda "github.com/vidscreen/vidscreen/kernels/cuda"

	"github.com/vidscreen/vidscreen/gpu"
)

// openDeviceFramePath opens device dev.ID on its primary context, its
// preprocessing kernels and m's tower bound on the CUDA provider there; on
// error it closes what it opened.
func openDeviceFramePath(r *Runtime, m *ImageText, dev gpu.Device) (_ deviceFramePath, err error) {
	p := &framePath{plans: m.prep}
	defer func() {
		if err != nil {
			err = errors.Join(err, p.close())
		}
	}()
	// Preprocessing runs no GEMM: cuBLAS is not needed.
	g, err := kcuda.Open(dev.Index, kcuda.OpenOptions{NoCUBLAS: true})
	if err != nil {
		return nil, err
	}
	p.closeDevice = g.Close
	if p.pd, err = g.OpenPrep(); err != nil {
		return nil, err
	}
	tower, err := m.OpenBoundTower(r, dev)
	if err != nil {
		return nil, err
	}
	p.tower = tower
	return p, nil
}
