package main

import (
	"image"
)

// glyphs is a 3x5 bitmap font for the labels of the contact sheet's tiles:
// digits, the decimal point and "s". Each row is three bits, left to right.
var glyphs = map[rune][5]uint8{
	'0': {7, 5, 5, 5, 7}, '1': {2, 6, 2, 2, 7}, '2': {7, 1, 7, 4, 7}, '3': {7, 1, 7, 1, 7},
	'4': {5, 5, 7, 1, 1}, '5': {7, 4, 7, 1, 7}, '6': {7, 4, 7, 5, 7}, '7': {7, 1, 1, 1, 1},
	'8': {7, 5, 7, 5, 7}, '9': {7, 5, 7, 1, 7}, '.': {0, 0, 0, 0, 2}, 's': {0, 3, 6, 3, 6},
}

// drawLabel writes text in white on a black box in the top-left corner of
// tile, each font pixel scale pixels wide, clipped to the tile. Characters
// without a glyph leave a blank.
func drawLabel(img *image.RGBA, tile image.Rectangle, text string, scale int) {
	const pad = 1
	n := len([]rune(text))
	box := image.Rect(tile.Min.X, tile.Min.Y, tile.Min.X+(4*n+2*pad)*scale, tile.Min.Y+(5+2*pad)*scale).Intersect(tile)
	fill(img, box, 0)
	for i, r := range []rune(text) {
		g, ok := glyphs[r]
		if !ok {
			continue
		}
		for row, bits := range g {
			for col := range 3 {
				if bits&(4>>col) == 0 {
					continue
				}
				x := tile.Min.X + (pad+4*i+col)*scale
				y := tile.Min.Y + (pad+row)*scale
				fill(img, image.Rect(x, y, x+scale, y+scale).Intersect(box), 255)
			}
		}
	}
}

// fill sets r's pixels of img to grey level v, opaque.
func fill(img *image.RGBA, r image.Rectangle, v uint8) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)]
		for j := 0; j < len(row); j += 4 {
			row[j], row[j+1], row[j+2], row[j+3] = v, v, v, 255
		}
	}
}
