package embedrows

import (
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

var small struct {
	once sync.Once
	dir  string
	rt   *models.Runtime
	err  error
}

// smallModels writes `models init`'s directory once and opens a runtime.
func smallModels(t *testing.T) (*models.Runtime, *models.Manifest) {
	t.Helper()
	small.once.Do(func() {
		small.dir, small.err = os.MkdirTemp("", "vidscreen-embedrows-")
		if small.err != nil {
			return
		}
		if small.err = onnxbuild.WriteModelsDir(small.dir); small.err != nil {
			return
		}
		small.rt, small.err = models.NewRuntime(models.RuntimeOptions{Threads: 1})
	})
	if small.err != nil {
		t.Skipf("small models or ONNX Runtime unavailable: %v", small.err)
	}
	man, err := models.LoadManifest(small.dir)
	if err != nil {
		t.Fatal(err)
	}
	return small.rt, man
}

func TestMain(m *testing.M) {
	code := m.Run()
	if small.dir != "" {
		os.RemoveAll(small.dir)
	}
	os.Exit(code)
}

func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTextRowsAreTheRoles: for each text role of a models init directory,
// the rows are the role's own vectors for the lines, in order.
func TestTextRowsAreTheRoles(t *testing.T) {
	rt, man := smallModels(t)
	texts := []string{"what is the man holding?", "a red ball", "Why did the girl laugh at the end?", "x"}
	lines, err := ReadLines(writeLines(t, texts...))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, role := range []models.Role{models.RoleImageText, models.RoleTextEmbed, models.RoleDupConfirm} {
		got, err := Embed(ctx, rt, man, Request{Role: role, Texts: lines, Device: gpu.CPUDevice()})
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		var want [][]float32
		if role == models.RoleImageText {
			it, err := rt.OpenImageText(man, gpu.CPUDevice())
			if err != nil {
				t.Fatal(err)
			}
			want, err = it.EmbedTexts(ctx, texts)
			it.Close()
			if err != nil {
				t.Fatal(err)
			}
		} else {
			e, err := rt.OpenTextEncoder(man, role, gpu.CPUDevice())
			if err != nil {
				t.Fatal(err)
			}
			want, err = e.Embed(ctx, texts)
			e.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		if got.Rows != len(texts) || got.Cols != len(want[0]) {
			t.Fatalf("%s: %dx%d, want %dx%d", role, got.Rows, got.Cols, len(texts), len(want[0]))
		}
		for i := range want {
			for k, v := range want[i] {
				if got.Row(i)[k] != v {
					t.Fatalf("%s row %d differs from the role's vector at %d: %g, want %g", role, i, k, got.Row(i)[k], v)
				}
			}
		}
	}
}

// testImage is a w x h gradient with a bright square, so that resizing
// and cropping show.
func testImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.NRGBA{uint8(255 * x / w), uint8(255 * y / h), 90, 255}
			if x > w/3 && x < w/2 && y > h/3 && y < h/2 {
				c = color.NRGBA{250, 250, 20, 128} // alpha is dropped, not composited
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// TestImageRowsAreEmbedFrames: PNG and JPEG files at full resolution give
// the rows image_text's EmbedFrames gives their decoded pixels; a PNG's
// pixels are the file's exactly.
func TestImageRowsAreEmbedFrames(t *testing.T) {
	rt, man := smallModels(t)
	dir := t.TempDir()
	var paths []string
	var frames []imageprep.Frame
	for i, sz := range [][2]int{{160, 90}, {64, 64}, {33, 120}} {
		img := testImage(sz[0], sz[1])
		p := filepath.Join(dir, "f"+string(rune('0'+i))+".png")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		f.Close()
		paths = append(paths, p)
		fr := rgbFrame(img)
		frames = append(frames, fr)
		if fr.Pix[0] != img.Pix[0] || fr.Width != sz[0] {
			t.Fatalf("rgbFrame changed the pixels")
		}
	}
	jp := filepath.Join(dir, "f.jpg")
	f, err := os.Create(jp)
	if err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(f, testImage(100, 70), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	jf, err := LoadImage(jp)
	if err != nil {
		t.Fatal(err)
	}
	paths, frames = append(paths, jp), append(frames, jf)

	lines, err := ReadLines(writeLines(t, paths...))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := Embed(ctx, rt, man, Request{Role: models.RoleImageText, Images: lines, Device: gpu.CPUDevice()})
	if err != nil {
		t.Fatal(err)
	}
	it, err := rt.OpenImageText(man, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	want, err := it.EmbedFrames(ctx, frames)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != len(paths) {
		t.Fatalf("%d rows for %d images", got.Rows, len(paths))
	}
	for i := range want {
		for k, v := range want[i] {
			if got.Row(i)[k] != v {
				t.Fatalf("image %d (%s): row differs at %d: %g, want %g", i, paths[i], k, got.Row(i)[k], v)
			}
		}
	}
}

// TestBadInputNamesFileAndLine: empty lines, missing and unreadable images
// are errors naming the list and the line.
func TestBadInputNamesFileAndLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notImage := filepath.Join(dir, "notes.png")
	if err := os.WriteFile(notImage, []byte("not an image"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := writeLines(t, "a text", "", "another")
	if _, err := ReadLines(empty); err == nil || !strings.Contains(err.Error(), empty+":2: empty line") {
		t.Errorf("empty line: %v", err)
	}
	blank := writeLines(t, "a text", "   ")
	if _, err := ReadLines(blank); err == nil || !strings.Contains(err.Error(), blank+":2: empty line") {
		t.Errorf("line of spaces: %v", err)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("ok\n\xff\xfe\n"), 0o644)
	if _, err := ReadLines(bad); err == nil || !strings.Contains(err.Error(), bad+":2: invalid UTF-8") {
		t.Errorf("invalid UTF-8: %v", err)
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.png"), "no such file"},
		{notImage, "not a PNG or JPEG image"},
	} {
		list := writeLines(t, c.path)
		lines, err := ReadLines(list)
		if err != nil {
			t.Fatal(err)
		}
		_, err = LoadImage(lines[0].Text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.path, err, c.want)
		}
	}
}

// TestImagesNeedImageText: a text role refuses images, an unknown role is
// named, and a missing image is named by its list and line.
func TestImagesNeedImageText(t *testing.T) {
	rt, man := smallModels(t)
	lines := []Line{{Text: "x.png", File: "list", No: 1}}
	if _, err := Embed(context.Background(), rt, man, Request{Role: models.RoleTextEmbed, Images: lines}); err == nil || !strings.Contains(err.Error(), "only image_text takes images") {
		t.Errorf("text_embed with images: %v", err)
	}
	if _, err := Embed(context.Background(), rt, man, Request{Role: models.RoleCaptioner, Texts: lines}); err == nil || !strings.Contains(err.Error(), "has no embeddings") {
		t.Errorf("captioner: %v", err)
	}
	missing := []Line{{Text: "a.png", File: "list.txt", No: 1}, {Text: filepath.Join(t.TempDir(), "gone.png"), File: "list.txt", No: 2}}
	if _, err := Embed(context.Background(), rt, man, Request{Role: models.RoleImageText, Images: missing[1:]}); err == nil || !strings.Contains(err.Error(), "list.txt:2: open ") {
		t.Errorf("a missing image: %v; want it named by list and line", err)
	}
}
