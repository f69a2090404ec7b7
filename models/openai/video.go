package openai

import "fmt"

// How a query's frames go to a server (Config.Frames).
const (
	// FramesImages sends each frame as an image_url part of its own: what
	// every vision-language server reads, and the default.
	FramesImages = "images"
	// FramesVideo sends a message's frames, in order, as one video_url part
	// whose URL is vLLM's frame list, "data:video/jpeg;base64," and the
	// frames' JPEG base64 joined by commas (vLLM's VideoMediaIO.load_base64
	// splits it so). The model then reads the frames through its video
	// processor: the only input vLLM's LLaVA-NeXT-Video takes, and for
	// InternVL one 448-pixel tile a frame where an image is tiled.
	FramesVideo = "video"
)

// videoMIME is the data URL's media type of a frame list.
const videoMIME = "video/jpeg"

// appendVideo writes frames as one video_url content part. Every frame
// must be a JPEG (EncodeFrame's): the frame list holds JPEGs only. The
// frames' bytes are the same whatever the question, so the requests on one
// video still share their prefix up to the text.
func appendVideo(b []byte, frames []*Image) ([]byte, error) {
	b = append(b, `{"type":"video_url","video_url":{"url":"data:`+videoMIME+`;base64,`...)
	for i, f := range frames {
		if f.MIME != "image/jpeg" {
			return nil, fmt.Errorf("frame %d is %s; a video_url part carries JPEG frames (%s)", i, f.MIME, videoMIME)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = f.appendBase64(b)
	}
	return append(b, `"}}`...), nil
}
