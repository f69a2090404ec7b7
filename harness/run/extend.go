package run

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// A finished run is extended, rather than refused, when it is started again
// with a configuration that only adds to the stored one: more item files
// whose items belong to benchmarks the run has not audited yet, more
// levels or model roles (so more attackers), the models of new attackers, a
// reference or evaluated models' predictions. Everything a stored prediction
// depends on stays as it was, so every stored record stays valid: an
// attacker learns within a benchmark only (attack.benchmarkStores), a
// benchmark's orders and folds depend only on its own items' keys
// (attack.Orders, attack.Folds), and the lexical embedder is fitted on each
// benchmark's own texts. The run then computes only what is missing (the
// new attackers on every item, every attacker on the new benchmarks' items)
// and writes the outputs a fresh run of the new configuration writes.

// An attacker whose version changed (attack.Version) is refused: its stored
// answers belong to the old version (attacker_versions in config.json).

// benchmarkItems fingerprints each benchmark's items: a hash of their keys
// in key order. rundir.Config.BenchmarkItems holds it, so that an extension cannot
// change the items of a benchmark the run already audited (a new file with
// items of an old benchmark would change its pool attackers' answers).
func benchmarkItems(items []*harness.Item) map[string]string {
	keys := map[string][]string{}
	for _, it := range items {
		keys[it.Benchmark] = append(keys[it.Benchmark], it.ID)
	}
	out := make(map[string]string, len(keys))
	for b, ids := range keys {
		slices.Sort(ids)
		h := sha256.New()
		for _, id := range ids {
			fmt.Fprintf(h, "%d:%s\n", len(id), id)
		}
		out[b] = hex.EncodeToString(h.Sum(nil))[:32]
	}
	return out
}

// growable lists, by path in config.json, the arrays an extension may add
// elements to and the fields it may set where the stored run has none; any
// other field must be equal.
var (
	growableLists = []string{"items", "models", "benchmarks", "attack.levels", "attack.roles", "videos.sets", "videos.vlm_sets"}
	// replaceable are the models of the video levels: a stored frame or
	// order answer names the models its video's features were made with
	// (rundir.Record.Input, videoInput), so one whose model changed is computed
	// again, and only those answers; the features, VLM scores and text
	// embeddings of the new model are cached under its own keys. Every
	// other model (text_embed, lm_reader) is read by attackers that learn
	// or store no such name: changing it is another run.
	replaceable = []string{"videos.image_text", "videos.captioner", "videos.vlm_reader", "videos.screen_reader", "videos.screen_frame_sets", "reference_model.vlm_reader", "videos.asr"}
	settable    = []string{"reference", "video_root", "lm_reader", "confirm_embedder", "videos", "attack.bag_k", "attack.roles", "videos.captioner", "videos.vlm_reader", "videos.vlm_size", "videos.asr"}
)

// extendsConfig reports whether the configuration want only adds to have
// (both as config.json bytes); when it does not, blocking lists the fields
// that change what is stored.
func extendsConfig(have, want []byte) (ok bool, blocking []string) {
	var h, w map[string]any
	dec := func(b []byte, v *map[string]any) error {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		return d.Decode(v)
	}
	if dec(have, &h) != nil || dec(want, &w) != nil {
		return false, []string{"config.json"}
	}
	// A run directory written before runs recorded their benchmarks' items
	// resumes as it always did, with the same items; it is not extended.
	if _, ok := h["benchmark_items"]; !ok && sameJSON(h["items"], w["items"]) && sameJSON(h["benchmarks"], w["benchmarks"]) {
		if wv, ok := w["benchmark_items"]; ok {
			h["benchmark_items"] = wv
		}
	}
	// Before runs recorded their attackers' versions, every attacker was
	// at version 1.
	if _, ok := h["attacker_versions"]; !ok {
		if wv, ok := w["attacker_versions"]; ok {
			h["attacker_versions"] = wv
		}
	}
	blocking = extendsObject("", h, w, blocking)
	sort.Strings(blocking)
	return len(blocking) == 0, blocking
}

func extendsObject(prefix string, h, w map[string]any, blocking []string) []string {
	for k, hv := range h {
		path := prefix + k
		wv, present := w[k]
		switch {
		case !present:
			blocking = append(blocking, path)
		case path == "benchmark_items" || path == "attacker_versions":
			hm, _ := hv.(map[string]any)
			wm, _ := wv.(map[string]any)
			for b, d := range hm {
				if wm[b] != d {
					blocking = append(blocking, path+"."+b)
				}
			}
		case slices.Contains(growableLists, path):
			hl, _ := hv.([]any)
			wl, _ := wv.([]any)
			for _, x := range hl {
				if !slices.ContainsFunc(wl, func(y any) bool { return sameJSON(x, y) }) {
					blocking = append(blocking, path)
					break
				}
			}
		case slices.Contains(settable, path) && (hv == nil || hv == ""):
		case slices.Contains(replaceable, path):
		default:
			ho, hok := hv.(map[string]any)
			wo, wok := wv.(map[string]any)
			if hok && wok {
				blocking = extendsObject(path+".", ho, wo, blocking)
			} else if !sameJSON(hv, wv) {
				blocking = append(blocking, path)
			}
		}
	}
	for k := range w {
		if _, ok := h[k]; !ok && !slices.Contains(settable, prefix+k) {
			blocking = append(blocking, prefix+k)
		}
	}
	return blocking
}

func sameJSON(x, y any) bool {
	a, err1 := json.Marshal(x)
	b, err2 := json.Marshal(y)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// extendDir makes cfg the configuration of the run in dir when cfg extends
// the stored one. It is called with the directory locked, after rundir.Claim
// refused cfg with mismatch, whose Fields it narrows to the fields that
// block an extension when there is none.
func extendDir(dir string, cfg *rundir.Config, mismatch *rundir.ConfigMismatchError) (bool, error) {
	have, err := os.ReadFile(filepath.Join(dir, rundir.ConfigFile))
	if err != nil {
		return false, fmt.Errorf("read run config: %w", err)
	}
	want, err := rundir.EncodeConfig(cfg)
	if err != nil {
		return false, err
	}
	ok, blocking := extendsConfig(have, want)
	if !ok {
		mismatch.Fields = blocking
		return false, nil
	}
	return true, atomicfile.Write(filepath.Join(dir, rundir.ConfigFile), func(w io.Writer) error { _, err := w.Write(want); return err })
}
