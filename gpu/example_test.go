package gpu_test

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/gpu"
)

// A run asks for --device cuda on a machine; each video's work is pinned to
// its home device, and work too large for any GPU goes to the CPU.
func Example() {
	// Discover(gpu.DiscoverOptions{Getenv: os.Getenv}) on a real machine.
	inv := gpu.Inventory{Driver: "570.124.06", Devices: []gpu.Device{
		{Kind: gpu.CUDA, Index: 0, Name: "NVIDIA H200", TotalMemory: 140 << 30, FreeMemory: 100 << 30, FreeKnown: true},
		{Kind: gpu.CUDA, Index: 1, Name: "NVIDIA H200", TotalMemory: 140 << 30, FreeMemory: 100 << 30, FreeKnown: true},
	}}
	spec, err := gpu.ParseSpec("cuda")
	if err != nil {
		panic(err)
	}
	devs, note, err := gpu.Select(spec, inv)
	if err != nil {
		panic(err)
	}
	if note != "" {
		fmt.Println(note) // printed once
	}
	pool, err := gpu.NewPool(devs, gpu.PoolConfig{Workers: 2, CPUFallback: true})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, video := range []string{"a.mp4", "b.mp4", "c.mp4"} {
		need := gpu.Need{Memory: 2 << 30, Pinned: true, Slot: pool.Home(video)}
		pool.Do(ctx, need, func(ctx context.Context, d gpu.Device) error {
			fmt.Println(video, "on", d.ID())
			return nil
		})
	}
	pool.Do(ctx, gpu.Need{Memory: 200 << 30}, func(ctx context.Context, d gpu.Device) error {
		fmt.Println("200 GiB job on", d.ID())
		return nil
	})
	// Output:
	// a.mp4 on cuda:1
	// b.mp4 on cuda:0
	// c.mp4 on cuda:1
	// 200 GiB job on cpu
}
