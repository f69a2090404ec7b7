package decode

// rotateRGB turns the packed RGB24 image src (w x h) clockwise by deg
// (90, 180 or 270) into dst, which then holds an h x w image for 90 and 270.
func rotateRGB(dst, src []byte, w, h, deg int) {
	switch deg {
	case 90:
		// Source (x, y) goes to (h-1-y, x) in an h-wide image.
		for y := 0; y < h; y++ {
			row := src[3*y*w : 3*(y+1)*w]
			for x := 0; x < w; x++ {
				o := 3 * (x*h + h - 1 - y)
				copy(dst[o:o+3], row[3*x:3*x+3])
			}
		}
	case 180:
		n := w * h
		for i := 0; i < n; i++ {
			o := 3 * (n - 1 - i)
			copy(dst[o:o+3], src[3*i:3*i+3])
		}
	case 270:
		// Source (x, y) goes to (y, w-1-x).
		for y := 0; y < h; y++ {
			row := src[3*y*w : 3*(y+1)*w]
			for x := 0; x < w; x++ {
				o := 3 * ((w-1-x)*h + y)
				copy(dst[o:o+3], row[3*x:3*x+3])
			}
		}
	default:
		copy(dst, src[:3*w*h])
	}
}
