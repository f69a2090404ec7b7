package gpu

import "fmt"

// InitCUDA loads the CUDA driver library at path (DefaultCUDALibrary, or a
// full path) and calls cuInit(0), returning the driver's refusal as an
// error that names it (cuInit: CUDA_ERROR_NO_DEVICE (CUresult 100)).
//
// It is the check to make before handing the driver to a library that
// does not survive cuInit failing: FFmpeg's hwcontext_cuda then formats
// the strings cuGetErrorName and cuGetErrorString left in uninitialised
// pointers, and the toolkit's stub driver (libcuda.so from the CUDA
// toolkit's stubs folder, which answers every call with
// CUDA_ERROR_STUB_LIBRARY and writes nothing) makes it crash the process.
// cuInit may be called any number of times; the library stays loaded, as
// in Probe.
func InitCUDA(path string) error {
	lib, err := dlopen(path)
	if err != nil {
		return fmt.Errorf("cannot load %s: %w", path, err)
	}
	var init func(uint32) int32
	var errName func(int32, **byte) int32
	if err := bindAll(lib, []binding{{&init, "cuInit"}, {&errName, "cuGetErrorName"}}); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return cuError(errName, "cuInit", init(0))
}
