package sim

import (
	"fmt"
	"math"
)

// Image token counts per model family, at the size the image arrives in
// (the client's frames: a long side of 448, 448x252 for 16:9 video). Each
// follows the rules of the model's processor in Hugging Face transformers
// (docs/scale.md derives the figures at 448x252); none reads weights.

// Families the server can count images for.
const (
	FamilyQwen25VL       = "qwen2.5-vl"
	FamilyLlavaOneVision = "llava-onevision"
	FamilyInternVL       = "internvl"
	FamilyFixed          = "fixed"
)

// ImageTokens returns the prompt tokens one w x h image costs a model of
// family (placeholder tokens included); fixed is the count for
// FamilyFixed.
func ImageTokens(family string, w, h, fixed int) (int, error) {
	if w <= 0 || h <= 0 {
		return 0, fmt.Errorf("image of %dx%d", w, h)
	}
	switch family {
	case FamilyQwen25VL:
		return qwenTokens(w, h), nil
	case FamilyLlavaOneVision:
		return llavaOneVisionTokens(w, h), nil
	case FamilyInternVL:
		return internVLTokens(w, h), nil
	case FamilyFixed:
		return fixed, nil
	}
	return 0, fmt.Errorf("model family %q: want %s, %s, %s or %s", family, FamilyQwen25VL, FamilyLlavaOneVision, FamilyInternVL, FamilyFixed)
}

// qwenTokens is Qwen2.5-VL's count: smart_resize to multiples of 28 (14 px
// patches merged 2x2) within min_pixels 3136 and max_pixels 12845056 (the
// released preprocessor_config.json), one token per 28x28 cell, plus
// <|vision_start|> and <|vision_end|>.
func qwenTokens(w, h int) int {
	const factor, minPixels, maxPixels = 28.0, 3136.0, 12845056.0
	hb := roundEven(float64(h)/factor) * factor
	wb := roundEven(float64(w)/factor) * factor
	if hb*wb > maxPixels {
		beta := math.Sqrt(float64(h*w) / maxPixels)
		hb = math.Floor(float64(h)/beta/factor) * factor
		wb = math.Floor(float64(w)/beta/factor) * factor
	} else if hb*wb < minPixels {
		beta := math.Sqrt(minPixels / float64(h*w))
		hb = math.Ceil(float64(h)*beta/factor) * factor
		wb = math.Ceil(float64(w)*beta/factor) * factor
	}
	return int(hb/factor)*int(wb/factor) + 2
}

// roundEven is Python's round(): halves to the even integer.
func roundEven(x float64) float64 { return math.RoundToEven(x) }

// llavaOneVisionTokens is LLaVA-OneVision's count (SigLIP at 384 px, 14 px
// patches: 27x27 = 729 base features): the best "anyres_max_9" grid of
// 384 px tiles for the image, its 27-per-tile feature grid unpadded to the
// image's aspect ratio, one newline feature per row, and the 729 of the
// base image (LlavaOnevisionProcessor._get_number_of_features).
func llavaOneVisionTokens(w, h int) int {
	const tile, side = 384, 27
	bestW, bestH := 0, 0
	bestEff, bestWaste := -1, 0
	for gy := 1; gy <= 6; gy++ {
		for gx := 1; gx <= 6; gx++ {
			rw, rh := gx*tile, gy*tile
			scale := math.Min(float64(rw)/float64(w), float64(rh)/float64(h))
			dw, dh := int(float64(w)*scale), int(float64(h)*scale)
			eff := min(dw*dh, w*h)
			waste := rw*rh - eff
			if eff > bestEff || eff == bestEff && waste < bestWaste {
				bestEff, bestWaste, bestW, bestH = eff, waste, rw, rh
			}
		}
	}
	curH, curW := side*(bestH/tile), side*(bestW/tile)
	orig := float64(w) / float64(h)
	cur := float64(curW) / float64(curH)
	if orig > cur {
		newH := int(math.Round(float64(h) * float64(curW) / float64(w)))
		curH -= 2 * ((curH - newH) / 2)
	} else {
		newW := int(math.Round(float64(w) * float64(curH) / float64(h)))
		curW -= 2 * ((curW - newW) / 2)
	}
	unpadded, newline := curH*curW, curH
	if ratio := math.Sqrt(float64(curH*curW) / (9 * side * side)); ratio > 1.1 {
		unpadded = int(float64(curH)/ratio) * int(float64(curW)/ratio)
		newline = int(float64(curH) / ratio)
	}
	return unpadded + newline + side*side
}

// internVLTokens is InternVL's count (InternVL2.5/3 at 448 px tiles, 256
// tokens a tile after pixel shuffle): dynamic tiling to the grid of 1 to 12
// tiles whose aspect ratio is closest to the image's (ties: the larger
// grid when the image is big enough, as find_closest_aspect_ratio does),
// plus a thumbnail tile when there are several, plus <img> and </img>.
func internVLTokens(w, h int) int {
	const tile, maxTiles = 448, 12
	ar := float64(w) / float64(h)
	best := [2]int{1, 1}
	bestDiff := math.Inf(1)
	for n := 1; n <= maxTiles; n++ {
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				if i*j != n {
					continue
				}
				d := math.Abs(ar - float64(i)/float64(j))
				switch {
				case d < bestDiff:
					bestDiff, best = d, [2]int{i, j}
				case d == bestDiff && float64(w*h) > 0.5*tile*tile*float64(i*j):
					best = [2]int{i, j}
				}
			}
		}
	}
	tiles := best[0] * best[1]
	if tiles > 1 {
		tiles++ // the thumbnail
	}
	return tiles*256 + 2
}
