// Command fakevllm stands in for vllm in the tests of deploy/node: it takes
// `fakevllm serve MODEL --host HOST --port PORT [vLLM's other flags]`,
// serves MODEL at http://HOST:PORT/v1 with the project's test server
// (models/openai/openaitest: /v1/models, chat completions with
// log-probabilities), and runs until it is signalled. It prints one line,
// "fakevllm: CUDA_VISIBLE_DEVICES=... serve ARGS...", so that a test can
// check the flags a recipe gives vLLM; the flags other than --host and
// --port change nothing here.
//
// The model it stands for favours the letter of the longest option shown
// (ties: the first), so every answer follows from the item, and a
// generating request (a caption) gets a caption naming its first image's
// size.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fakevllm:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) < 2 || args[0] != "serve" {
		return fmt.Errorf("usage: fakevllm serve MODEL --host HOST --port PORT [flags]; got %q", args)
	}
	model, host, port := args[1], "127.0.0.1", "8000"
	for i := 2; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--host" && i+1 < len(args):
			host, i = args[i+1], i+1
		case a == "--port" && i+1 < len(args):
			port, i = args[i+1], i+1
		case strings.HasPrefix(a, "--host="):
			host = strings.TrimPrefix(a, "--host=")
		case strings.HasPrefix(a, "--port="):
			port = strings.TrimPrefix(a, "--port=")
		}
	}
	fmt.Fprintf(os.Stderr, "fakevllm: CUDA_VISIBLE_DEVICES=%s serve %s\n", os.Getenv("CUDA_VISIBLE_DEVICES"), strings.Join(args[1:], " "))
	l, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	srv := openaitest.Listen(openaitest.Config{Models: []string{model}, Answer: answer}, l)
	defer srv.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	<-ctx.Done()
	return nil
}

// answer favours the longest option's letter, or captions a frame.
func answer(r *openaitest.Request) openaitest.Reply {
	if r.MaxTokens > 1 && r.Images() > 0 {
		return openaitest.Reply{Text: fmt.Sprintf("a frame of %d bytes", len(r.Messages[0].Images[0].Data))}
	}
	best, bestLen := "A", -1
	for _, line := range strings.Split(r.User(), "\n") {
		if len(line) > 2 && line[0] >= 'A' && line[0] <= 'P' && line[1] == '.' && len(line) > bestLen {
			best, bestLen = line[:1], len(line)
		}
	}
	other := "A"
	if best == "A" {
		other = "B"
	}
	return openaitest.Reply{Top: map[string]float64{best: 0.6, " " + best: 0.1, other: 0.2, "x": 0.1}, Text: best}
}
