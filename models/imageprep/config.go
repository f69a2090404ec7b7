package imageprep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Resample is PIL's resampling filter number, as preprocessor_config.json
// stores it (PIL.Image.Resampling).
type Resample int

const (
	Nearest  Resample = 0
	Lanczos  Resample = 1
	Bilinear Resample = 2
	Bicubic  Resample = 3
	Box      Resample = 4
	Hamming  Resample = 5
)

func (r Resample) String() string {
	switch r {
	case Nearest:
		return "nearest"
	case Lanczos:
		return "lanczos"
	case Bilinear:
		return "bilinear"
	case Bicubic:
		return "bicubic"
	case Box:
		return "box"
	case Hamming:
		return "hamming"
	}
	return fmt.Sprintf("Resample(%d)", int(r))
}

// A Config is a preprocessor_config.json with every default filled in.
type Config struct {
	Type string // image_processor_type, e.g. "CLIPImageProcessor"

	DoResize     bool
	ShortestEdge int // resize so the shorter side is this long (CLIP); 0 when Height/Width are used
	Height       int // resize to exactly Height x Width (SigLIP, BLIP, ViT)
	Width        int
	Resample     Resample

	DoCenterCrop bool
	CropHeight   int
	CropWidth    int

	DoRescale     bool
	RescaleFactor float64

	DoNormalize bool
	Mean        [3]float64
	Std         [3]float64

	DoConvertRGB bool // frames from decode/ are RGB already; kept for the record
}

// Defaults of the processors transformers defines, for the fields a
// preprocessor_config.json leaves out (transformers/models/*/image_processing_*.py).
var (
	openAICLIPMean  = [3]float64{0.48145466, 0.4578275, 0.40821073}
	openAICLIPStd   = [3]float64{0.26862954, 0.26130258, 0.27577711}
	imagenetStdMean = [3]float64{0.5, 0.5, 0.5}
	imagenetStdStd  = [3]float64{0.5, 0.5, 0.5}
	imagenetDefMean = [3]float64{0.485, 0.456, 0.406}
	imagenetDefStd  = [3]float64{0.229, 0.224, 0.225}
	defaultRescale  = 1.0 / 255
)

// defaults returns the processor's constructor defaults. The "Fast"
// (torchvision) variants of a processor read the same fields and get the
// same defaults; they are applied here the slow way, through PIL's filters.
func defaults(typ string) (Config, bool) {
	switch strings.TrimSuffix(typ, "Fast") {
	case "CLIPImageProcessor", "CLIPFeatureExtractor":
		return Config{Type: typ, DoResize: true, ShortestEdge: 224, Resample: Bicubic,
			DoCenterCrop: true, CropHeight: 224, CropWidth: 224, DoRescale: true, RescaleFactor: defaultRescale,
			DoNormalize: true, Mean: openAICLIPMean, Std: openAICLIPStd, DoConvertRGB: true}, true
	case "SiglipImageProcessor":
		return Config{Type: typ, DoResize: true, Height: 224, Width: 224, Resample: Bicubic,
			DoRescale: true, RescaleFactor: defaultRescale, DoNormalize: true,
			Mean: imagenetStdMean, Std: imagenetStdStd, DoConvertRGB: true}, true
	case "BlipImageProcessor":
		return Config{Type: typ, DoResize: true, Height: 384, Width: 384, Resample: Bicubic,
			DoRescale: true, RescaleFactor: defaultRescale, DoNormalize: true,
			Mean: openAICLIPMean, Std: openAICLIPStd, DoConvertRGB: true}, true
	case "ViTImageProcessor", "ViTFeatureExtractor":
		return Config{Type: typ, DoResize: true, Height: 224, Width: 224, Resample: Bilinear,
			DoRescale: true, RescaleFactor: defaultRescale, DoNormalize: true,
			Mean: imagenetStdMean, Std: imagenetStdStd}, true
	}
	return Config{}, false
}

