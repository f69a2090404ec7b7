# The image of deploy/k8s: bin/vidscreen on Debian 12 with the libraries it
# loads (FFmpeg 5.1, OpenBLAS, LAPACKE) and ONNX Runtime, installed by the
# same scripts as `make setup` (scripts/setup-system.sh, setup-ort.sh).
#
#   docker build -t vidscreen:0.2.0 .
#
# The tag is the version of harness/version.go, which the manifests name;
# deploy/deploy_test.go checks that they agree. ONNX Runtime's CUDA provider
# (--build-arg ORT_CUDA=1) also needs CUDA 13 and cuDNN 9 in the final
# image: set BASE to a Debian 12 image that has them (deploy/README.md).
ARG GO_IMAGE=golang:1.26.8-bookworm
ARG BASE=debian:12-slim

FROM ${GO_IMAGE} AS build
ARG ORT_CUDA=0
WORKDIR /src
COPY scripts/setup-system.sh scripts/setup-ort.sh scripts/
RUN bash scripts/setup-system.sh --build \
 && bash scripts/setup-ort.sh /opt/onnxruntime \
 && if [ "$ORT_CUDA" = 1 ]; then bash scripts/setup-ort.sh --cuda /opt/onnxruntime; fi
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -trimpath -buildvcs=false -o /out/vidscreen ./cmd/vidscreen

FROM ${BASE}
COPY scripts/setup-system.sh /tmp/setup-system.sh
RUN bash /tmp/setup-system.sh --runtime \
 && rm -rf /var/lib/apt/lists/* /tmp/setup-system.sh
COPY --from=build /opt/onnxruntime /opt/onnxruntime
COPY --from=build /out/vidscreen /usr/local/bin/vidscreen
ENV VIDSCREEN_ORT_LIB=/opt/onnxruntime/libonnxruntime.so
ENTRYPOINT ["vidscreen"]
CMD ["help"]
