# vidscreen: make demo (the audit on the embedded default), make test.
# Every target installs what it needs and skips what is already there.

SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)
GO ?= go
# ONNX Runtime's shared library, fetched by setup-ort into an ignored folder.
# Set VIDSCREEN_ORT_LIB yourself to use another build.
ORT_DIR := $(CURDIR)/.cache/onnxruntime
export VIDSCREEN_ORT_LIB ?= $(ORT_DIR)/libonnxruntime.so
TESTFLAGS ?= -timeout 40m
# Inputs per fuzz target: make test runs a short pass on every push
# (TESTFUZZTIME), make fuzz the full count (FUZZTIME); scripts/fuzz.sh
# says why 300x and what a fuzz call costs before its first input.
TESTFUZZTIME ?= 300x
FUZZTIME ?= 4000x

.PHONY: all setup setup-system setup-ort setup-reference setup-cuda build demo test fuzz bench

all: build

setup: setup-system setup-ort

setup-system:
	@bash scripts/setup-system.sh

setup-ort: setup-system
	@bash scripts/setup-ort.sh "$(ORT_DIR)"

# The conformance tests' reference (conformance/README.md): Hugging Face's
# transformers.js, pinned by conformance/reference/package-lock.json.
REFERENCE_DIR := $(CURDIR)/.cache/reference
setup-reference: setup-system
	@bash scripts/setup-reference.sh "$(REFERENCE_DIR)"

# The CUDA execution provider (230 MB, CUDA 13): only useful on a GPU machine.
setup-cuda: setup-ort
	@bash scripts/setup-ort.sh --cuda "$(ORT_DIR)"

build: setup-system
	$(GO) build -o bin/vidscreen ./cmd/vidscreen

demo: build setup-ort
	@bash scripts/demo.sh

test: setup setup-reference
	$(GO) vet ./...
	$(GO) test $(TESTFLAGS) ./...
	@FUZZTIME=$(TESTFUZZTIME) bash scripts/fuzz.sh

# Each fuzz target of a reader of outside bytes for FUZZTIME (4000x: inputs, not seconds) each.
fuzz:
	@FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

bench: setup
	@bash bench/run.sh

# The cuda build (bin/vidscreen-cuda, -tags cuda): GPU kernels on
# gorgonia.org/cu, which needs cuda.h and libcuda at build time. CUDA 11.8's
# headers, stub libraries and nvcc come from Debian's non-free component,
# unpacked into an ignored folder (no driver installed). bin/vidscreen stays
# free of any CUDA library.
CUDA_DEV_DIR := $(CURDIR)/.cache/cuda-dev
CUDA_CGO := CGO_CFLAGS="-I$(CUDA_DEV_DIR)/usr/include" CGO_LDFLAGS="-L$(CUDA_DEV_DIR)/usr/lib/x86_64-linux-gnu/stubs"
NVCC := $(CUDA_DEV_DIR)/bin/nvcc

.PHONY: setup-cuda-dev build-cuda vet-cuda check-cuda-link ptx test-cuda

setup-cuda-dev:
	@bash scripts/setup-cuda-dev.sh "$(CUDA_DEV_DIR)"

build-cuda: setup-cuda-dev
	$(CUDA_CGO) $(GO) build -tags cuda -o bin/vidscreen-cuda ./cmd/vidscreen

vet-cuda: setup-cuda-dev
	$(CUDA_CGO) $(GO) vet -tags cuda ./...

# bin/vidscreen must link no CUDA library; bin/vidscreen-cuda must link libcuda.so.1.
check-cuda-link: build build-cuda
	@bash scripts/check-cuda-link.sh bin/vidscreen bin/vidscreen-cuda

# Regenerates kernels/cuda/kernels.ptx and basis.ptx from their .cu files,
# and models/imageprep/gpuprep/preprocess.ptx from preprocess.cu (committed,
# embedded).
ptx: setup-cuda-dev
	$(NVCC) -ccbin g++-11 -ptx -arch=compute_80 -O3 -o kernels/cuda/kernels.ptx kernels/cuda/kernels.cu
	$(NVCC) -ccbin g++-11 -ptx -arch=compute_80 -O3 -o models/imageprep/gpuprep/preprocess.ptx models/imageprep/gpuprep/preprocess.cu
	$(NVCC) -ccbin g++-11 -ptx -arch=compute_80 -O3 -o kernels/cuda/basis.ptx kernels/cuda/basis.cu

# The cuda build's tests on a machine without a GPU: the toolkit's stub
# libcuda.so stands in for the driver (cuInit answers CUDA_ERROR_STUB_LIBRARY),
# so the GPU tests skip saying so and --device cuda:0 is seen to fall back.
CUDA_STUB_DRIVER := $(CUDA_DEV_DIR)/stub-driver
test-cuda: setup-cuda-dev
	@mkdir -p "$(CUDA_STUB_DRIVER)" && ln -sf "$(CUDA_DEV_DIR)/usr/lib/x86_64-linux-gnu/stubs/libcuda.so" "$(CUDA_STUB_DRIVER)/libcuda.so.1"
	LD_LIBRARY_PATH="$(CUDA_STUB_DRIVER)$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}" $(CUDA_CGO) $(GO) test -tags cuda ./gpu/cudactx ./kernels/cuda ./models/imageprep/gpuprep
	LD_LIBRARY_PATH="$(CUDA_STUB_DRIVER)$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}" $(CUDA_CGO) $(GO) test -tags cuda -run 'TestNVDEC|TestNewGPU|TestNewSharedGPU|TestOpenGPU|TestFramesOnDevice|TestDeviceNV12' ./decode ./harness/features
	LD_LIBRARY_PATH="$(CUDA_STUB_DRIVER)$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}" $(CUDA_CGO) $(GO) test -tags cuda -run 'TestNeardupDevice|TestAuditDeviceSearches|TestSelectDeviceSearches' -v ./cmd/vidscreen
