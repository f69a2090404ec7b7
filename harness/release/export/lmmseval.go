package export

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// utilsPy is the release-independent part of the task's utils.py.
//
//go:embed lmmseval_utils.py
var utilsPy string

// UtilsFile, ReadmeFile: the task directory's Python functions and its
// instructions.
const (
	UtilsFile  = "utils.py"
	ReadmeFile = "README.md"
)

// LMMSEval writes r into dir (created if needed) as an lmms-eval task
// directory: DatasetFile, utils.py, TemplateFile, one YAML file per task
// (<prefix>_video, _1fps, _64frame, _32frame, _8frame, _blind, where
// prefix is TaskPrefix(r.Name)), the group <prefix>.yaml and README.md.
// `lmms_eval --include_path dir --tasks <prefix>` then runs it with no
// dataset hub.
func LMMSEval(ctx context.Context, r *release.Release, dir string) error {
	d, err := NewLMMSEval(r, dir)
	if err != nil {
		return err
	}
	return d.Write(ctx)
}

// A TaskDir is an lmms-eval export made and checked, not yet written: a
// caller can refuse the export before it writes anything else.
type TaskDir struct {
	dir   string
	files map[string]string
}

// NewLMMSEval makes r's task directory files. A dir holding YAML files
// that this export does not write (another release's tasks) is refused:
// lmms-eval would index them too, and they would read this release's
// documents.
func NewLMMSEval(r *release.Release, dir string) (*TaskDir, error) {
	prefix := TaskPrefix(r.Name)
	if err := unnamedVideos(r); err != nil {
		return nil, fmt.Errorf("lmms-eval export: %w", err)
	}
	docs, err := documents(r)
	if err != nil {
		return nil, fmt.Errorf("lmms-eval export: %w", err)
	}
	data, err := writeDocuments(docs)
	if err != nil {
		return nil, fmt.Errorf("lmms-eval export: %w", err)
	}
	ms := metrics(groups(r.Items))
	files := map[string]string{
		DatasetFile:      string(data),
		UtilsFile:        utilsPy + "\n" + utilsTail(r.Name, ms),
		TemplateFile:     templateYAML(r.Name, ms),
		prefix + ".yaml": groupYAML(r.Name, prefix),
		ReadmeFile:       readme(r, prefix, ms),
	}
	for _, t := range tasks {
		files[prefix+"_"+t.Suffix+".yaml"] = taskYAML(r.Name, prefix, t)
	}
	if err := foreignTasks(dir, files); err != nil {
		return nil, err
	}
	return &TaskDir{dir: dir, files: files}, nil
}

// Write writes the files, each whole or not at all, in name order.
func (d *TaskDir) Write(ctx context.Context) error {
	if err := os.MkdirAll(d.dir, 0o755); err != nil {
		return fmt.Errorf("lmms-eval export: %w", err)
	}
	names := make([]string, 0, len(d.files))
	for n := range d.files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := atomicfile.WriteBytes(filepath.Join(d.dir, n), []byte(d.files[n])); err != nil {
			return fmt.Errorf("lmms-eval export: %w", err)
		}
	}
	return nil
}

// ErrForeignTasks is the refusal of a directory holding another export's
// task files.
var ErrForeignTasks = errors.New("holds task files this release does not write")

// foreignTasks refuses a dir that holds .yaml files this export does not
// write.
func foreignTasks(dir string, files map[string]string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("lmms-eval export: %w", err)
	}
	var other []string
	for _, e := range entries {
		if _, ours := files[e.Name()]; !ours && strings.HasSuffix(e.Name(), ".yaml") {
			other = append(other, e.Name())
		}
	}
	if len(other) > 0 {
		return fmt.Errorf("lmms-eval export: %s %w (%s): lmms-eval would index them too; remove them or export to another directory", dir, ErrForeignTasks, strings.Join(other, ", "))
	}
	return nil
}
