package run

import "strings"

// deviceFrames ends the name of the image tower's weights when its frames
// take the GPU frame path (features.Options.DeviceImage): NVDEC's pictures
// resized once on the device from the coded size, where the host path has
// swscale resize them to the decode size and imageprep again, so the
// embeddings differ within a tolerance, not bit for bit. The name is in
// the videos' cache keys, config.json and the answers' inputs, so that a
// run never reads the other path's embeddings as its own.
const deviceFrames = ":frame_path=device"

// DeviceFramesName is the name of image_text's embeddings on the GPU frame
// path, from the host path's name (the weights' name).
func DeviceFramesName(host string) string { return host + deviceFrames }

// HostFramesName is the host path's name of image_text's weights, from
// either path's: the name of what the path does not change (the text
// tower, the frames the captioner reads).
func HostFramesName(name string) string { return strings.TrimSuffix(name, deviceFrames) }
