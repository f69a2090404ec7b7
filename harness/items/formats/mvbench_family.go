package formats

import (
	"os"
	"path/filepath"
	"strings"
)

// MVBench and TVBench write the same records under eight of the same file
// names (TVBench's README: "TVBench follows the same format as MVBench";
// its vqa_dataset.py is MVBench's loader), so a record cannot say which
// benchmark a shared task's file, such as action_count.json, belongs to.
// Their layouts on disk can: the folder the user downloaded into
// (OpenGVLab/MVBench, FunAILab/TVBench; the Hugging Face cache's
// datasets--OpenGVLab--MVBench), the other task files beside it in json/
// (twelve of MVBench's twenty names are MVBench's alone, two of TVBench's
// ten TVBench's alone), and the video/ folder beside json/: TVBench keeps
// each task's videos in video/<task>/ (infer.ipynb's data_list), MVBench
// in its sources' folders (video/star/, video/clevrer/..., the evaluation
// notebook's data_list).

// A family says which of the two benchmarks a task file's layout shows.
type family int

const (
	familyUnknown family = iota
	familyMVBench
	familyTVBench
)

// taskFamily reads the layout around the task file at path, nearest
// evidence first: the folder names on its path (the nearest naming one
// benchmark decides), then its sibling task files, then the video/ folder
// beside its json/ folder. It only lists folders, so detection stays cheap.
func taskFamily(path string) family {
	if f := familyByFolder(path); f != familyUnknown {
		return f
	}
	dir := filepath.Dir(path)
	if f := familyBySiblings(dir); f != familyUnknown {
		return f
	}
	return familyByVideos(filepath.Join(filepath.Dir(dir), "video"), strings.TrimSuffix(filepath.Base(path), ".json"))
}

// familyByFolder reads the benchmark's name off the folders above path,
// the nearest first.
func familyByFolder(path string) family {
	dir := filepath.Dir(filepath.Clean(path))
	for {
		name := strings.ToLower(filepath.Base(dir))
		tv, mv := strings.Contains(name, "tvbench"), strings.Contains(name, "mvbench")
		switch {
		case tv && !mv:
			return familyTVBench
		case mv && !tv:
			return familyMVBench
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return familyUnknown
		}
		dir = parent
	}
}

// familyBySiblings looks for the task files only one benchmark has in dir.
// Both kinds there (a folder of mixed copies) say nothing.
func familyBySiblings(dir string) family {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return familyUnknown
	}
	var mv, tv bool
	for _, e := range entries {
		task, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		_, inMV := mvbenchTasks[task]
		inTV := tvbenchTasks[task]
		mv = mv || inMV && !inTV
		tv = tv || inTV && !inMV
	}
	return oneOf(mv, tv)
}

// familyByVideos looks in the video/ folder beside json/ for TVBench's
// video/<task>/ or for the first folder of MVBench's path for the task
// (video/star/ for action_sequence).
func familyByVideos(videos, task string) family {
	isDir := func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && st.IsDir()
	}
	tv := isDir(filepath.Join(videos, task))
	mv := false
	if info, ok := mvbenchTasks[task]; ok {
		first, _, _ := strings.Cut(info.folder, "/")
		mv = isDir(filepath.Join(videos, first))
	}
	return oneOf(mv, tv)
}

func oneOf(mv, tv bool) family {
	switch {
	case mv && !tv:
		return familyMVBench
	case tv && !mv:
		return familyTVBench
	}
	return familyUnknown
}
