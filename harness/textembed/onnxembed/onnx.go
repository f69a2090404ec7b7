// Package onnxembed holds the text embedders run by ONNX Runtime (BGE for
// text_embed, MPNet for dup_confirm), apart from harness/textembed so that
// the readers of a finished run link the lexical embedder and the
// interfaces without the models.
package onnxembed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models"
)

// ONNX is a textembed.TextEmbedder backed by a models.TextEncoder: BGE (text_embed)
// or MPNet (dup_confirm) run by ONNX Runtime. Its Name carries a hash of the
// model and tokenizer files, so that run caches and run configurations name
// the exact weights, not just a folder that may be refilled.
type ONNX struct {
	enc  *models.TextEncoder
	name string
}

// NewONNX wraps enc. files are the files whose bytes decide its vectors
// (its model and its tokenizer); each one's SHA-256 goes into Name.
func NewONNX(enc *models.TextEncoder, files ...string) (*ONNX, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "onnx:%s", enc.Name())
	for _, f := range files {
		sum, err := hashFile(f)
		if err != nil {
			return nil, err
		}
		// 16 hex digits (64 bits) tell apart any two model files a user
		// will ever have, and keep the name readable in config.json.
		fmt.Fprintf(&b, ":%s=sha256:%s", filepath.Base(f), sum[:16])
	}
	return &ONNX{enc: enc, name: b.String()}, nil
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("hash model file: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Name says which encoder this is: its folder, pooling, maximum length and
// the hashes of its files.
func (o *ONNX) Name() string { return o.name }

// Dim is the encoder's hidden size.
func (o *ONNX) Dim() int { return o.enc.Dim() }

// Embed returns the encoder's unit rows. A text with no visible characters
// gives a zero row, as textembed.TextEmbedder asks (the encoder would otherwise embed
// its bare [CLS] [SEP], which is near every other short text).
func (o *ONNX) Embed(ctx context.Context, texts []string) (*kernels.Matrix, error) {
	m := kernels.NewMatrix(len(texts), o.enc.Dim())
	var idx []int
	var nonEmpty []string
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			idx = append(idx, i)
			nonEmpty = append(nonEmpty, t)
		}
	}
	if len(nonEmpty) == 0 {
		return m, nil
	}
	rows, err := o.enc.Embed(ctx, nonEmpty)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.enc.Name(), err)
	}
	var bad *textembed.NonFiniteError
	for j, i := range idx {
		if len(rows[j]) != m.Cols {
			return nil, fmt.Errorf("%s: row of %d values, want %d", o.enc.Name(), len(rows[j]), m.Cols)
		}
		// A NaN would pass unnoticed into every similarity of the item
		// (no near-duplicates, no neighbours): the output is refused,
		// naming the texts, and a caller that can fail those texts alone
		// takes the other rows from the error.
		if err := kernels.CheckFiniteVector(rows[j]); err != nil {
			if bad == nil {
				bad = &textembed.NonFiniteError{Model: o.enc.Name(), Embeddings: m, Err: err}
			}
			bad.Rows = append(bad.Rows, i)
			bad.Texts = append(bad.Texts, texts[i])
			continue
		}
		copy(m.Row(i), rows[j])
	}
	if bad != nil {
		return nil, bad
	}
	return m, nil
}

// Close releases the encoder's session.
func (o *ONNX) Close() error { return o.enc.Session().Close() }

// Models holds the embedders a models directory gives an audit.
type Models struct {
	// Embed is the text_embed role (BGE): it embeds every item for the
	// pool attackers and finds the near-duplicate pairs.
	Embed *ONNX
	// Confirm is the dup_confirm role (MPNet), nil when the manifest has
	// none: it confirms the pairs Embed finds.
	Confirm *ONNX
}

// OpenModels opens the text_embed role of m, and its dup_confirm role when
// the manifest lists one, on dev.
func OpenModels(rt *models.Runtime, m *models.Manifest, dev gpu.Device) (*Models, error) {
	open := func(role models.Role) (*ONNX, error) {
		enc, err := rt.OpenTextEncoder(m, role, dev)
		if err != nil {
			return nil, err
		}
		dir, spec, err := m.Folder(role)
		if err != nil {
			enc.Session().Close()
			return nil, err
		}
		tok := spec.Tokenizer
		if tok == "" {
			tok = "tokenizer.json"
		}
		o, err := NewONNX(enc, enc.Session().Path(), filepath.Join(dir, tok))
		if err != nil {
			enc.Session().Close()
			return nil, err
		}
		return o, nil
	}
	e, err := open(models.RoleTextEmbed)
	if err != nil {
		return nil, err
	}
	out := &Models{Embed: e}
	if _, ok := m.Roles[models.RoleDupConfirm]; ok {
		if out.Confirm, err = open(models.RoleDupConfirm); err != nil {
			e.Close()
			return nil, err
		}
	}
	return out, nil
}

// Close releases every session.
func (m *Models) Close() error {
	err := m.Embed.Close()
	if m.Confirm != nil {
		err = errors.Join(err, m.Confirm.Close())
	}
	return err
}
