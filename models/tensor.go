package models

import (
	"fmt"

	ort "github.com/yalue/onnxruntime_go"
)

// int64Tensor wraps data (which the tensor aliases) as a tensor of shape.
func int64Tensor(data []int64, shape ...int64) (*ort.Tensor[int64], error) {
	return ort.NewTensor(ort.NewShape(shape...), data)
}

func floatTensor(data []float32, shape ...int64) (*ort.Tensor[float32], error) {
	return ort.NewTensor(ort.NewShape(shape...), data)
}

// floats returns the data and shape of a float32 output.
func floats(outs map[string]ort.Value, name string) ([]float32, []int64, error) {
	v, ok := outs[name]
	if !ok {
		return nil, nil, fmt.Errorf("output %s missing", name)
	}
	t, ok := v.(*ort.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("output %s is not a float32 tensor", name)
	}
	return t.GetData(), t.GetShape(), nil
}

// inputSet collects the tensors of one Run and destroys them together.
type inputSet map[string]ort.Value

func (s inputSet) destroy() { destroyMap(s) }
