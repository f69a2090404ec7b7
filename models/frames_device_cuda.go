//go:build cuda

package models

import (
	"errors"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/gpu/cudactx"
	"github.com/vidscreen/vidscreen/models/imageprep/gpuprep"
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
	c, err := cudactx.Retain(dev.Index)
	if err != nil {
		return nil, err
	}
	p.closeDevice = c.Close
	if p.pd, err = gpuprep.OpenGPU(c); err != nil {
		return nil, err
	}
	tower, err := m.OpenBoundTower(r, dev)
	if err != nil {
		return nil, err
	}
	p.tower = tower
	return p, nil
}
