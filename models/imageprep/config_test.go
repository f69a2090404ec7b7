package imageprep

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadConfig(t *testing.T) {
	t.Parallel()
	clip := Config{Type: "CLIPFeatureExtractor", DoResize: true, ShortestEdge: 224, Resample: Bicubic,
		DoCenterCrop: true, CropHeight: 224, CropWidth: 224, DoRescale: true, RescaleFactor: 1.0 / 255,
		DoNormalize: true, Mean: openAICLIPMean, Std: openAICLIPStd, DoConvertRGB: true}
	clipL := clip
	clipL.Type, clipL.ShortestEdge, clipL.CropHeight, clipL.CropWidth, clipL.RescaleFactor = "CLIPImageProcessor", 336, 336, 336, 0.00392156862745098
	siglip := Config{Type: "SiglipImageProcessor", DoResize: true, Height: 224, Width: 224, Resample: Bicubic,
		DoRescale: true, RescaleFactor: 0.00392156862745098, DoNormalize: true, Mean: [3]float64{0.5, 0.5, 0.5},
		Std: [3]float64{0.5, 0.5, 0.5}, DoConvertRGB: true}
	tests := []struct {
		file  string
		want  Config
		wantH int
		wantW int
	}{
		{"clip-vit-base-patch32.json", clip, 224, 224},
		{"clip-vit-large-patch14-336.json", clipL, 336, 336},
		{"siglip-base-patch16-224.json", siglip, 224, 224},
	}
	for _, tt := range tests {
		got, err := ReadConfig(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.file, *got, tt.want)
		}
		p, err := New(*got, Options{})
		if err != nil {
			t.Errorf("%s: New: %v", tt.file, err)
			continue
		}
		if h, w := p.OutputSize(); h != tt.wantH || w != tt.wantW {
			t.Errorf("%s: output %dx%d, want %dx%d", tt.file, w, h, tt.wantW, tt.wantH)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		json string
		want string
	}{
		{"syntax error gives the line", "{\n\"image_processor_type\": \"CLIPImageProcessor\",\n\"size\": 224,,\n}", "cfg.json:3: invalid character"},
		{"wrong type gives line and field", "{\n\"image_processor_type\": \"CLIPImageProcessor\",\n\"resample\": \"bicubic\"\n}", "cfg.json:3: field resample: want int"},
		{"missing type", `{"size": 224}`, "field image_processor_type: missing"},
		{"unknown type", "{\n\"image_processor_type\": \"Qwen2VLImageProcessor\"}", `cfg.json:2: field image_processor_type: "Qwen2VLImageProcessor" is not supported`},
		{"longest edge", `{"image_processor_type": "CLIPImageProcessor", "size": {"longest_edge": 5}}`, "field size: longest_edge is not supported"},
		{"size mixes forms", `{"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": 5, "height": 3}}`, "field size: want"},
		{"negative size", `{"image_processor_type": "ViTImageProcessor", "size": -3}`, "field size: -3 is not positive"},
		{"nearest", `{"image_processor_type": "ViTImageProcessor", "resample": 0}`, "field resample: 0 (nearest) is not supported"},
		{"unknown filter", `{"image_processor_type": "ViTImageProcessor", "resample": 9}`, "field resample: 9 is not a PIL filter"},
		{"crop with shortest edge", `{"image_processor_type": "CLIPImageProcessor", "crop_size": {"shortest_edge": 5}}`, "field crop_size: shortest_edge has no meaning"},
		{"two means", `{"image_processor_type": "CLIPImageProcessor", "image_mean": [0.5, 0.5]}`, "field image_mean: want 3 numbers"},
		{"zero std", `{"image_processor_type": "CLIPImageProcessor", "image_std": [0.5, 0, 0.5]}`, "field image_std: channel 1 is zero"},
		{"zero rescale", `{"image_processor_type": "CLIPImageProcessor", "rescale_factor": 0}`, "field rescale_factor: 0 is not positive"},
	}
	for _, tt := range tests {
		_, err := ParseConfig([]byte(tt.json), "cfg.json")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := ReadConfig(filepath.Join("testdata", "bad-resample-type.json")); err == nil ||
		!strings.Contains(err.Error(), "bad-resample-type.json:4: field resample") {
		t.Errorf("ReadConfig: %v", err)
	}
}

func TestParseConfigDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json string
		want func(c *Config) bool
	}{
		// An integer size is a shortest edge for CLIP and a square for ViT.
		{`{"image_processor_type": "ViTImageProcessor", "size": 384}`, func(c *Config) bool {
			return c.Height == 384 && c.Width == 384 && c.ShortestEdge == 0 && c.Resample == Bilinear
		}},
		{`{"image_processor_type": "CLIPImageProcessor", "size": 256}`, func(c *Config) bool { return c.ShortestEdge == 256 && c.CropHeight == 224 }},
		// SigLIP and BLIP have no centre crop, even if the file says so.
		{`{"image_processor_type": "SiglipImageProcessor", "do_center_crop": true}`, func(c *Config) bool { return !c.DoCenterCrop }},
		{`{"image_processor_type": "BlipImageProcessor"}`, func(c *Config) bool { return c.Height == 384 && c.Mean == openAICLIPMean }},
		{`{"image_processor_type": "CLIPImageProcessor", "image_mean": 0.5}`, func(c *Config) bool { return c.Mean == [3]float64{0.5, 0.5, 0.5} }},
		// A "Fast" processor reads the same fields and defaults.
		{`{"image_processor_type": "CLIPImageProcessorFast", "size": 256}`, func(c *Config) bool { return c.ShortestEdge == 256 && c.DoCenterCrop && c.Resample == Bicubic }},
		{`{"image_processor_type": "SiglipImageProcessorFast", "do_center_crop": true}`, func(c *Config) bool { return !c.DoCenterCrop && c.Height == 224 }},
	}
	for _, tt := range tests {
		c, err := ParseConfig([]byte(tt.json), "cfg.json")
		if err != nil || !tt.want(c) {
			t.Errorf("%s: got %+v, %v", tt.json, c, err)
		}
	}
}

func TestNewRejectsVariableOutputSize(t *testing.T) {
	t.Parallel()
	c, _ := ParseConfig([]byte(`{"image_processor_type": "CLIPImageProcessor", "do_center_crop": false}`), "cfg.json")
	if _, err := New(*c, Options{}); err == nil || !strings.Contains(err.Error(), "depend on each frame") {
		t.Errorf("New without crop after a shortest-edge resize: %v", err)
	}
}
