package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness/rundir"
)

// Inputs is where an audit's inputs were on the machine that ran it: the
// absolute paths of its item files, in the order read, and its video root.
// config.json keeps the item files only by name and SHA-256, so that it is
// the same bytes on every machine; run.json, which differs between runs by
// design, keeps the paths, so that vidscreen select can find the items and
// videos again without being told (issue 33.1.5). Items is empty when the
// items came from the embedded default or a pipe.
type Inputs struct {
	Items  []string `json:"items,omitempty"`
	Videos string   `json:"videos,omitempty"`
}

// runInputs is Inputs of opt: its item files and video root made absolute
// (a merge records the item paths its shards' common Spec names).
func runInputs(opt *Options) *Inputs {
	in := &Inputs{}
	if opt.FS == nil {
		for _, p := range opt.Items {
			if p == "" || p == "-" {
				continue
			}
			if abs, err := filepath.Abs(p); err == nil {
				in.Items = append(in.Items, abs)
			}
		}
	}
	if opt.VideoRoot != "" {
		if abs, err := filepath.Abs(opt.VideoRoot); err == nil {
			in.Videos = abs
		}
	}
	if len(in.Items) == 0 && in.Videos == "" {
		return nil
	}
	return in
}

// ReadInputs reads the inputs a finished run recorded in its run.json. A
// run.json without them (an older vidscreen, items from a pipe) gives a
// nil *Inputs and no error; one that cannot be read or parsed is an error
// naming the file.
func ReadInputs(runDir string) (*Inputs, error) {
	path := filepath.Join(runDir, rundir.RunJSON)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var info struct {
		Inputs *Inputs `json:"inputs"`
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return info.Inputs, nil
}
