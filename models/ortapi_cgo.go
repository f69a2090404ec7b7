package models

// This file is the project's only cgo over ONNX Runtime's C API. It exists
// because onnxruntime_go makes memory infos for the CPU only, and the GPU
// frame path must hand the CUDA provider a tensor already in device memory
// (an OrtValue over a device pointer, under a "Cuda" OrtMemoryInfo, bound
// through an OrtIoBinding). The functions are reached by their slot in the
// OrtApi function table rather than through the header, which lives in
// onnxruntime_go's module directory where cgo cannot include it from here;
// ortapi_slots_test.go compiles a program against that header and checks
// every slot and constant below. The table only ever grows at its end, so
// a slot stays valid in every later library.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

// The OrtApi slots used here (offsetof(OrtApi, Name) / sizeof(void *)).
enum {
	vs_GetErrorCode = 1,
	vs_GetErrorMessage = 2,
	vs_CreateEnv = 3,
	vs_CreateSession = 7,
	vs_CreateSessionOptions = 10,
	vs_EnableMemPattern = 16,
	vs_DisableMemPattern = 17,
	vs_EnableCpuMemArena = 18,
	vs_SetSessionGraphOptimizationLevel = 23,
	vs_SetIntraOpNumThreads = 24,
	vs_SetInterOpNumThreads = 25,
	vs_CreateRunOptions = 39,
	vs_RunOptionsSetTerminate = 46,
	vs_CreateTensorWithDataAsOrtValue = 49,
	vs_CreateMemoryInfo = 68,
	vs_ReleaseEnv = 92,
	vs_ReleaseStatus = 93,
	vs_ReleaseMemoryInfo = 94,
	vs_ReleaseSession = 95,
	vs_ReleaseValue = 96,
	vs_ReleaseRunOptions = 97,
	vs_ReleaseSessionOptions = 100,
	vs_RunWithBinding = 133,
	vs_CreateIoBinding = 134,
	vs_ReleaseIoBinding = 135,
	vs_BindInput = 136,
	vs_BindOutput = 137,
	vs_ClearBoundInputs = 141,
	vs_ClearBoundOutputs = 142,
	vs_SynchronizeBoundInputs = 202,
	vs_SynchronizeBoundOutputs = 203,
	vs_SessionOptionsAppendExecutionProvider_CUDA_V2 = 204,
	vs_CreateCUDAProviderOptions = 205,
	vs_UpdateCUDAProviderOptions = 206,
	vs_ReleaseCUDAProviderOptions = 208,
};

// The enum values used here, from the same header.
enum {
	vs_ORT_LOGGING_LEVEL_ERROR = 3,
	vs_ORT_ENABLE_ALL = 99,
	vs_OrtDeviceAllocator = 0,
	vs_OrtMemTypeDefault = 0,
	vs_ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1,
};

// vs_API_VERSION is the OrtApi version asked for: 1.11 added the newest
// slots used here (the CUDA provider options V2).
enum { vs_API_VERSION = 11 };

typedef void *vs_status;
typedef struct {
	const void *(*GetApi)(uint32_t version);
	const char *(*GetVersionString)(void);
} vs_api_base;

static void *vs_fn(const void *api, int slot) { return ((void *const *)api)[slot]; }

// vs_load opens the library (already loaded by onnxruntime_go, so dlopen
// returns the same handle) and asks for the function table.
static const char *vs_load(const char *path, void **handle, const void **api, const char **version) {
	*handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	if (!*handle) return dlerror();
	const vs_api_base *(*get_base)(void) = (const vs_api_base *(*)(void))dlsym(*handle, "OrtGetApiBase");
	if (!get_base) return "OrtGetApiBase not found";
	const vs_api_base *base = get_base();
	if (!base) return "OrtGetApiBase returned NULL";
	*version = base->GetVersionString();
	*api = base->GetApi(vs_API_VERSION);
	if (!*api) return "GetApi refused the API version";
	return NULL;
}

// vs_close answers dlerror's message, read in the same call (it is
// per thread, and goroutines move between threads), or NULL.
static const char *vs_close(void *handle) { return dlclose(handle) ? dlerror() : NULL; }

static int vs_error_code(const void *api, vs_status st) {
	return ((int (*)(vs_status))vs_fn(api, vs_GetErrorCode))(st);
}
static const char *vs_error_message(const void *api, vs_status st) {
	return ((const char *(*)(vs_status))vs_fn(api, vs_GetErrorMessage))(st);
}

