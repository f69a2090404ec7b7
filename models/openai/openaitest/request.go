package openaitest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// A Request is one request the server received, decoded.
type Request struct {
	// Method and Path are the HTTP method and the URL path ("/v1/chat/completions").
	Method, Path string
	// Body is the raw body.
	Body []byte

	Model                string
	Messages             []Message // chat completions
	Prompt               string    // completions
	MaxTokens            int
	Temperature          *float64
	Seed                 *int64
	Logprobs             bool // chat: logprobs true; completions: logprobs > 0
	TopLogprobs          int  // chat: top_logprobs; completions: logprobs
	ContinueFinalMessage bool
	AddGenerationPrompt  *bool // nil when the field was absent (vLLM's default is true)
	// Stream is "stream": true: a chat request is answered as server-sent
	// events (streamChat).
	Stream bool
}

// A Message is one chat turn: its text parts, joined by newlines, and its
// images, decoded from their data URLs, in the order they came.
type Message struct {
	Role   string
	Text   string
	Images []Image
	// Videos are the message's video_url parts, each its frames decoded
	// from vLLM's "data:video/jpeg;base64,<frame>,<frame>..." list.
	Videos [][]Image
	// Parts lists the content's part types in order ("image_url", "text"),
	// nil when the content was a plain string.
	Parts []string
}

// An Image is one image part.
type Image struct {
	MIME string
	Data []byte
}

// Images counts the images of every message.
func (r *Request) Images() int {
	n := 0
	for _, m := range r.Messages {
		n += len(m.Images)
	}
	return n
}

// Videos counts the video parts of every message.
func (r *Request) Videos() int {
	n := 0
	for _, m := range r.Messages {
		n += len(m.Videos)
	}
	return n
}

// VideoFrames counts the frames of every video part.
func (r *Request) VideoFrames() int {
	n := 0
	for _, m := range r.Messages {
		for _, v := range m.Videos {
			n += len(v)
		}
	}
	return n
}

// Text is the text of every message, one message a line, or the prompt.
func (r *Request) Text() string {
	if r.Messages == nil {
		return r.Prompt
	}
	var b []string
	for _, m := range r.Messages {
		b = append(b, m.Text)
	}
	return strings.Join(b, "\n")
}

// User is the text of the last user message.
func (r *Request) User() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text
		}
	}
	return r.Prompt
}

type rawRequest struct {
	Model                string          `json:"model"`
	Messages             []rawMessage    `json:"messages"`
	Prompt               *string         `json:"prompt"`
	MaxTokens            *int            `json:"max_tokens"`
	Temperature          *float64        `json:"temperature"`
	Seed                 *int64          `json:"seed"`
	Logprobs             json.RawMessage `json:"logprobs"`
	TopLogprobs          *int            `json:"top_logprobs"`
	ContinueFinalMessage bool            `json:"continue_final_message"`
	AddGenerationPrompt  *bool           `json:"add_generation_prompt"`
	Stream               bool            `json:"stream"`
}

type rawMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type rawPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
	VideoURL *struct {
		URL string `json:"url"`
	} `json:"video_url"`
}

