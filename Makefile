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

.PHONY: all setup setup-system setup-ort setup-cuda build demo test fuzz bench

all: build

setup: setup-system setup-ort

setup-system:
	@bash scripts/setup-system.sh

setup-ort: setup-system
	@bash scripts/setup-ort.sh "$(ORT_DIR)"

# The CUDA execution provider (230 MB, CUDA 13): only useful on a GPU machine.
setup-cuda: setup-ort
	@bash scripts/setup-ort.sh --cuda "$(ORT_DIR)"

build: setup-system
	$(GO) build -o bin/vidscreen ./cmd/vidscreen

demo: build setup-ort
	@bash scripts/demo.sh

test: setup
	$(GO) vet ./...
	$(GO) test $(TESTFLAGS) ./...
	@bash scripts/fuzz.sh

# Each fuzz target of a reader of outside bytes for FUZZTIME (3s) each.
fuzz:
	@bash scripts/fuzz.sh

bench: setup
	@bash bench/run.sh
