package openai

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
)

// An Image is an encoded picture to send in a chat message.
type Image struct {
	MIME string // "image/png", "image/jpeg"
	Data []byte

	digest [32]byte // SHA-256 of Data where this package encoded it; zero otherwise
	b64    []byte   // Data in base64, where this package encoded it: a frame goes in many requests
}

// DataURL is the image as a data: URL.
func (im *Image) DataURL() string {
	return "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

// RGBImage encodes a decoded frame (3 bytes a pixel, rows top to bottom, as
// decode/ produces) as PNG at its own size: lossless, so the server sees the
// frame's exact pixels, and the same bytes on every run. VidOmni sends its
// frames so; the readers send EncodeFrame's JPEG, as the Video-Index
// authors do.
func RGBImage(pix []byte, width, height int) (*Image, error) {
	if width <= 0 || height <= 0 || len(pix) < 3*width*height {
		return nil, fmt.Errorf("encode frame: %d bytes for %dx%d RGB", len(pix), width, height)
	}
	img := image.NewNRGBA(image.Rect(0, 0, width, height))
	for i := 0; i < width*height; i++ {
		copy(img.Pix[4*i:4*i+3], pix[3*i:3*i+3])
		img.Pix[4*i+3] = 255
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode frame: %w", err)
	}
	return newImage("image/png", buf.Bytes()), nil
}