// vs_release calls one of the table's Release functions.
static void vs_release(const void *api, int slot, void *p) {
	if (p) ((void (*)(void *))vs_fn(api, slot))(p);
}

// vs_call1 calls a function of one pointer argument that returns a status.
static vs_status vs_call1(const void *api, int slot, void *p) {
	return ((vs_status (*)(void *))vs_fn(api, slot))(p);
}

// vs_call_int calls a function of a pointer and an int.
static vs_status vs_call_int(const void *api, int slot, void *p, int v) {
	return ((vs_status (*)(void *, int))vs_fn(api, slot))(p, v);
}

static vs_status vs_create_env(const void *api, void **out) {
	return ((vs_status (*)(int, const char *, void **))vs_fn(api, vs_CreateEnv))(vs_ORT_LOGGING_LEVEL_ERROR, "vidscreen-bound", out);
}

static vs_status vs_create_session(const void *api, void *env, const char *path, void *opts, void **out) {
	return ((vs_status (*)(void *, const char *, void *, void **))vs_fn(api, vs_CreateSession))(env, path, opts, out);
}

static vs_status vs_update_cuda_options(const void *api, void *opts, const char **keys, const char **values, size_t n) {
	return ((vs_status (*)(void *, const char **, const char **, size_t))vs_fn(api, vs_UpdateCUDAProviderOptions))(opts, keys, values, n);
}

static vs_status vs_append_cuda(const void *api, void *so, void *cuda) {
	return ((vs_status (*)(void *, void *))vs_fn(api, vs_SessionOptionsAppendExecutionProvider_CUDA_V2))(so, cuda);
}

static vs_status vs_create_memory_info(const void *api, const char *name, int id, void **out) {
	return ((vs_status (*)(const char *, int, int, int, void **))vs_fn(api, vs_CreateMemoryInfo))(name, vs_OrtDeviceAllocator, id, vs_OrtMemTypeDefault, out);
}

// vs_create_tensor wraps data (a host or device address, as an integer so
// Go never holds a device address as a pointer) without copying it.
static vs_status vs_create_tensor(const void *api, void *info, uintptr_t data, size_t bytes, const int64_t *shape, size_t rank, void **out) {
	return ((vs_status (*)(void *, void *, size_t, const int64_t *, size_t, int, void **))vs_fn(api, vs_CreateTensorWithDataAsOrtValue))(
		info, (void *)data, bytes, shape, rank, vs_ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, out);
}

static vs_status vs_create_binding(const void *api, void *sess, void **out) {
	return ((vs_status (*)(void *, void **))vs_fn(api, vs_CreateIoBinding))(sess, out);
}

static vs_status vs_bind(const void *api, int slot, void *binding, const char *name, void *value) {
	return ((vs_status (*)(void *, const char *, void *))vs_fn(api, slot))(binding, name, value);
}

static void vs_clear(const void *api, int slot, void *binding) {
	((void (*)(void *))vs_fn(api, slot))(binding);
}

static vs_status vs_run_binding(const void *api, void *sess, void *run_opts, void *binding) {
	return ((vs_status (*)(void *, void *, void *))vs_fn(api, vs_RunWithBinding))(sess, run_opts, binding);
}

