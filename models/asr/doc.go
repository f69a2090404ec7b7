// Package asr is the asr role served by a local OpenAI-compatible server:
// the /v1/audio/transcriptions endpoint that vLLM offers for Whisper
// models (and whisper.cpp's and llama.cpp's servers in the same form), a
// multipart POST of the audio as a WAV file. The ONNX path is
// models.Transcriber; both turn a 16 kHz mono track into text.
//
// Like models/openai, the client sends nothing off this machine unless the
// manifest allows a remote server: a base URL off the loopback is refused,
// and the dialer refuses any non-loopback address, whatever name it was
// resolved from.
package asr
