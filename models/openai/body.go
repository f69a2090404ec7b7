package openai

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// appendJSON writes the request as encoding/json would write chatRequest,
// by hand: a frames request is megabytes of base64, and json.Marshal would
// copy, validate and compact every Message's MarshalJSON output again
// (a quarter of the client's time in BenchmarkAskGroups). Base64 needs no
// escaping, so the images are encoded straight into the body.
func (r *chatRequest) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"model":`...)
	b = appendString(b, r.Model)
	b = append(b, `,"messages":[`...)
	for i, m := range r.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = m.appendJSON(b, r.Video); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	b = append(b, `],"max_tokens":`...)
	b = strconv.AppendInt(b, int64(r.MaxTokens), 10)
	b = append(b, `,"temperature":`...)
	b = strconv.AppendFloat(b, r.Temperature, 'g', -1, 64)
	b = append(b, `,"seed":`...)
	b = strconv.AppendInt(b, r.Seed, 10)
	if r.Logprobs {
		b = append(b, `,"logprobs":true`...)
	}
	if r.TopLogprobs != 0 {
		b = append(b, `,"top_logprobs":`...)
		b = strconv.AppendInt(b, int64(r.TopLogprobs), 10)
	}
	if r.ContinueFinalMessage {
		b = append(b, `,"continue_final_message":true`...)
	}
	if r.AddGenerationPrompt != nil {
		b = append(b, `,"add_generation_prompt":`...)
		b = strconv.AppendBool(b, *r.AddGenerationPrompt)
	}
	if len(r.ChatTemplateKwargs) > 0 {
		kw, err := json.Marshal(r.ChatTemplateKwargs)
		if err != nil {
			return nil, fmt.Errorf("chat_template_kwargs: %w", err)
		}
		b = append(b, `,"chat_template_kwargs":`...)
		b = append(b, kw...)
	}
	return append(b, '}'), nil
}

// appendJSON writes the message as MarshalJSON does, or with video each
// run of consecutive images as one video_url part (appendVideo).
func (m Message) appendJSON(b []byte, video bool) ([]byte, error) {
	b = append(b, `{"role":`...)
	b = appendString(b, m.Role)
	b = append(b, `,"content":`...)
	if len(m.Parts) == 0 {
		b = appendString(b, m.Content)
		return append(b, '}'), nil
	}
	b = append(b, '[')
	for i := 0; i < len(m.Parts); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		p := m.Parts[i]
		switch {
		case p.Image != nil && video:
			j := i
			frames := []*Image{}
			for ; j < len(m.Parts) && m.Parts[j].Image != nil; j++ {
				frames = append(frames, m.Parts[j].Image)
			}
			var err error
			if b, err = appendVideo(b, frames); err != nil {
				return nil, err
			}
			i = j - 1
		case p.Image != nil:
			b = append(b, `{"type":"image_url","image_url":{"url":`...)
			prefix := appendString(nil, "data:"+p.Image.MIME+";base64,")
			b = append(b, prefix[:len(prefix)-1]...) // the string stays open for the base64
			b = p.Image.appendBase64(b)
			b = append(b, `"}}`...)
		default:
			b = append(b, `{"type":"text","text":`...)
			b = appendString(b, p.Text)
			b = append(b, '}')
		}
	}
	return append(b, "]}"...), nil
}

// appendString writes s as a JSON string, escaped as encoding/json does.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