static vs_status vs_create_out(const void *api, int slot, void **out) {
	return ((vs_status (*)(void **))vs_fn(api, slot))(out);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// ortAPI is the OrtApi function table of one loaded libonnxruntime.so.
type ortAPI struct {
	handle  unsafe.Pointer
	api     unsafe.Pointer
	version string
}

// An ORTError is a failed OrtStatus: its code (OrtErrorCode) and message.
type ORTError struct {
	Code int
	Msg  string
}

func (e *ORTError) Error() string { return fmt.Sprintf("%s (ONNX Runtime error %d)", e.Msg, e.Code) }

// openORTAPI reaches the function table of the library at path.
func openORTAPI(path string) (*ortAPI, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var a ortAPI
	var version *C.char
	if msg := C.vs_load(cpath, &a.handle, &a.api, &version); msg != nil {
		err := fmt.Errorf("ONNX Runtime C API from %s (version %d): %s", path, C.vs_API_VERSION, C.GoString(msg))
		if a.handle != nil {
			C.vs_close(a.handle)
		}
		return nil, err
	}
	if version != nil {
		a.version = C.GoString(version)
	}
	return &a, nil
}

// close drops this reference to the library (onnxruntime_go keeps its own).
func (a *ortAPI) close() error {
	if a.handle == nil {
		return nil
	}
	msg := C.vs_close(a.handle)
	a.handle, a.api = nil, nil
	if msg != nil {
		return fmt.Errorf("dlclose ONNX Runtime: %s", C.GoString(msg))
	}
	return nil
}

// check turns a status into an error (nil for success) and releases it.
func (a *ortAPI) check(st C.vs_status, what string) error {
	if st == nil {
		return nil
	}
	e := &ORTError{Code: int(C.vs_error_code(a.api, st)), Msg: C.GoString(C.vs_error_message(a.api, st))}
	C.vs_release(a.api, C.vs_ReleaseStatus, unsafe.Pointer(st))
	return fmt.Errorf("%s: %w", what, e)
}

func (a *ortAPI) release(slot C.int, p unsafe.Pointer) { C.vs_release(a.api, slot, p) }

func (a *ortAPI) newEnv() (unsafe.Pointer, error) {
	var env unsafe.Pointer
	err := a.check(C.vs_create_env(a.api, &env), "CreateEnv")
	return env, err
}

func (a *ortAPI) releaseEnv(p unsafe.Pointer) { a.release(C.vs_ReleaseEnv, p) }

// sessionConfig is what a bound session's options set: the same settings
// Runtime.sessionOptions gives onnxruntime_go's sessions, so both compute
// the same graph the same way.
type sessionConfig struct {
	threads    int
	memPattern bool
	cuda       map[string]string // CUDA provider options; nil for the CPU
}

// newSessionOptions builds the options of cfg; on error nothing is left.
func (a *ortAPI) newSessionOptions(cfg sessionConfig) (_ unsafe.Pointer, err error) {
	var so unsafe.Pointer
	if err := a.check(C.vs_create_out(a.api, C.vs_CreateSessionOptions, &so), "CreateSessionOptions"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			a.release(C.vs_ReleaseSessionOptions, so)
		}
	}()
	pattern := C.int(C.vs_DisableMemPattern)
	if cfg.memPattern {
		pattern = C.vs_EnableMemPattern
	}
	steps := []struct {
		what string
		call func() C.vs_status
	}{
		{"SetIntraOpNumThreads", func() C.vs_status { return C.vs_call_int(a.api, C.vs_SetIntraOpNumThreads, so, C.int(cfg.threads)) }},
		{"SetInterOpNumThreads", func() C.vs_status { return C.vs_call_int(a.api, C.vs_SetInterOpNumThreads, so, 1) }},
		{"SetSessionGraphOptimizationLevel", func() C.vs_status {
			return C.vs_call_int(a.api, C.vs_SetSessionGraphOptimizationLevel, so, C.vs_ORT_ENABLE_ALL)
		}},
		{"EnableCpuMemArena", func() C.vs_status { return C.vs_call1(a.api, C.vs_EnableCpuMemArena, so) }},
		{"memory pattern", func() C.vs_status { return C.vs_call1(a.api, pattern, so) }},
	}
	for _, s := range steps {
		if err := a.check(s.call(), s.what); err != nil {
			return nil, err
		}
	}
	if cfg.cuda != nil {
		if err := a.appendCUDA(so, cfg.cuda); err != nil {
			return nil, err
		}
	}
	return so, nil
}

// appendCUDA adds the CUDA provider with opts (device_id, ...) to so.
func (a *ortAPI) appendCUDA(so unsafe.Pointer, opts map[string]string) error {
	var cuda unsafe.Pointer
	if err := a.check(C.vs_create_out(a.api, C.vs_CreateCUDAProviderOptions, &cuda), "CreateCUDAProviderOptions"); err != nil {
		return err
	}
	defer a.release(C.vs_ReleaseCUDAProviderOptions, cuda)
	n := len(opts)
	// The arrays are C memory: they hold C strings, and cgo forbids
	// passing Go memory that holds pointers.
	keys := unsafe.Slice((**C.char)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(uintptr(0))))), n)
	values := unsafe.Slice((**C.char)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(uintptr(0))))), n)
	defer func() {
		for i := range n {
			C.free(unsafe.Pointer(keys[i]))
			C.free(unsafe.Pointer(values[i]))
		}
		C.free(unsafe.Pointer(unsafe.SliceData(keys)))
		C.free(unsafe.Pointer(unsafe.SliceData(values)))
	}()
	i := 0
	for k, v := range opts {
		keys[i], values[i] = C.CString(k), C.CString(v)
		i++
	}
	if err := a.check(C.vs_update_cuda_options(a.api, cuda, unsafe.SliceData(keys), unsafe.SliceData(values), C.size_t(n)), "UpdateCUDAProviderOptions"); err != nil {
		return err
	}
	return a.check(C.vs_append_cuda(a.api, so, cuda), "SessionOptionsAppendExecutionProvider_CUDA_V2")
}

