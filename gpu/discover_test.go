package gpu

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type fakeBackend struct {
	name    string
	driver  string
	devs    []Device
	visible bool
	err     error
}

func (f fakeBackend) Name() string { return f.name }
func (f fakeBackend) Probe() (string, []Device, bool, error) {
	return f.driver, append([]Device(nil), f.devs...), f.visible, f.err
}

func fakeDevs(uuids ...string) []Device {
	var ds []Device
	for i, u := range uuids {
		ds = append(ds, Device{Kind: CUDA, Index: i, Name: "G" + u, UUID: u, TotalMemory: 1 << 30})
	}
	return ds
}

func TestDiscoverNoDriver(t *testing.T) {
	t.Parallel()
	inv := Discover(DiscoverOptions{Backends: []Backend{
		NVML("libvidscreen-no-such-nvml.so.1"),
		CUDADriver("libvidscreen-no-such-cuda.so.1"),
	}})
	if len(inv.Devices) != 0 {
		t.Fatalf("found %v on missing libraries", inv.Devices)
	}
	for _, want := range []string{
		"NVML (libvidscreen-no-such-nvml.so.1): cannot load: libvidscreen-no-such-nvml.so.1: cannot open shared object file",
		"CUDA driver (libvidscreen-no-such-cuda.so.1): cannot load: libvidscreen-no-such-cuda.so.1: cannot open shared object file",
	} {
		if !strings.Contains(inv.Missing, want) {
			t.Errorf("Missing = %q, want it to contain %q", inv.Missing, want)
		}
	}
	if s := inv.String(); !strings.Contains(s, "no GPU found") || !strings.Contains(s, "devices: cpu") {
		t.Errorf("String() = %q", s)
	}
}

// This machine has no NVIDIA driver; the default backends must say so
// rather than fail. Where a driver is present the test checks nothing.
func TestDiscoverDefaultBackends(t *testing.T) {
	t.Parallel()
	inv := Discover(DiscoverOptions{Getenv: os.Getenv})
	if len(inv.Devices) == 0 && !strings.Contains(inv.Missing, DefaultNVMLLibrary) {
		t.Errorf("no devices, and Missing %q does not name %s", inv.Missing, DefaultNVMLLibrary)
	}
	t.Logf("%s", inv)
}

func TestDiscoverWrongLibrary(t *testing.T) {
	t.Parallel()
	// libm loads but has none of NVML's symbols: the error names the first one.
	inv := Discover(DiscoverOptions{Backends: []Backend{NVML("libm.so.6")}})
	if !strings.Contains(inv.Missing, "symbol nvmlInit_v2") {
		t.Errorf("Missing = %q, want it to name nvmlInit_v2", inv.Missing)
	}
}

func TestDiscoverBackendOrder(t *testing.T) {
	t.Parallel()
	inv := Discover(DiscoverOptions{Backends: []Backend{
		fakeBackend{name: "first", err: errors.New("broken")},
		fakeBackend{name: "second", driver: "1.0"},
		fakeBackend{name: "third", driver: "2.0", devs: fakeDevs("GPU-a"), visible: true},
		fakeBackend{name: "fourth", driver: "3.0", devs: fakeDevs("GPU-b", "GPU-c"), visible: true},
	}})
	if inv.Source != "third" || inv.Driver != "2.0" || len(inv.Devices) != 1 {
		t.Errorf("got %+v, want the first backend with devices (third)", inv)
	}
}