// rawConfig is the JSON as written. Size fields are an integer or an object.
type rawConfig struct {
	ImageProcessorType   string          `json:"image_processor_type"`
	FeatureExtractorType string          `json:"feature_extractor_type"`
	DoResize             *bool           `json:"do_resize"`
	Size                 json.RawMessage `json:"size"`
	Resample             *int            `json:"resample"`
	DoCenterCrop         *bool           `json:"do_center_crop"`
	CropSize             json.RawMessage `json:"crop_size"`
	DoRescale            *bool           `json:"do_rescale"`
	RescaleFactor        *float64        `json:"rescale_factor"`
	DoNormalize          *bool           `json:"do_normalize"`
	ImageMean            json.RawMessage `json:"image_mean"`
	ImageStd             json.RawMessage `json:"image_std"`
	DoConvertRGB         *bool           `json:"do_convert_rgb"`
}

// ReadConfig reads and checks a preprocessor_config.json.
func ReadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read image preprocessor config: %w", err)
	}
	return ParseConfig(data, path)
}

// ParseConfig parses a preprocessor_config.json; name is used in errors,
// which give the line and the field.
func ParseConfig(data []byte, name string) (*Config, error) {
	var raw rawConfig
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, jsonError(name, data, err)
	}
	typ := raw.ImageProcessorType
	if typ == "" {
		typ = raw.FeatureExtractorType
	}
	if typ == "" {
		return nil, fmt.Errorf("%s: field image_processor_type: missing (want CLIPImageProcessor, SiglipImageProcessor, BlipImageProcessor or ViTImageProcessor)", name)
	}
	c, ok := defaults(typ)
	if !ok {
		return nil, fmt.Errorf("%s:%d: field image_processor_type: %q is not supported (want CLIPImageProcessor, SiglipImageProcessor, BlipImageProcessor or ViTImageProcessor)",
			name, lineOf(data, "image_processor_type"), typ)
	}
	fieldErr := func(field, format string, args ...any) error {
		return fmt.Errorf("%s:%d: field %s: %s", name, lineOf(data, `"`+field+`"`), field, fmt.Sprintf(format, args...))
	}
	setBool := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	setBool(&c.DoResize, raw.DoResize)
	setBool(&c.DoCenterCrop, raw.DoCenterCrop)
	setBool(&c.DoRescale, raw.DoRescale)
	setBool(&c.DoNormalize, raw.DoNormalize)
	setBool(&c.DoConvertRGB, raw.DoConvertRGB)
	base := strings.TrimSuffix(typ, "Fast")
	if base == "SiglipImageProcessor" || base == "BlipImageProcessor" {
		// These processors have no centre crop; transformers ignores the key.
		c.DoCenterCrop = false
	}
	if raw.Size != nil {
		// An integer size means the shortest edge for CLIP (get_size_dict with
		// default_to_square=False) and a square for the others.
		short, h, w, err := parseSize(raw.Size, base == "CLIPImageProcessor" || base == "CLIPFeatureExtractor")
		if err != nil {
			return nil, fieldErr("size", "%v", err)
		}
		c.ShortestEdge, c.Height, c.Width = short, h, w
	}
	if raw.Resample != nil {
		r := Resample(*raw.Resample)
		switch r {
		case Lanczos, Bilinear, Bicubic, Box, Hamming:
		case Nearest:
			return nil, fieldErr("resample", "0 (nearest) is not supported; no HF image processor of the supported kinds uses it")
		default:
			return nil, fieldErr("resample", "%d is not a PIL filter (want 1-5; 3 = bicubic, 2 = bilinear)", *raw.Resample)
		}
		c.Resample = r
	}
	if raw.CropSize != nil {
		short, h, w, err := parseSize(raw.CropSize, false)
		if err != nil {
			return nil, fieldErr("crop_size", "%v", err)
		}
		if short != 0 {
			return nil, fieldErr("crop_size", "shortest_edge has no meaning for a crop (want {\"height\": H, \"width\": W})")
		}
		c.CropHeight, c.CropWidth = h, w
	}
	if raw.RescaleFactor != nil {
		if *raw.RescaleFactor <= 0 {
			return nil, fieldErr("rescale_factor", "%v is not positive", *raw.RescaleFactor)
		}
		c.RescaleFactor = *raw.RescaleFactor
	}
	if raw.ImageMean != nil {
		m, err := parseTriple(raw.ImageMean)
		if err != nil {
			return nil, fieldErr("image_mean", "%v", err)
		}
		c.Mean = m
	}
	if raw.ImageStd != nil {
		s, err := parseTriple(raw.ImageStd)
		if err != nil {
			return nil, fieldErr("image_std", "%v", err)
		}
		for i, v := range s {
			if v == 0 {
				return nil, fieldErr("image_std", "channel %d is zero", i)
			}
		}
		c.Std = s
	}
	return &c, nil
}