// parseRequest decodes a body; an error is the 400 message a server gives.
func parseRequest(method, path string, body []byte) (*Request, error) {
	r := &Request{Method: method, Path: path, Body: body}
	if method != "POST" {
		return r, nil
	}
	var raw rawRequest
	if err := json.Unmarshal(body, &raw); err != nil {
		return r, fmt.Errorf("request body is not JSON: %v", err)
	}
	r.Model, r.Temperature, r.Seed = raw.Model, raw.Temperature, raw.Seed
	r.ContinueFinalMessage, r.AddGenerationPrompt, r.Stream = raw.ContinueFinalMessage, raw.AddGenerationPrompt, raw.Stream
	r.MaxTokens = 16 // vLLM's completions default; chat's is the context left
	if raw.MaxTokens != nil {
		r.MaxTokens = *raw.MaxTokens
	}
	chat := strings.HasSuffix(path, "/chat/completions")
	if len(raw.Logprobs) > 0 && string(raw.Logprobs) != "null" {
		if chat {
			if err := json.Unmarshal(raw.Logprobs, &r.Logprobs); err != nil {
				return r, fmt.Errorf("logprobs: %v", err)
			}
			if raw.TopLogprobs != nil {
				r.TopLogprobs = *raw.TopLogprobs
			}
		} else {
			if err := json.Unmarshal(raw.Logprobs, &r.TopLogprobs); err != nil {
				return r, fmt.Errorf("logprobs: %v", err)
			}
			r.Logprobs = true
		}
	}
	if !chat {
		if raw.Prompt == nil {
			return r, fmt.Errorf("prompt is required")
		}
		r.Prompt = *raw.Prompt
		return r, nil
	}
	if len(raw.Messages) == 0 {
		return r, fmt.Errorf("messages is required")
	}
	for i, rm := range raw.Messages {
		m, err := parseMessage(rm)
		if err != nil {
			return r, fmt.Errorf("messages[%d]: %v", i, err)
		}
		r.Messages = append(r.Messages, m)
	}
	return r, nil
}

func parseMessage(rm rawMessage) (Message, error) {
	m := Message{Role: rm.Role}
	var s string
	if err := json.Unmarshal(rm.Content, &s); err == nil {
		m.Text = s
		return m, nil
	}
	var parts []rawPart
	if err := json.Unmarshal(rm.Content, &parts); err != nil {
		return m, fmt.Errorf("content is neither a string nor a list of parts")
	}
	var texts []string
	for j, p := range parts {
		m.Parts = append(m.Parts, p.Type)
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "image_url":
			if p.ImageURL == nil {
				return m, fmt.Errorf("content[%d]: image_url part without image_url", j)
			}
			im, err := decodeDataURL(p.ImageURL.URL)
			if err != nil {
				return m, fmt.Errorf("content[%d]: %v", j, err)
			}
			m.Images = append(m.Images, im)
		case "video_url":
			if p.VideoURL == nil {
				return m, fmt.Errorf("content[%d]: video_url part without video_url", j)
			}
			v, err := decodeVideoURL(p.VideoURL.URL)
			if err != nil {
				return m, fmt.Errorf("content[%d]: %v", j, err)
			}
			m.Videos = append(m.Videos, v)
		default:
			return m, fmt.Errorf("content[%d]: unknown part type %q", j, p.Type)
		}
	}
	m.Text = strings.Join(texts, "\n")
	return m, nil
}

func decodeDataURL(u string) (Image, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return Image{}, fmt.Errorf("image URL %.40q is not a data URL (this server fetches nothing)", u)
	}
	mime, data, ok := strings.Cut(rest, ";base64,")
	if !ok {
		return Image{}, fmt.Errorf("data URL is not base64")
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return Image{}, fmt.Errorf("data URL: %v", err)
	}
	return Image{MIME: mime, Data: b}, nil
}

// decodeVideoURL reads vLLM's frame list: "data:video/jpeg;base64," and
// each frame's JPEG in base64, separated by commas (VideoMediaIO.load_base64).
// Other video data URLs hold a container file, which this server does not
// decode.
func decodeVideoURL(u string) ([]Image, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return nil, fmt.Errorf("video URL %.40q is not a data URL (this server fetches nothing)", u)
	}
	mime, data, ok := strings.Cut(rest, ";base64,")
	if !ok {
		return nil, fmt.Errorf("data URL is not base64")
	}
	if !strings.EqualFold(mime, "video/jpeg") {
		return nil, fmt.Errorf("video data URL of %s: this server reads only vLLM's video/jpeg frame list", mime)
	}
	var frames []Image
	for i, f := range strings.Split(data, ",") {
		b, err := base64.StdEncoding.DecodeString(f)
		if err != nil {
			return nil, fmt.Errorf("video frame %d: %v", i, err)
		}
		frames = append(frames, Image{MIME: "image/jpeg", Data: b})
	}
	return frames, nil
}
