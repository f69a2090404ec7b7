//go:build cuda

package cudactx

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <cuda.h>

static CUresult vidscreenInitResult = CUDA_SUCCESS;

// cuInit stands in for the driver's in this binary: gorgonia.org/cu calls
// cuInit from its package initialiser and exits the process when it fails,
// so a machine with a driver but no usable GPU could not even start the
// cuda build. This definition, in the executable, is the one the linker
// binds cu's call to; it calls the driver's own (the next cuInit in the
// loader's search order), keeps its result for Retain to report, and lets
// the program start. Every later driver call then fails with
// CUDA_ERROR_NOT_INITIALIZED, which Retain reports and its callers turn
// into a fallback to the CPU.
CUresult CUDAAPI cuInit(unsigned int flags) {
	CUresult (*real)(unsigned int) = (CUresult (*)(unsigned int))dlsym(RTLD_NEXT, "cuInit");
	vidscreenInitResult = real ? real(flags) : CUDA_ERROR_NOT_FOUND;
	return CUDA_SUCCESS;
}

static CUresult vidscreenCuInitResult(void) { return vidscreenInitResult; }

static const char *vidscreenErrorName(CUresult r) {
	const char *s = 0;
	if (cuGetErrorName(r, &s) != CUDA_SUCCESS || s == 0) {
		return 0;
	}
	return s;
}
*/
import "C"

import "fmt"

// InitError is the driver's answer to cuInit at start, nil when it
// succeeded: CUDA_ERROR_NO_DEVICE on a machine with a driver and no GPU,
// CUDA_ERROR_STUB_LIBRARY where only the toolkit's stub is found.
func InitError() error {
	r := C.vidscreenCuInitResult()
	if r == C.CUDA_SUCCESS {
		return nil
	}
	name := "unknown"
	if p := C.vidscreenErrorName(r); p != nil {
		name = C.GoString(p)
	} else if n, ok := initErrorNames[int(r)]; ok {
		// A stub library cannot name its own errors.
		name = n
	}
	return fmt.Errorf("cuInit: %s (CUresult %d)", name, int(r))
}

// initErrorNames are the answers cuInit gives where no GPU can be used
// (cuda.h).
var initErrorNames = map[int]string{
	3:   "CUDA_ERROR_NOT_INITIALIZED",
	34:  "CUDA_ERROR_STUB_LIBRARY",
	35:  "CUDA_ERROR_INSUFFICIENT_DRIVER",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	500: "CUDA_ERROR_NOT_FOUND",
	999: "CUDA_ERROR_UNKNOWN",
}
