package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai"
)

// servedCheck is what models check found at the server of one served
// manifest entry: what /v1/models lists, and how a one-token question was
// answered (with log-probabilities or generated, prefilled or not).
type servedCheck struct {
	Role  models.Role `json:"role"`
	Entry int         `json:"entry"` // 1 the first
	// Replica is which of the entry's servers this is (1 the first; 0 for
	// an entry with server), of Replicas.
	Replica     int      `json:"replica,omitempty"`
	Replicas    int      `json:"replicas,omitempty"`
	URL         string   `json:"server"`
	Model       string   `json:"server_model"`
	Models      []string `json:"models_listed,omitempty"`
	ModelServed bool     `json:"model_served"`
	// MaxModelLen is the model's context as /v1/models gives it (0: not
	// given).
	MaxModelLen int    `json:"max_model_len,omitempty"`
	Logprobs    bool   `json:"logprobs"`
	Prefill     bool   `json:"prefill"`
	Mode        string `json:"mode,omitempty"`
	// Answer is the test question's chosen option ("blue" is right).
	Answer string `json:"answer,omitempty"`
	// Images says whether the server answered the question with a frame;
	// ImagesRefusal is its message when it did not. A role that sends
	// frames (imageRoles) has a problem then.
	Images        bool   `json:"images"`
	ImagesRefusal string `json:"images_refusal,omitempty"`
	// Video says whether the server answered the question with two frames
	// as one video_url part; VideoRefusal is its message when it did not.
	Video        bool   `json:"video"`
	VideoRefusal string `json:"video_refusal,omitempty"`
	// Inputs are the input kinds the server accepted ("text", "images",
	// "video"); Frames is the entry's server_frames (default filled in), and
	// SetFrames the server_frames to set where the server refuses that kind
	// and accepts the other ("" when nothing needs changing).
	Inputs    []string `json:"inputs,omitempty"`
	Frames    string   `json:"server_frames,omitempty"`
	SetFrames string   `json:"set_server_frames,omitempty"`
	Problem   string   `json:"problem,omitempty"`
}

// imageRoles are the roles whose requests carry frames: their server must
// serve a vision-language model.
var imageRoles = map[models.Role]bool{models.RoleVLMReader: true, models.RoleScreenReader: true, models.RoleCaptioner: true}

// serverCheckTimeout bounds one server's check: long enough for a cold
// vLLM's first request, short enough that a dead server is said soon.
const serverCheckTimeout = 2 * time.Minute

// checkServed asks the server of every served entry of roles, and each
// replica of an entry with servers, what it serves and one test question
// (openai.Check), in the manifest's order. A server (a replica) that does
// not list the entry's server_model has a problem naming models.json and
// the field (roles.ROLE.servers[i]): a replica of another model would mix
// two readers' answers in one.
func checkServed(ctx context.Context, m *models.Manifest, roles []models.Role, env *environment) []servedCheck {
	var out []servedCheck
	for _, role := range roles {
		es := m.Entries(role)
		for k, spec := range es {
			if !spec.Served() {
				continue
			}
			urls := spec.ServerURLs()
			for i, u := range urls {
				sc := servedCheck{Role: role, Entry: k + 1, URL: u}
				field := "roles." + string(role)
				if len(es) > 1 {
					field += fmt.Sprintf("[%d]", k)
				}
				if spec.Servers != nil {
					sc.Replica, sc.Replicas = i+1, len(urls)
					field += fmt.Sprintf(".servers[%d]", i)
				} else {
					field += ".server"
				}
				out = append(out, checkOneServer(ctx, m, role, spec, sc, field, env))
			}
		}
	}
	return out
}

// checkOneServer is checkServed's check of one server (sc.URL) of one
// entry, field naming its URL in models.json.
func checkOneServer(ctx context.Context, m *models.Manifest, role models.Role, spec models.RoleSpec, sc servedCheck, field string, env *environment) servedCheck {
	s := spec.ServerSettings()
	sc.Model = s.Model
	if imageRoles[role] {
		sc.Frames = s.Frames
	}
	key := ""
	if s.APIKeyEnv != "" {
		if key = env.getenv(s.APIKeyEnv); key == "" {
			sc.Problem = fmt.Sprintf("server_api_key_env names %s, which is not set", s.APIKeyEnv)
			return sc
		}
	}
	retries := s.Retries
	if retries == 0 {
		retries = -1
	}
	kw, err := models.DecodeKwargs(s.ChatTemplateKwargs)
	if err != nil {
		sc.Problem = "server_chat_template_kwargs: " + err.Error()
		return sc
	}
	cctx, cancel := context.WithTimeout(ctx, serverCheckTimeout)
	rep, err := openai.Check(cctx, openai.Config{BaseURL: sc.URL, Model: s.Model, Chat: true, APIKey: key, AllowRemote: s.AllowRemote,
		MaxRetries: retries, Timeout: min(s.Timeout, serverCheckTimeout), ChatTemplateKwargs: kw})
	cancel()
	sc.Models, sc.ModelServed, sc.MaxModelLen = rep.Models, rep.ModelServed, rep.MaxModelLen
	sc.Logprobs, sc.Prefill, sc.Mode = rep.Logprobs, rep.Prefill, rep.Mode
	sc.Images, sc.ImagesRefusal = rep.Images, rep.ImagesRefusal
	sc.Video, sc.VideoRefusal = rep.Video, rep.VideoRefusal
	switch {
	case err == nil:
		sc.Inputs = rep.Inputs()
		sc.Problem, sc.SetFrames = framesProblem(role, sc.Frames, rep)
	case rep.Models != nil && !rep.ModelServed:
		sc.Problem = fmt.Sprintf("%s: %s: %v", filepath.Join(m.Dir, models.ManifestFile), field, err)
		if sc.Replicas > 0 {
			sc.Problem += fmt.Sprintf(" (every replica in servers must serve %q: one serving another model would mix two readers' answers)", s.Model)
		}
	default:
		sc.Problem = err.Error()
	}
	if c := rep.Reply.Choice; err == nil && c >= 0 && c < 4 {
		sc.Answer = []string{"green", "blue", "red", "black"}[c]
	}
	return sc
}

