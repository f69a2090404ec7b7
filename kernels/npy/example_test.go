package npy_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

func Example() {
	dir, err := os.MkdirTemp("", "npy")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "emb.npy")
	m := kernels.NewMatrix(2, 2)
	copy(m.Data, []float32{3, 4, 1, 0})
	kernels.NormalizeRows(m)
	if err := npy.WriteFile(path, m, npy.Float16); err != nil {
		log.Fatal(err)
	}
	back, err := npy.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back.Rows, back.Cols, back.Row(0))
	// Output: 2 2 [0.60009766 0.7998047]
}