func (a *ortAPI) releaseSessionOptions(p unsafe.Pointer) { a.release(C.vs_ReleaseSessionOptions, p) }

func (a *ortAPI) newSession(env unsafe.Pointer, path string, so unsafe.Pointer) (unsafe.Pointer, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var s unsafe.Pointer
	err := a.check(C.vs_create_session(a.api, env, cpath, so, &s), "CreateSession "+path)
	return s, err
}

func (a *ortAPI) releaseSession(p unsafe.Pointer) { a.release(C.vs_ReleaseSession, p) }

// newMemoryInfo describes memory of ONNX Runtime's device name ("Cpu",
// "Cuda") number id, from the device allocator, of the default kind.
func (a *ortAPI) newMemoryInfo(name string, id int) (unsafe.Pointer, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var info unsafe.Pointer
	err := a.check(C.vs_create_memory_info(a.api, cname, C.int(id), &info), fmt.Sprintf("CreateMemoryInfo %s:%d", name, id))
	return info, err
}

func (a *ortAPI) releaseMemoryInfo(p unsafe.Pointer) { a.release(C.vs_ReleaseMemoryInfo, p) }

// newFloatTensor wraps bytes of float32 at addr, of shape, as an OrtValue
// in the memory info describes; ONNX Runtime neither copies nor frees it.
// A Go address must stay pinned until the value is released.
func (a *ortAPI) newFloatTensor(info unsafe.Pointer, addr uintptr, bytes int64, shape []int64) (unsafe.Pointer, error) {
	// The shape is copied by ONNX Runtime; C memory keeps cgo's pointer
	// rules trivially satisfied.
	cshape := unsafe.Slice((*C.int64_t)(C.malloc(C.size_t(8*max(len(shape), 1)))), len(shape))
	defer C.free(unsafe.Pointer(unsafe.SliceData(cshape)))
	for i, d := range shape {
		cshape[i] = C.int64_t(d)
	}
	var v unsafe.Pointer
	err := a.check(C.vs_create_tensor(a.api, info, C.uintptr_t(addr), C.size_t(bytes), unsafe.SliceData(cshape), C.size_t(len(shape)), &v), "CreateTensorWithDataAsOrtValue")
	return v, err
}

func (a *ortAPI) releaseValue(p unsafe.Pointer) { a.release(C.vs_ReleaseValue, p) }

func (a *ortAPI) newBinding(sess unsafe.Pointer) (unsafe.Pointer, error) {
	var b unsafe.Pointer
	err := a.check(C.vs_create_binding(a.api, sess, &b), "CreateIoBinding")
	return b, err
}

func (a *ortAPI) releaseBinding(p unsafe.Pointer) { a.release(C.vs_ReleaseIoBinding, p) }

func (a *ortAPI) bind(input bool, b unsafe.Pointer, name string, v unsafe.Pointer) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	slot, what := C.int(C.vs_BindOutput), "BindOutput "+name
	if input {
		slot, what = C.vs_BindInput, "BindInput "+name
	}
	return a.check(C.vs_bind(a.api, slot, b, cname, v), what)
}

// clearBinding forgets every bound input and output.
func (a *ortAPI) clearBinding(b unsafe.Pointer) {
	C.vs_clear(a.api, C.vs_ClearBoundInputs, b)
	C.vs_clear(a.api, C.vs_ClearBoundOutputs, b)
}

func (a *ortAPI) runBinding(sess, runOpts, b unsafe.Pointer) error {
	return a.check(C.vs_run_binding(a.api, sess, runOpts, b), "RunWithBinding")
}

