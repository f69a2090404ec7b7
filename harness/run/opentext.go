package run

import (
	"fmt"
	"path/filepath"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/spread"
	"github.com/vidscreen/vidscreen/harness/textembed/onnxembed"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/served"
)

// textEncoders opens text_embed, and dup_confirm when listed, on every
// device behind one spread embedder each; without text_embed the item
// texts are embedded lexically, said once.
func (o *opener) textEncoders() error {
	if !o.has(models.RoleTextEmbed) {
		fmt.Fprintf(o.env.Stderr, "vidscreen audit: %s has no text_embed role: item texts are embedded lexically\n", filepath.Join(o.dir, models.ManifestFile))
		return nil
	}
	embed := &spread.TextEmbedder{Pool: o.pool, Work: string(models.RoleTextEmbed)}
	confirm := &spread.TextEmbedder{Pool: o.pool, Work: string(models.RoleDupConfirm)}
	for _, dev := range o.devs {
		tm, err := onnxembed.OpenModels(o.rt, o.m, dev)
		if err != nil {
			return o.bad(err)
		}
		o.out.closes = append(o.out.closes, tm.Close)
		embed.Encoders = append(embed.Encoders, tm.Embed)
		if tm.Confirm != nil {
			confirm.Encoders = append(confirm.Encoders, tm.Confirm)
		}
	}
	o.out.embed = embed
	if len(confirm.Encoders) > 0 {
		o.out.confirm = confirm
	}
	return nil
}

// lmReaders opens lm_reader's entries: the first is the pyramid's reader,
// the later ones further models of the Video-Oasis blind test
// (blind-reader#2, #3, ... in the list's order), each ONNX files on every
// device or a server.
func (o *opener) lmReaders() error {
	for k, espec := range o.m.Entries(models.RoleLMReader) {
		r, name, err := o.lmReader(k, espec)
		if err != nil {
			return err
		}
		if k == 0 {
			o.out.Reader, o.out.ReaderName = r, name
		} else {
			o.out.extra, o.out.extraNames = append(o.out.extra, r), append(o.out.extraNames, name)
		}
	}
	return nil
}

// lmReader opens lm_reader's entry k and names it.
func (o *opener) lmReader(k int, espec models.RoleSpec) (attack.LetterReader, string, error) {
	if espec.Served() {
		cfg, err := servedConfig(o.m, models.RoleLMReader, k, espec, o.store, o.env)
		if err != nil {
			return nil, "", err
		}
		l, err := served.NewLetters(cfg)
		if err != nil {
			return nil, "", o.bad(err)
		}
		o.out.served = append(o.out.served, l)
		return l, served.NameWording(string(models.RoleLMReader), cfg.Server, cfg.Wording), nil
	}
	em := o.m.Entry(models.RoleLMReader, k)
	scorers, err := onDevices(o, func(dev gpu.Device) (*models.LetterScorer, error) { return o.rt.OpenLetterScorer(em, dev) })
	if err != nil {
		if k > 0 {
			err = fmt.Errorf("lm_reader entry %d: %w", k+1, err)
		}
		return nil, "", o.bad(err)
	}
	lr := &spread.LetterReader{Pool: o.pool, Work: string(models.RoleLMReader)}
	for _, s := range scorers {
		lr.Readers = append(lr.Readers, s)
	}
	folder, spec, _ := em.Folder(models.RoleLMReader)
	name, err := models.RoleName(models.RoleLMReader, folder, spec)
	if err != nil {
		return nil, "", o.bad(err)
	}
	w, err := letters.LoadWording(o.m.Dir)
	if err != nil {
		return nil, "", o.bad(err)
	}
	return lr, name + w.Tag(), nil
}
