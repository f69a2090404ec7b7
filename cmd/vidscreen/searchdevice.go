package main

import (
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/place"
)

// defaultOffloadMinWork is --offload-min-work's default: Offload's own.
const defaultOffloadMinWork = kernels.DefaultMinWork

// offloadFlagHelp is the --offload-min-work flag's help, shared by the
// commands whose many searches of every size go to a GPU through
// kernels.Offload.
const offloadFlagHelp = "on a GPU, run the searches of `N` multiply-adds (rows x rows x columns) or more there and the smaller ones on the CPU, which answers them before a device is set up; the default, 2^28 (kernels.DefaultMinWork), is an estimate that the device check's offload row measures; 1 sends every search; ignored on the CPU"

// checkOffloadMinWork refuses a cut under one multiply-add (bad usage).
func checkOffloadMinWork(n int64) error {
	if err := place.CheckMinWork(n); err != nil {
		return &usageError{err.Error()}
	}
	return nil
}

// placeSearches places a command's searches on the first GPU --device
// names (place.Searches); a bad flag value is bad usage.
func placeSearches(device, precision string, minWork int64, env *environment) (off *kernels.Offload, name string, said []byte, done func(), err error) {
	off, name, said, done, err = place.Searches(device, precision, minWork, placeEnv(env))
	if err != nil {
		return nil, "", nil, nil, &usageError{err.Error()}
	}
	return off, name, said, done, nil
}
