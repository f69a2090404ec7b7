package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// deviceInputs is devicesFixture's video root and items: 16 real NExT-QA
// items over eight copies of one short video, so that every device of
// cpu:4 has videos to decode, embed and caption.
var deviceInputs = newFixture("device-inputs", func(dir string) error {
	src, err := shareddata.Lookup("videos", "big_buck_bunny_432_433.webm")
	if err != nil {
		return err
	}
	video, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	root := filepath.Join(dir, "videos")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	for k := range 8 {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("v%d.webm", k)), video, 0o644)
	}
	items, err := nextqaItems(16)
	if err != nil {
		return err
	}
	for i, it := range items {
		it["video_path"] = fmt.Sprintf("v%d.webm", i%8)
	}
	return writeItems(filepath.Join(dir, "items.jsonl"), items)
})

// devicesFixture returns deviceInputs' items and video root and
// initModels' directory (every role: text_embed, dup_confirm, lm_reader,
// image_text, captioner, vlm_reader), to read.
func devicesFixture(t *testing.T) (items, root, modelsDir string) {
	t.Helper()
	needORT(t)
	shareddata.Path(t, "videos", "big_buck_bunny_432_433.webm")
	shareddata.Path(t, "nextqa.jsonl")
	dir := deviceInputs.path(t)
	return filepath.Join(dir, "items.jsonl"), filepath.Join(dir, "videos"), initModelsDir(t)
}

// deviceWork reads the "device work" lines an audit writes at its end: per
// device, the units of work each role did there.
func deviceWork(t *testing.T, stderr string) map[string]map[string]int {
	t.Helper()
	out := map[string]map[string]int{}
	kv := regexp.MustCompile(`(\w+)=(\S+)`)
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.Contains(line, "device work") {
			continue
		}
		var dev string
		counts := map[string]int{}
		for _, m := range kv.FindAllStringSubmatch(line, -1) {
			if m[1] == "device" {
				dev = m[2]
				continue
			}
			if n, err := strconv.Atoi(m[2]); err == nil {
				counts[m[1]] = n
			}
		}
		if dev == "" {
			t.Fatalf("a device work line names no device: %q", line)
		}
		out[dev] = counts
	}
	return out
}

// TestAuditSpreadsEveryRoleOverDevices audits at every level, the VLM
// readers and the reference model included, on 1, 2 and 4 emulated
// devices: the outputs are byte-identical, and every role's work (the
// decoders' frames, the image tower's frames, the captions, the texts of
// text_embed, dup_confirm and image_text's text tower, the prompts of
// lm_reader and vlm_reader) is spread over the devices: each device does
// some of it and, for the work placed in balanced blocks, none more than
// twice its share. The decoders take videos from one queue as they free
// up, so their share follows their speed (on two cores, four emulated
// devices' decoders of one-second videos are far from even) and only
// "some" is asserted of them.
func TestAuditSpreadsEveryRoleOverDevices(t *testing.T) {
	items, root, modelsDir := devicesFixture(t)
	tmp := t.TempDir()
	roles := []string{"decode", "image_text", "image_text_text", "captioner", "text_embed", "lm_reader", "vlm_reader"}
	var first string
	for _, n := range []int{1, 2, 4} {
		out := filepath.Join(tmp, fmt.Sprintf("cpu%d", n))
		code, _, stderr := runAudit("--items", items, "--out", out, "--videos", root, "--models", modelsDir,
			"--reference-model", "--permutations", "2", "--log-format", "text", "--device", fmt.Sprintf("cpu:%d", n))
		if code != 0 {
			t.Fatalf("--device cpu:%d: exit %d\n%s", n, code, stderr)
		}
		work := deviceWork(t, stderr)
		if len(work) != n {
			t.Fatalf("--device cpu:%d: work reported for %d devices:\n%s", n, len(work), stderr)
		}
		for _, role := range roles {
			total, per := 0, make([]int, 0, n)
			for _, counts := range work {
				total += counts[role]
				per = append(per, counts[role])
			}
			if total == 0 {
				t.Errorf("--device cpu:%d: no %s work reported:\n%s", n, role, stderr)
				continue
			}
			for _, c := range per {
				if c == 0 || (n > 2 && role != "decode" && c > 2*total/n) {
					t.Errorf("--device cpu:%d: %s work per device %v (%d in all): want every device to do some and none more than %d", n, role, per, total, 2*total/n)
					break
				}
			}
		}
		if first == "" {
			first = out
			continue
		}
		sameOutputs(t, first, out, fmt.Sprintf("between --device cpu:1 and cpu:%d", n))
	}
}
