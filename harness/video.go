package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// ErrOutsideRoot is the reason an item's video is refused when its path
// leaves the video root: "..", an absolute path elsewhere, or a symbolic
// link that resolves outside.
var ErrOutsideRoot = errors.New("video path leaves the video root")

// videoExtensions are tried, in this order, after an item's bare video name
// when no video_path is given: benchmarks name a video by its id
// ("4010069381") and ship it as id.mp4 or id.webm (Video-MME: some as
// id.MP4, which lmms-eval's videomme_doc_to_visual tries too).
var videoExtensions = []string{".mp4", ".webm", ".mkv", ".mov", ".avi", ".m4v", ".ts", ".MP4"}

// ResolveVideo returns the file of it's video under root: video_path when
// set, else video (as is, then with each common extension). The path may be
// relative to root or absolute inside it. A path that leaves root, itself or
// through a symbolic link, is an error wrapping ErrOutsideRoot; a file that
// is not there, one wrapping fs.ErrNotExist. Paths use forward slashes, as
// in the annotation files.
func ResolveVideo(root string, it *Item) (string, error) {
	if root == "" {
		return "", errors.New("no video root given")
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("video root: %w", err)
	}
	name := it.VideoPath
	candidates := []string{name}
	if name == "" {
		name = it.Video
		candidates = []string{name}
		if filepath.Ext(name) == "" || !slices.Contains(videoExtensions, filepath.Ext(name)) {
			for _, ext := range videoExtensions {
				candidates = append(candidates, name+ext)
			}
		}
	}
	var first error
	for _, c := range candidates {
		p, err := inside(root, realRoot, c)
		if err == nil {
			return p, nil
		}
		if errors.Is(err, ErrOutsideRoot) {
			return "", err
		}
		if first == nil {
			first = err
		}
	}
	return "", first
}

// inside resolves one candidate path under root and checks that the file it
// names, symbolic links followed, is inside realRoot.
func inside(root, realRoot, p string) (string, error) {
	local := filepath.FromSlash(p)
	full := filepath.Join(root, local)
	switch {
	case filepath.IsAbs(local):
		full = filepath.Clean(local)
		if !under(root, full) && !under(realRoot, full) {
			return "", fmt.Errorf("%q: %w %s", p, ErrOutsideRoot, root)
		}
	case !filepath.IsLocal(local):
		return "", fmt.Errorf("%q: %w %s", p, ErrOutsideRoot, root)
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return "", fmt.Errorf("%q under %s: %w", p, root, err)
	}
	if !under(realRoot, real) {
		return "", fmt.Errorf("%q resolves to %s: %w %s", p, real, ErrOutsideRoot, root)
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%q under %s: %w", p, root, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%q under %s is not a regular file", p, root)
	}
	return full, nil
}

// under reports whether path lies inside dir, by their names alone.
func under(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}

// HashVideo returns the SHA-256 of a video file's bytes, hex (SHA-NI hashes
// faster than the disk reads on current CPUs, so a weaker hash gains
// nothing). It is the video's identity by content (Item.Content): the
// feature stage keys its cache by it, and select computes it alike for its
// per-video cap without the decoder.
func HashVideo(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
