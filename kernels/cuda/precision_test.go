package cuda

import "testing"

func TestParsePrecision(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want Precision
		ok   bool
	}{{"fp32", FP32, true}, {"TF32", TF32, true}, {"bf16", BF16, true}, {"bf17", FP32, false}, {"", FP32, false}} {
		got, err := ParsePrecision(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParsePrecision(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
		if c.ok && got.String() != map[Precision]string{FP32: "fp32", TF32: "tf32", BF16: "bf16"}[got] {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}
