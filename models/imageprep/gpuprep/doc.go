// Package gpuprep runs package imageprep's preprocessing on an NVIDIA GPU:
// decoded frames (RGB in host memory, or NV12 pictures NVDEC left in device
// memory) become an image tower's input tensor (float32 NCHW, resized,
// cropped and normalised) on the device, with imageprep.Processor's output
// bit for bit.
//
// Data moves like this. An imageprep.Plan holds, for one frame size, the
// resize's fixed-point tables and the level tables of rescale and
// normalise. A PrepDevice (OpenGPU on a gpu/cudactx context, in the cuda
// build; Host on the CPU) makes a Prep per plan: device buffers for a batch
// of frames, the tables, the intermediate image and the output tensor.
// Load copies frames into the batch's slots (DevicePrep.LoadNV12 converts
// NVDEC's pictures into them on the device with prep_nv12), Run queues the
// two resize passes (prep_horizontal, prep_vertical), and Output copies the
// tensor back, or DevicePrep.DeviceOutput hands its device address to the
// image tower (models.DeviceFrames, through an ONNX Runtime IoBinding), so
// the tensor never leaves the GPU. Preprocess drives a whole run of frames
// as imageprep.Processor.Batch does.
//
// The kernels are in preprocess.cu, compiled to preprocess.ptx by make ptx
// and embedded. Host runs the same kernels as Go loops over the same
// grid, so everything but the device code is tested on any machine and the
// GPU is held to Host and imageprep in the cuda build's tests.
//
// Without the cuda build tag the package has Host, the interfaces and
// Preprocess only, and needs no CUDA headers or libraries.
package gpuprep