// firstProblem is the first check's problem, for the error that ends
// models check ("" when none).
func firstProblem(checks []servedCheck) string {
	for _, c := range checks {
		if c.Problem != "" {
			return c.Problem
		}
	}
	return ""
}

// framesProblem says what is wrong with how role sends its frames
// (frames, the entry's server_frames; "" for a role that sends none) to a
// server that accepted what rep says, and the server_frames to set where
// the other kind would work.
func framesProblem(role models.Role, frames string, rep openai.CheckReport) (problem, set string) {
	if !imageRoles[role] {
		return "", ""
	}
	if !rep.Images && !rep.Video {
		return fmt.Sprintf("the server refused a question with a frame (%s) and with a video (%s); %s sends frames, so it needs a vision-language model", rep.ImagesRefusal, rep.VideoRefusal, role), ""
	}
	switch {
	case role == models.RoleCaptioner && !rep.Images:
		return fmt.Sprintf("the server refused a question with a frame (%s); the captioner sends one image a request, and this model takes video only", rep.ImagesRefusal), ""
	case frames == models.ServerFramesImages && !rep.Images:
		return fmt.Sprintf("the server refused frames as images (%s) and took them as one video: set \"server_frames\": \"video\" in models.json", rep.ImagesRefusal), models.ServerFramesVideo
	case frames == models.ServerFramesVideo && !rep.Video:
		return fmt.Sprintf("the server refused frames as one video (%s) and took them as images: set \"server_frames\": \"images\" in models.json (or leave it out)", rep.VideoRefusal), models.ServerFramesImages
	}
	return "", ""
}

// writeServedChecks prints the checks as models check's text report does.
func writeServedChecks(w io.Writer, checks []servedCheck) error {
	var b strings.Builder
	for _, c := range checks {
		if c.Replicas > 0 {
			fmt.Fprintf(&b, "\n%s entry %d, replica %d of %d: served by %s, model %s\n", c.Role, c.Entry, c.Replica, c.Replicas, c.URL, c.Model)
		} else {
			fmt.Fprintf(&b, "\n%s entry %d: served by %s, model %s\n", c.Role, c.Entry, c.URL, c.Model)
		}
		if len(c.Models) > 0 {
			fmt.Fprintf(&b, "  /v1/models lists %s", strings.Join(c.Models, ", "))
			if !c.ModelServed {
				b.WriteString(" (not the model named)")
			}
			if c.MaxModelLen > 0 {
				fmt.Fprintf(&b, "; max_model_len %d", c.MaxModelLen)
			}
			b.WriteString("\n")
		}
		if c.Mode != "" {
			yes := map[bool]string{true: "yes", false: "no"}
			fmt.Fprintf(&b, "  one-token question: mode %s, log-probabilities %s, \"Answer:\" prefill %s, answered %q\n", c.Mode, yes[c.Logprobs], yes[c.Prefill], c.Answer)
			if c.Images {
				b.WriteString("  a question with a frame: answered (the model reads images)\n")
			} else if c.ImagesRefusal != "" {
				fmt.Fprintf(&b, "  a question with a frame: refused (%s)\n", c.ImagesRefusal)
			}
			if c.Video {
				b.WriteString("  a question with two frames as one video: answered (the model reads video)\n")
			} else if c.VideoRefusal != "" {
				fmt.Fprintf(&b, "  a question with two frames as one video: refused (%s)\n", c.VideoRefusal)
			}
			if len(c.Inputs) > 0 {
				fmt.Fprintf(&b, "  accepts: %s", strings.Join(c.Inputs, ", "))
				if c.Frames != "" {
					fmt.Fprintf(&b, "; frames sent as %s (server_frames)", c.Frames)
					if c.SetFrames != "" {
						fmt.Fprintf(&b, "; set \"server_frames\": %q", c.SetFrames)
					}
				}
				b.WriteString("\n")
			}
		}
		if c.Problem != "" {
			fmt.Fprintf(&b, "  problem: %s\n", c.Problem)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// servedProblems counts the checks with a problem.
func servedProblems(checks []servedCheck) int {
	n := 0
	for _, c := range checks {
		if c.Problem != "" {
			n++
		}
	}
	return n
}