// syncBinding waits for the bound inputs before a run (a provider's stream
// may differ from the one that wrote them) or the outputs after one.
func (a *ortAPI) syncBinding(b unsafe.Pointer, inputs bool) error {
	if inputs {
		return a.check(C.vs_call1(a.api, C.vs_SynchronizeBoundInputs, b), "SynchronizeBoundInputs")
	}
	return a.check(C.vs_call1(a.api, C.vs_SynchronizeBoundOutputs, b), "SynchronizeBoundOutputs")
}

func (a *ortAPI) newRunOptions() (unsafe.Pointer, error) {
	var ro unsafe.Pointer
	err := a.check(C.vs_create_out(a.api, C.vs_CreateRunOptions, &ro), "CreateRunOptions")
	return ro, err
}

// terminate asks the runs under ro to stop; it is safe from any goroutine.
func (a *ortAPI) terminate(ro unsafe.Pointer) error {
	return a.check(C.vs_call1(a.api, C.vs_RunOptionsSetTerminate, ro), "RunOptionsSetTerminate")
}

func (a *ortAPI) releaseRunOptions(p unsafe.Pointer) { a.release(C.vs_ReleaseRunOptions, p) }

// ortSlots lists the slots and constants above by their names in
// onnxruntime_c_api.h, for ortapi_slots_test.go.
func ortSlots() (slots, consts map[string]int) {
	slots = map[string]int{
		"GetErrorCode": C.vs_GetErrorCode, "GetErrorMessage": C.vs_GetErrorMessage, "CreateEnv": C.vs_CreateEnv,
		"CreateSession": C.vs_CreateSession, "CreateSessionOptions": C.vs_CreateSessionOptions,
		"EnableMemPattern": C.vs_EnableMemPattern, "DisableMemPattern": C.vs_DisableMemPattern,
		"EnableCpuMemArena":                C.vs_EnableCpuMemArena,
		"SetSessionGraphOptimizationLevel": C.vs_SetSessionGraphOptimizationLevel,
		"SetIntraOpNumThreads":             C.vs_SetIntraOpNumThreads, "SetInterOpNumThreads": C.vs_SetInterOpNumThreads,
		"CreateRunOptions": C.vs_CreateRunOptions, "RunOptionsSetTerminate": C.vs_RunOptionsSetTerminate,
		"CreateTensorWithDataAsOrtValue": C.vs_CreateTensorWithDataAsOrtValue, "CreateMemoryInfo": C.vs_CreateMemoryInfo,
		"ReleaseEnv": C.vs_ReleaseEnv, "ReleaseStatus": C.vs_ReleaseStatus, "ReleaseMemoryInfo": C.vs_ReleaseMemoryInfo,
		"ReleaseSession": C.vs_ReleaseSession, "ReleaseValue": C.vs_ReleaseValue, "ReleaseRunOptions": C.vs_ReleaseRunOptions,
		"ReleaseSessionOptions": C.vs_ReleaseSessionOptions, "RunWithBinding": C.vs_RunWithBinding,
		"CreateIoBinding": C.vs_CreateIoBinding, "ReleaseIoBinding": C.vs_ReleaseIoBinding,
		"BindInput": C.vs_BindInput, "BindOutput": C.vs_BindOutput,
		"ClearBoundInputs": C.vs_ClearBoundInputs, "ClearBoundOutputs": C.vs_ClearBoundOutputs,
		"SynchronizeBoundInputs": C.vs_SynchronizeBoundInputs, "SynchronizeBoundOutputs": C.vs_SynchronizeBoundOutputs,
		"SessionOptionsAppendExecutionProvider_CUDA_V2": C.vs_SessionOptionsAppendExecutionProvider_CUDA_V2,
		"CreateCUDAProviderOptions":                     C.vs_CreateCUDAProviderOptions,
		"UpdateCUDAProviderOptions":                     C.vs_UpdateCUDAProviderOptions,
		"ReleaseCUDAProviderOptions":                    C.vs_ReleaseCUDAProviderOptions,
	}
	consts = map[string]int{
		"ORT_LOGGING_LEVEL_ERROR": C.vs_ORT_LOGGING_LEVEL_ERROR, "ORT_ENABLE_ALL": C.vs_ORT_ENABLE_ALL,
		"OrtDeviceAllocator": C.vs_OrtDeviceAllocator, "OrtMemTypeDefault": C.vs_OrtMemTypeDefault,
		"ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT": C.vs_ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
		"ORT_API_VERSION_USED":                C.vs_API_VERSION,
	}
	return slots, consts
}