// parseSize reads an integer or an object with shortest_edge or height and
// width. An integer is a shortest edge when intIsShortest, else a square.
func parseSize(raw json.RawMessage, intIsShortest bool) (short, h, w int, err error) {
	var n int
	if err := json.Unmarshal(raw, &n); err == nil {
		if n <= 0 {
			return 0, 0, 0, fmt.Errorf("%d is not positive", n)
		}
		if intIsShortest {
			return n, 0, 0, nil
		}
		return 0, n, n, nil
	}
	var obj struct {
		ShortestEdge *int `json:"shortest_edge"`
		LongestEdge  *int `json:"longest_edge"`
		Height       *int `json:"height"`
		Width        *int `json:"width"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return 0, 0, 0, fmt.Errorf("want an integer or {\"shortest_edge\": N} or {\"height\": H, \"width\": W}, got %s", bytes.TrimSpace(raw))
	}
	switch {
	case obj.LongestEdge != nil:
		return 0, 0, 0, errors.New("longest_edge is not supported")
	case obj.ShortestEdge != nil && obj.Height == nil && obj.Width == nil:
		if *obj.ShortestEdge <= 0 {
			return 0, 0, 0, fmt.Errorf("shortest_edge %d is not positive", *obj.ShortestEdge)
		}
		return *obj.ShortestEdge, 0, 0, nil
	case obj.ShortestEdge == nil && obj.Height != nil && obj.Width != nil:
		if *obj.Height <= 0 || *obj.Width <= 0 {
			return 0, 0, 0, fmt.Errorf("height %d and width %d must be positive", *obj.Height, *obj.Width)
		}
		return 0, *obj.Height, *obj.Width, nil
	}
	return 0, 0, 0, fmt.Errorf("want {\"shortest_edge\": N} or {\"height\": H, \"width\": W}, got %s", bytes.TrimSpace(raw))
}

// parseTriple reads three per-channel numbers, or one number for all three.
func parseTriple(raw json.RawMessage) ([3]float64, error) {
	var v float64
	if err := json.Unmarshal(raw, &v); err == nil {
		return [3]float64{v, v, v}, nil
	}
	var s []float64
	if err := json.Unmarshal(raw, &s); err != nil || len(s) != 3 {
		return [3]float64{}, fmt.Errorf("want 3 numbers (R, G, B), got %s", bytes.TrimSpace(raw))
	}
	return [3]float64{s[0], s[1], s[2]}, nil
}

// jsonError turns a decoding error into one naming the line and field.
func jsonError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s:%d: %v", name, lineAt(data, se.Offset), err)
	case errors.As(err, &te):
		return fmt.Errorf("%s:%d: field %s: want %s, got JSON %s", name, lineAt(data, te.Offset), te.Field, te.Type, te.Value)
	}
	return fmt.Errorf("%s: %w", name, err)
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// lineOf is the line of the first occurrence of key, or 1.
func lineOf(data []byte, key string) int {
	i := bytes.Index(data, []byte(key))
	if i < 0 {
		return 1
	}
	return lineAt(data, int64(i))
}