func TestApplyVisible(t *testing.T) {
	t.Parallel()
	devs := fakeDevs("GPU-aaa", "GPU-bbb", "GPU-ccc")
	tests := []struct {
		env        string
		wantUUIDs  []string
		wantHidden string
	}{
		{env: "", wantUUIDs: []string{"GPU-aaa", "GPU-bbb", "GPU-ccc"}},
		{env: "2,0", wantUUIDs: []string{"GPU-ccc", "GPU-aaa"}},
		{env: "GPU-bb", wantUUIDs: []string{"GPU-bbb"}},
		{env: "1,7,0", wantUUIDs: []string{"GPU-bbb"}}, // CUDA stops at the first invalid entry
		{env: "1,1", wantUUIDs: []string{"GPU-bbb"}},
		{env: "-1", wantHidden: `CUDA_VISIBLE_DEVICES="-1" hides all 3 GPU(s)`},
		{env: "GPU-zzz", wantHidden: "hides all"},
	}
	for _, tt := range tests {
		got, hidden := applyVisible(devs, tt.env)
		if tt.wantHidden != "" {
			if !strings.Contains(hidden, tt.wantHidden) {
				t.Errorf("applyVisible(%q) hidden = %q, want %q", tt.env, hidden, tt.wantHidden)
			}
			continue
		}
		var uuids []string
		for i, d := range got {
			uuids = append(uuids, d.UUID)
			if d.Index != i {
				t.Errorf("applyVisible(%q): %s has ordinal %d, want %d", tt.env, d.UUID, d.Index, i)
			}
		}
		if !reflect.DeepEqual(uuids, tt.wantUUIDs) {
			t.Errorf("applyVisible(%q) = %v, want %v", tt.env, uuids, tt.wantUUIDs)
		}
	}
}

// buildFake compiles one of testdata's stand-in driver libraries.
func buildFake(t *testing.T, src string) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the stand-in driver library")
	}
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(src, ".c")+".so")
	cmd := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", out, filepath.Join("testdata", src))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cc %s: %v\n%s", src, err, b)
	}
	return out
}

func TestNVMLBindings(t *testing.T) {
	t.Parallel()
	lib := buildFake(t, "fakenvml.c")
	get := func(k string) string {
		if k == "CUDA_VISIBLE_DEVICES" {
			return "GPU-aaaa"
		}
		return ""
	}
	for _, tt := range []struct {
		name   string
		getenv func(string) string
		want   []Device
	}{
		{name: "all devices", want: []Device{
			{Kind: CUDA, Index: 0, Name: "Fake H200", UUID: "GPU-11111111-2222-3333-4444-555555555555", TotalMemory: 1000000007, FreeMemory: 600000003, FreeKnown: true},
			{Kind: CUDA, Index: 1, Name: "Fake H100", UUID: "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", TotalMemory: 2000000007, FreeMemory: 1200000003, FreeKnown: true},
		}},
		{name: "CUDA_VISIBLE_DEVICES by UUID renumbers", getenv: get, want: []Device{
			{Kind: CUDA, Index: 0, Name: "Fake H100", UUID: "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", TotalMemory: 2000000007, FreeMemory: 1200000003, FreeKnown: true},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			inv := Discover(DiscoverOptions{Getenv: tt.getenv, Backends: []Backend{NVML(lib)}})
			if inv.Missing != "" {
				t.Fatalf("Missing = %q", inv.Missing)
			}
			if inv.Driver != "570.124.06" {
				t.Errorf("Driver = %q", inv.Driver)
			}
			if !reflect.DeepEqual(inv.Devices, tt.want) {
				t.Errorf("Devices = %+v\nwant %+v", inv.Devices, tt.want)
			}
		})
	}
}

func TestCUDADriverBindings(t *testing.T) {
	lib := buildFake(t, "fakecuda.c")
	inv := Discover(DiscoverOptions{Backends: []Backend{NVML("libvidscreen-no-such-nvml.so.1"), CUDADriver(lib)}})
	want := []Device{{Kind: CUDA, Index: 0, Name: "Fake L4", UUID: "GPU-00112233-4455-6677-8899-aabbccddeeff", TotalMemory: 24 << 30}}
	if inv.Driver != "CUDA 13.0" || !reflect.DeepEqual(inv.Devices, want) {
		t.Errorf("got driver %q devices %+v, want CUDA 13.0 %+v", inv.Driver, inv.Devices, want)
	}
	if got := inv.Devices[0].String(); got != "cuda:0 Fake L4, 24.0 GiB" {
		t.Errorf("String() = %q", got)
	}
}
