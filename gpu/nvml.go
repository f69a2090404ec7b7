package gpu

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/ebitengine/purego"
)

// NVML returns a Backend that asks the NVIDIA Management Library at path
// (DefaultNVMLLibrary, or a full path) for the GPUs, their names, UUIDs and
// total and free memory. NVML numbers GPUs by PCI bus, which is CUDA's order
// when CUDA_DEVICE_ORDER=PCI_BUS_ID and on machines of identical GPUs.
func NVML(path string) Backend { return nvmlBackend{path: path} }

type nvmlBackend struct{ path string }

func (b nvmlBackend) Name() string { return fmt.Sprintf("NVML (%s)", b.path) }

// nvmlMemory is nvmlMemory_t: three unsigned long long, in bytes.
type nvmlMemory struct {
	Total, Free, Used uint64
}

// Buffer sizes from nvml.h: NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE (80),
// NVML_DEVICE_NAME_V2_BUFFER_SIZE (96), NVML_DEVICE_UUID_V2_BUFFER_SIZE (96).
const (
	nvmlDriverBufSize = 80
	nvmlNameBufSize   = 96
	nvmlUUIDBufSize   = 96
)

type nvmlFuncs struct {
	init          func() int32
	shutdown      func() int32
	errorString   func(int32) string
	driverVersion func(*byte, uint32) int32
	count         func(*uint32) int32
	handle        func(uint32, *uintptr) int32
	name          func(uintptr, *byte, uint32) int32
	uuid          func(uintptr, *byte, uint32) int32
	memory        func(uintptr, *nvmlMemory) int32
}

func (b nvmlBackend) Probe() (driver string, devs []Device, visible bool, err error) {
	lib, err := dlopen(b.path)
	if err != nil {
		return "", nil, false, fmt.Errorf("cannot load: %w", err)
	}
	defer purego.Dlclose(lib)
	var f nvmlFuncs
	if err := bindAll(lib, []binding{
		{&f.init, "nvmlInit_v2"},
		{&f.shutdown, "nvmlShutdown"},
		{&f.errorString, "nvmlErrorString"},
		{&f.driverVersion, "nvmlSystemGetDriverVersion"},
		{&f.count, "nvmlDeviceGetCount_v2"},
		{&f.handle, "nvmlDeviceGetHandleByIndex_v2"},
		{&f.name, "nvmlDeviceGetName"},
		{&f.uuid, "nvmlDeviceGetUUID"},
		{&f.memory, "nvmlDeviceGetMemoryInfo"},
	}); err != nil {
		return "", nil, false, err
	}
	check := func(what string, ret int32) error {
		if ret == 0 {
			return nil
		}
		return fmt.Errorf("%s: %s (NVML error %d)", what, f.errorString(ret), ret)
	}
	if err := check("nvmlInit", f.init()); err != nil {
		return "", nil, false, err
	}
	defer f.shutdown()
	buf := make([]byte, nvmlDriverBufSize)
	if err := check("driver version", f.driverVersion(&buf[0], uint32(len(buf)))); err != nil {
		return "", nil, false, err
	}
	driver = cString(buf)
	var n uint32
	if err := check("device count", f.count(&n)); err != nil {
		return "", nil, false, err
	}
	for i := uint32(0); i < n; i++ {
		var h uintptr
		if err := check(fmt.Sprintf("device %d", i), f.handle(i, &h)); err != nil {
			return "", nil, false, err
		}
		d := Device{Kind: CUDA, Index: int(i)}
		name := make([]byte, nvmlNameBufSize)
		if err := check(fmt.Sprintf("device %d name", i), f.name(h, &name[0], uint32(len(name)))); err != nil {
			return "", nil, false, err
		}
		d.Name = cString(name)
		uuid := make([]byte, nvmlUUIDBufSize)
		if f.uuid(h, &uuid[0], uint32(len(uuid))) == 0 {
			d.UUID = cString(uuid)
		}
		var m nvmlMemory
		if err := check(fmt.Sprintf("device %d memory", i), f.memory(h, &m)); err != nil {
			return "", nil, false, err
		}
		d.TotalMemory, d.FreeMemory, d.FreeKnown = m.Total, m.Free, true
		devs = append(devs, d)
	}
	return driver, devs, false, nil
}

// A binding names a C function to look up and the Go func variable to bind it to.
type binding struct {
	fptr any
	name string
}

// bindAll looks up every symbol first, so that a library that is not the one
// expected gives an error naming the missing symbol instead of a panic.
func bindAll(lib uintptr, bs []binding) error {
	runtime.LockOSThread() // dlerror is per thread, as in dlopen below
	defer runtime.UnlockOSThread()
	for _, b := range bs {
		sym, err := purego.Dlsym(lib, b.name)
		if err != nil {
			return fmt.Errorf("symbol %s: %w", b.name, err)
		}
		purego.RegisterFunc(b.fptr, sym)
	}
	return nil
}

// dlopen opens a library, keeping the goroutine on one OS thread so that
// the loader's message (dlerror, which is per thread) is read on the thread
// that failed.
func dlopen(path string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	lib, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil && strings.TrimSpace(err.Error()) == "" {
		err = fmt.Errorf("%s: not found by the dynamic loader", path)
	}
	return lib, err
}

// cString returns the NUL-terminated string at the start of buf.
func cString(buf []byte) string {
	for i, c := range buf {
		if c == 0 {
			return string(buf[:i])
		}
	}
	return string(buf)
}
