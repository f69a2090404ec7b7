package onnxbuild

// VisionConfig sizes a ViT-like image tower.
type VisionConfig struct {
	Channels, Image, Patch, Hidden, Heads, Layers, FFN int
	// Out, when not 0, adds a linear projection of every patch row to Out
	// values (a VLM's projector into the language model's width).
	Out int
}

// VisionTower is a pre-LN ViT: patch embedding, transformer blocks and a
// final layer normalisation, giving one row per patch.
type VisionTower struct {
	Config VisionConfig
	Patch  PatchEmbed
	LNPre  LayerNorm
	Blocks []Block
	LNPost LayerNorm
	Proj   *Linear
}

// clipEps is CLIP's layer_norm_eps (config.json of openai/clip-vit-base-patch32).
const clipEps = 1e-5

func (w *weightSource) visionTower(c VisionConfig) *VisionTower {
	v := &VisionTower{Config: c}
	v.Patch = w.patchEmbed(c.Channels, c.Image, c.Patch, c.Hidden)
	v.LNPre = w.layerNorm(c.Hidden, clipEps)
	for range c.Layers {
		v.Blocks = append(v.Blocks, w.block(c.Hidden, c.Heads, c.FFN, false, false, clipEps))
	}
	v.LNPost = w.layerNorm(c.Hidden, clipEps)
	if c.Out > 0 {
		p := w.linear(c.Hidden, c.Out)
		v.Proj = &p
	}
	return v
}

// emit adds the tower to g, reading pixels (B, C, H, W), and returns the
// (B, P, D) patch rows.
func (v *VisionTower) emit(g *Graph, pixels string) string {
	x := g.patchEmbed(pixels, v.Patch, "vision.patch")
	x = g.layerNorm(x, v.LNPre, "vision.ln_pre")
	for i, b := range v.Blocks {
		x = g.block(x, "", b, "vision.layer"+itoa(i), nil, "")
	}
	x = g.layerNorm(x, v.LNPost, "vision.ln_post")
	if v.Proj != nil {
		x = g.linear(x, *v.Proj, "vision.proj")
	}
	return x
}

func (v *VisionTower) pixelInput(g *Graph) string {
	c := v.Config
	return g.Input("pixel_values", Float, "batch_size", c.Channels, c.Image, c.Image)
}

// Forward returns the patch rows of one C x H x W image.
func (v *VisionTower) Forward(img []float32) Mat {
	x := v.LNPre.apply(v.Patch.apply(img))
	for _, b := range v.Blocks {
		x = b.apply(x, nil, Mat{}, nil)
	}
	x = v.LNPost.apply(x)
	if v.Proj != nil {
		x = v.Proj.apply(x)
	}
	return x
}
