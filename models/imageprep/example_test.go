package imageprep_test

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/models/imageprep"
)

// Frames decoded at 640x360 become a CLIP ViT-B/32 batch: shortest edge to
// 224 (398x224), centre crop 224x224, rescale, normalise, channels first.
func Example() {
	cfg, err := imageprep.ReadConfig("testdata/clip-vit-base-patch32.json")
	if err != nil {
		panic(err)
	}
	p, err := imageprep.New(*cfg, imageprep.Options{})
	if err != nil {
		panic(err)
	}
	frames := make([]imageprep.Frame, 2)
	for i := range frames {
		pix := make([]byte, 3*640*360)
		for j := range pix {
			pix[j] = byte(i * 200) // a black frame and a light grey one
		}
		frames[i] = imageprep.Frame{Pix: pix, Width: 640, Height: 360}
	}
	batch := make([]float32, len(frames)*p.FrameLen())
	if err := p.Batch(context.Background(), frames, batch); err != nil {
		panic(err)
	}
	h, w := p.OutputSize()
	fmt.Printf("tensor %dx3x%dx%d\n", len(frames), h, w)
	for i := range frames {
		img := batch[i*p.FrameLen():]
		fmt.Printf("frame %d: R %.4f G %.4f B %.4f\n", i, img[0], img[h*w], img[2*h*w])
	}
	// Output:
	// tensor 2x3x224x224
	// frame 0: R -1.7923 G -1.7521 B -1.4802
	// frame 1: R 1.1274 G 1.2495 B 1.3638
}
