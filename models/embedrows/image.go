package embedrows

import (
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // decoders image.Decode finds
	_ "image/png"
	"os"

	"github.com/vidscreen/vidscreen/models/imageprep"
)

// LoadImage decodes a PNG or JPEG file at its full resolution into RGB
// bytes, as the processor's do_convert_rgb makes of it: an alpha channel is
// dropped (not composited), grey is copied to the three channels. PNG
// pixels are the file's exactly; a JPEG's may differ from Pillow's by a few
// levels, since Go's decoder and libjpeg upsample chroma and round their
// inverse DCT differently.
func LoadImage(path string) (imageprep.Frame, error) {
	f, err := os.Open(path)
	if err != nil {
		return imageprep.Frame{}, err
	}
	defer f.Close()
	img, format, err := image.Decode(f)
	if err != nil {
		return imageprep.Frame{}, fmt.Errorf("%s: not a PNG or JPEG image: %w", path, err)
	}
	if format != "png" && format != "jpeg" {
		return imageprep.Frame{}, fmt.Errorf("%s: a %s image; want PNG or JPEG", path, format)
	}
	return rgbFrame(img), nil
}

// rgbFrame copies img into packed RGB bytes.
func rgbFrame(img image.Image) imageprep.Frame {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	pix := make([]byte, 3*w*h)
	k := 0
	switch src := img.(type) {
	case *image.YCbCr:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				yi, ci := src.YOffset(x, y), src.COffset(x, y)
				pix[k], pix[k+1], pix[k+2] = color.YCbCrToRGB(src.Y[yi], src.Cb[ci], src.Cr[ci])
				k += 3
			}
		}
	case *image.NRGBA:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := src.Pix[src.PixOffset(b.Min.X, y):]
			for x := 0; x < w; x++ {
				copy(pix[k:k+3], row[4*x:4*x+3])
				k += 3
			}
		}
	default:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				pix[k], pix[k+1], pix[k+2] = c.R, c.G, c.B
				k += 3
			}
		}
	}
	return imageprep.Frame{Pix: pix, Width: w, Height: h}
}
