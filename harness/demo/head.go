package demo

import (
	"bufio"
	"bytes"
	"fmt"
)

// Head returns the first n lines of each embedded item file, in the order of
// Items, as one JSONL document: a small real multi-benchmark set for tests
// and examples.
func Head(n int) ([]byte, error) {
	var buf bytes.Buffer
	for _, name := range Items() {
		f, err := FS().Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for i := 0; i < n && sc.Scan(); i++ {
			buf.Write(sc.Bytes())
			buf.WriteByte('\n')
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read embedded %s: %w", name, err)
		}
	}
	return buf.Bytes(), nil
}
