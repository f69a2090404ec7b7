package selection

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// inputsFromRun fills what spec leaves out of the audit's inputs from the
// paths the run recorded in run.json (issue 33.1.5): the item files, when
// the exports or a video root need their video_path, start and end (the
// screen carries none of them), and, with --models on a run that has video
// levels, the video root, so that the model readers re-run (not with
// --carry-readers). Each item file
// taken must still hold the bytes config.json hashed; one that is gone or
// changed is refused, naming it and saying to pass --items. What it took
// is said on stderr, one line each.
func inputsFromRun(spec *Spec, cfg rundir.Config, env run.Env) error {
	wantVideos := spec.Videos == "" && spec.Models != "" && !spec.CarryReaders && cfg.VideoRoot != "" && cfg.Videos != nil
	wantItems := len(spec.Items) == 0 && (spec.ExportLMMSEval != "" || spec.ExportVLMEvalKit != "" || spec.Videos != "" || wantVideos)
	if !wantVideos && !wantItems {
		return nil
	}
	in, err := run.ReadInputs(spec.Run)
	if err != nil {
		return fmt.Errorf("%w: %v", harness.ErrBadInput, err)
	}
	if wantItems {
		items, err := recordedItems(spec.Run, in, cfg)
		if err != nil {
			return err
		}
		spec.Items = items
		fmt.Fprintf(env.Stderr, "vidscreen select: --items from the run: %s\n", strings.Join(items, ", "))
	}
	if wantVideos {
		root := cfg.VideoRoot
		if in != nil && in.Videos != "" {
			root = in.Videos
		}
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			return fmt.Errorf("%w: the run's video root %s is not a directory here: pass --videos ROOT (the audit's video root), or --carry-readers to keep the model readers' verdicts", harness.ErrBadInput, root)
		}
		spec.Videos = root
		fmt.Fprintf(env.Stderr, "vidscreen select: --videos from the run: %s\n", root)
	}
	return nil
}

// recordedItems returns the item files run.json of runDir records, each
// checked against config.json's inputs by SHA-256.
func recordedItems(runDir string, in *run.Inputs, cfg rundir.Config) ([]string, error) {
	if in == nil || len(in.Items) == 0 {
		return nil, fmt.Errorf("%w: %s records no item file paths (an older vidscreen, or items from a pipe): pass --items FILE, the audit's item files (the run read %s)", harness.ErrBadInput, filepath.Join(runDir, rundir.RunJSON), itemNames(cfg))
	}
	for _, p := range in.Items {
		sum, err := fileSHA256(p)
		if err != nil {
			return nil, fmt.Errorf("%w: the run's item file %s (%s inputs.items) cannot be read here: %v; pass --items FILE, the audit's item files (the run read %s)", harness.ErrBadInput, p, rundir.RunJSON, err, itemNames(cfg))
		}
		found := false
		for _, c := range cfg.Items {
			found = found || c.SHA256 == sum
		}
		if !found {
			return nil, fmt.Errorf("%w: the run's item file %s (%s inputs.items) has changed since the audit: its SHA-256 is none of config.json's items; pass --items FILE with the files the run audited (the run read %s)", harness.ErrBadInput, p, rundir.RunJSON, itemNames(cfg))
		}
	}
	return in.Items, nil
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
