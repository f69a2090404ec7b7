package onnxbuild

import (
	"fmt"
	"os"
)

// A Graph collects inputs, outputs, initializers and nodes, in the order the
// ONNX format wants them (nodes topologically sorted: each node is added
// after the nodes that produce its inputs).
type Graph struct {
	name    string
	nodes   []node
	inputs  []valueInfo
	outputs []valueInfo
	inits   []tensor
	seq     int
}

// NewGraph returns an empty graph called name.
func NewGraph(name string) *Graph { return &Graph{name: name} }

// Input declares a graph input.
func (g *Graph) Input(name string, dtype DataType, dims ...Dim) string {
	g.inputs = append(g.inputs, valueInfo{name: name, dtype: dtype, dims: dims})
	return name
}

// Output declares value as the graph output name, adding an Identity node
// when the value is not already called name.
func (g *Graph) Output(value, name string, dtype DataType, dims ...Dim) {
	if value != name {
		g.Node("Identity", []string{value}, []string{name})
	}
	g.outputs = append(g.outputs, valueInfo{name: name, dtype: dtype, dims: dims})
}

// Floats adds a float32 initializer and returns its name.
func (g *Graph) Floats(name string, data []float32, dims ...int64) string {
	checkSize(name, len(data), dims)
	g.inits = append(g.inits, tensor{name: g.unique(name), dtype: Float, dims: dims, raw: float32Raw(data)})
	return g.inits[len(g.inits)-1].name
}

// Ints adds an int64 initializer and returns its name.
func (g *Graph) Ints(name string, data []int64, dims ...int64) string {
	checkSize(name, len(data), dims)
	g.inits = append(g.inits, tensor{name: g.unique(name), dtype: Int64, dims: dims, raw: int64Raw(data)})
	return g.inits[len(g.inits)-1].name
}

// Scalar adds a float32 scalar initializer.
func (g *Graph) Scalar(name string, v float32) string { return g.Floats(name, []float32{v}) }

func checkSize(name string, n int, dims []int64) {
	want := int64(1)
	for _, d := range dims {
		want *= d
	}
	if int64(n) != want {
		panic(fmt.Sprintf("onnxbuild: initializer %s has %d values for dims %v", name, n, dims))
	}
}

func (g *Graph) unique(prefix string) string {
	g.seq++
	return fmt.Sprintf("%s_%d", prefix, g.seq)
}

// Node adds a node with explicit output names.
func (g *Graph) Node(op string, inputs, outputs []string, attrs ...Attr) {
	g.nodes = append(g.nodes, node{op: op, name: g.unique(op), inputs: inputs, outputs: outputs, attrs: attrs})
}

// Op adds a single-output node and returns the name of its output.
func (g *Graph) Op(op string, attrs []Attr, inputs ...string) string {
	out := g.unique(op + "_out")
	g.Node(op, inputs, []string{out}, attrs...)
	return out
}

// WriteFile writes the model to path.
func (g *Graph) WriteFile(path string) error {
	if err := os.WriteFile(path, g.Marshal(), 0o644); err != nil {
		return fmt.Errorf("onnxbuild: write %s: %w", path, err)
	}
	return nil
}

func itoa(i int) string { return fmt.Sprint(i) }
