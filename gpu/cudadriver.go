package gpu

import (
	"fmt"
	"unsafe"
)

// CUDADriver returns a Backend that asks the CUDA driver API at path
// (DefaultCUDALibrary, or a full path) for the GPUs. It is the fallback when
// NVML is missing: it applies CUDA_VISIBLE_DEVICES and CUDA's ordering
// itself, but cannot tell free memory without creating a context on each
// device (hundreds of MiB each), so it leaves FreeKnown false.
func CUDADriver(path string) Backend { return cudaBackend{path: path} }

type cudaBackend struct{ path string }

func (b cudaBackend) Name() string { return fmt.Sprintf("CUDA driver (%s)", b.path) }

// cudaNameBufSize is enough for any product name; nvidia-smi uses 96.
const cudaNameBufSize = 256

type cudaFuncs struct {
	init       func(uint32) int32
	errName    func(int32, **byte) int32
	version    func(*int32) int32
	count      func(*int32) int32
	get        func(*int32, int32) int32
	name       func(*byte, int32, int32) int32
	totalMem   func(*uint64, int32) int32
	deviceUUID func(*[16]byte, int32) int32
}

func (b cudaBackend) Probe() (driver string, devs []Device, visible bool, err error) {
	lib, err := dlopen(b.path)
	if err != nil {
		return "", nil, true, fmt.Errorf("cannot load: %w", err)
	}
	// The CUDA driver is not unloaded: other parts of the process (ONNX
	// Runtime, FFmpeg) may hold it, and unloading an initialised driver is
	// not supported.
	var f cudaFuncs
	if err := bindAll(lib, []binding{
		{&f.init, "cuInit"},
		{&f.errName, "cuGetErrorName"},
		{&f.version, "cuDriverGetVersion"},
		{&f.count, "cuDeviceGetCount"},
		{&f.get, "cuDeviceGet"},
		{&f.name, "cuDeviceGetName"},
		{&f.totalMem, "cuDeviceTotalMem_v2"},
		{&f.deviceUUID, "cuDeviceGetUuid"},
	}); err != nil {
		return "", nil, true, err
	}
	check := func(what string, ret int32) error { return cuError(f.errName, what, ret) }
	if err := check("cuInit", f.init(0)); err != nil {
		return "", nil, true, err
	}
	var v int32
	if err := check("driver version", f.version(&v)); err != nil {
		return "", nil, true, err
	}
	// cuDriverGetVersion encodes 1000*major + 10*minor.
	driver = fmt.Sprintf("CUDA %d.%d", v/1000, (v%1000)/10)
	var n int32
	if err := check("device count", f.count(&n)); err != nil {
		return "", nil, true, err
	}
	for i := int32(0); i < n; i++ {
		var dev int32
		if err := check(fmt.Sprintf("device %d", i), f.get(&dev, i)); err != nil {
			return "", nil, true, err
		}
		buf := make([]byte, cudaNameBufSize)
		if err := check(fmt.Sprintf("device %d name", i), f.name(&buf[0], int32(len(buf)), dev)); err != nil {
			return "", nil, true, err
		}
		var total uint64
		if err := check(fmt.Sprintf("device %d memory", i), f.totalMem(&total, dev)); err != nil {
			return "", nil, true, err
		}
		d := Device{Kind: CUDA, Index: int(i), Name: cString(buf), TotalMemory: total}
		var u [16]byte
		if f.deviceUUID(&u, dev) == 0 {
			d.UUID = formatUUID(u)
		}
		devs = append(devs, d)
	}
	return driver, devs, true, nil
}

// cuError is nil for CUDA_SUCCESS, else an error naming the call and the
// CUresult by cuGetErrorName (the pointer starts nil: the toolkit's stub
// driver answers without writing it).
func cuError(errName func(int32, **byte) int32, what string, ret int32) error {
	if ret == 0 {
		return nil
	}
	var p *byte
	name := "unknown"
	if errName(ret, &p) == 0 && p != nil {
		name = goString(p)
	}
	return fmt.Errorf("%s: %s (CUresult %d)", what, name, ret)
}

// formatUUID writes a CUuuid the way nvidia-smi and NVML do: "GPU-" and the
// 16 bytes in 8-4-4-4-12 hex groups.
func formatUUID(u [16]byte) string {
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// goString copies the NUL-terminated C string at p.
func goString(p *byte) string {
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
