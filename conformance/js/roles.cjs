// Runs the roles of a `vidscreen models init` folder the way a user of
// transformers.js would, loading each role's folder as it is:
//   image_text: CLIPTextModelWithProjection on the texts (AutoTokenizer,
//     padded batch) and CLIPVisionModelWithProjection on the given
//     pixel_values; embeddings divided by their norm, as CLIPModel does;
//   text_embed, dup_confirm: the feature-extraction pipeline with the
//     role's pooling ("cls" or "mean") and normalize;
//   captioner: VisionEncoderDecoderModel.generate, greedy, one image at a
//     time, max_new_tokens as given;
//   lm_reader: AutoModelForCausalLM forward on each id sequence; the last
//     position's logits become, per option letter, the log-sum-exp of the
//     log-softmax at the letter's token ids.
//   a text longer than the roles' max_length: the ids transformers.js's
//     truncation gives, and each text model on the ids vidscreen gives,
//     pooled (cls for text_embed, mean for dup_confirm) and normalised here.
//   lm_reader generate: greedy with the key-value cache, from each of
//     lm.generate's sequences, max_new_tokens new tokens (EOS included);
//   vlm_reader: LlavaForConditionalGeneration forward on each prompt's ids
//     (the image token once per feature row) and pixels, letter
//     log-probabilities as for lm_reader, and greedy generation from it;
//   the readers' chat template: apply_chat_template on each conversation
//     of chat, with the generation prompt, not tokenized.
// Request: {dir, clip: {texts, pixels: {n, c, h, w, data}}, embed: {texts},
// long: {text, ids: {role: ids}}, caption: {pixels, max_new_tokens},
// lm: {seqs, letters, options, generate, max_new_tokens},
// vlm: {prompts: [{ids, pixels, options}]}, chat: [messages]}.
// Reply: the ids the tokenizers gave, the vectors, captions and scores.
const T = require('@huggingface/transformers');
const { readInput } = require('./io.cjs');

const { env, Tensor, AutoTokenizer, CLIPTextModelWithProjection, CLIPVisionModelWithProjection,
  AutoModelForCausalLM, AutoModelForImageTextToText, VisionEncoderDecoderModel, pipeline } = T;

function unitRows(t) {
  const [n, d] = t.dims;
  const out = [];
  for (let i = 0; i < n; i++) {
    const row = Array.from(t.data.slice(i * d, (i + 1) * d), Number);
    const norm = Math.sqrt(row.reduce((s, x) => s + x * x, 0));
    out.push(row.map((x) => x / norm));
  }
  return out;
}

function images(p) {
  const size = p.c * p.h * p.w;
  const out = [];
  for (let i = 0; i < p.n; i++) {
    out.push(new Tensor('float32', Float32Array.from(p.data.slice(i * size, (i + 1) * size)), [1, p.c, p.h, p.w]));
  }
  return out;
}

// ids tokenizes each text as the pipelines do: special tokens added, cut
// at the tokenizer's model_max_length.
function ids(tok, texts) {
  return texts.map((s) => tok(s, { truncation: true }).input_ids.tolist()[0].map(Number));
}

function logSumExp(v) {
  const m = Math.max(...v);
  if (m === -Infinity) return m;
  return m + Math.log(v.reduce((s, x) => s + Math.exp(x - m), 0));
}

(async () => {
  const req = await readInput();
  env.allowRemoteModels = false;
  env.localModelPath = '/';
  const dir = (role) => `${req.dir}/${role}`;
  const out = {};

  const clipTok = await AutoTokenizer.from_pretrained(dir('image_text'));
  out.clip_ids = ids(clipTok, req.clip.texts);
  const textModel = await CLIPTextModelWithProjection.from_pretrained(dir('image_text'));
  const { text_embeds } = await textModel(clipTok(req.clip.texts, { padding: true, truncation: true }));
  out.clip_text = unitRows(text_embeds);
  const visionModel = await CLIPVisionModelWithProjection.from_pretrained(dir('image_text'));
  out.clip_image = [];
  for (const px of images(req.clip.pixels)) {
    const { image_embeds } = await visionModel({ pixel_values: px });
    out.clip_image.push(...unitRows(image_embeds));
  }

  for (const [role, pooling] of [['text_embed', 'cls'], ['dup_confirm', 'mean']]) {
    const tok = await AutoTokenizer.from_pretrained(dir(role));
    out[role + '_ids'] = ids(tok, req.embed.texts);
    const extract = await pipeline('feature-extraction', dir(role));
    const v = await extract(req.embed.texts, { pooling, normalize: true });
    out[role] = v.tolist();
  }

  // The long text: transformers.js's own truncation, and the model on the
  // ids vidscreen gives (which keep the final special token, as Python
  // transformers' truncation does).
  out.long_ids = {};
  out.long_vec = {};
  for (const role of ['image_text', 'text_embed', 'dup_confirm']) {
    const tok = await AutoTokenizer.from_pretrained(dir(role));
    out.long_ids[role] = ids(tok, [req.long.text])[0];
    const seq = req.long.ids[role];
    const input_ids = new Tensor('int64', BigInt64Array.from(seq, BigInt), [1, seq.length]);
    const attention_mask = new Tensor('int64', new BigInt64Array(seq.length).fill(1n), [1, seq.length]);
    if (role === 'image_text') {
      const { text_embeds } = await textModel({ input_ids, attention_mask });
      out.long_vec[role] = unitRows(text_embeds)[0];
      continue;
    }
    const extract = await pipeline('feature-extraction', dir(role));
    const { last_hidden_state: h } = await extract.model({ input_ids, attention_mask });
    const d = h.dims[2];
    const pooled = new Array(d).fill(0);
    const rows = role === 'text_embed' ? 1 : seq.length;
    for (let i = 0; i < rows; i++) for (let k = 0; k < d; k++) pooled[k] += h.data[i * d + k] / rows;
    const norm = Math.sqrt(pooled.reduce((a, x) => a + x * x, 0));
    out.long_vec[role] = pooled.map((x) => x / norm);
  }

  const capTok = await AutoTokenizer.from_pretrained(dir('captioner'));
  const captioner = await VisionEncoderDecoderModel.from_pretrained(dir('captioner'));
  out.captions = [];
  out.caption_texts = [];
  for (const px of images(req.caption.pixels)) {
    const seq = await captioner.generate({ pixel_values: px, max_new_tokens: req.caption.max_new_tokens });
    const row = seq.tolist()[0].map(Number);
    out.captions.push(row);
    out.caption_texts.push(capTok.decode(row, { skip_special_tokens: true }));
  }

  const lm = await AutoModelForCausalLM.from_pretrained(dir('lm_reader'));
  out.lm = [];
  for (let i = 0; i < req.lm.seqs.length; i++) {
    const seq = req.lm.seqs[i];
    const input_ids = new Tensor('int64', BigInt64Array.from(seq, BigInt), [1, seq.length]);
    const attention_mask = new Tensor('int64', new BigInt64Array(seq.length).fill(1n), [1, seq.length]);
    const { logits } = await lm({ input_ids, attention_mask });
    const vocab = logits.dims[2];
    const last = Array.from(logits.data.slice((seq.length - 1) * vocab, seq.length * vocab), Number);
    const lz = logSumExp(last);
    const scores = [];
    for (let l = 0; l < req.lm.options[i]; l++) {
      scores.push(logSumExp(req.lm.letters[l].map((id) => last[id] - lz)));
    }
    out.lm.push(scores);
  }
  // Generation through the cache: greedy, from each sequence.
  out.lm_generated = [];
  for (const seq of req.lm.generate) {
    const input_ids = new Tensor('int64', BigInt64Array.from(seq, BigInt), [1, seq.length]);
    const attention_mask = new Tensor('int64', new BigInt64Array(seq.length).fill(1n), [1, seq.length]);
    const ids = await lm.generate({ input_ids, attention_mask, max_new_tokens: req.lm.max_new_tokens, do_sample: false });
    out.lm_generated.push(ids.tolist()[0].map(Number).slice(seq.length));
  }

  // vlm_reader: LlavaForConditionalGeneration on input_ids holding the
  // image token once per feature row, and the prompt's images.
  const vlm = await AutoModelForImageTextToText.from_pretrained(dir('vlm_reader'));
  out.vlm_class = vlm.constructor.name;
  out.vlm = [];
  out.vlm_generated = [];
  for (const p of req.vlm.prompts) {
    const input_ids = new Tensor('int64', BigInt64Array.from(p.ids, BigInt), [1, p.ids.length]);
    const attention_mask = new Tensor('int64', new BigInt64Array(p.ids.length).fill(1n), [1, p.ids.length]);
    const inputs = { input_ids, attention_mask };
    if (p.pixels.n > 0) {
      inputs.pixel_values = new Tensor('float32', Float32Array.from(p.pixels.data), [p.pixels.n, p.pixels.c, p.pixels.h, p.pixels.w]);
    }
    const { logits } = await vlm(inputs);
    const vocab = logits.dims[2];
    const last = Array.from(logits.data.slice((p.ids.length - 1) * vocab, p.ids.length * vocab), Number);
    const lz = logSumExp(last);
    const scores = [];
    for (let l = 0; l < p.options; l++) {
      scores.push(logSumExp(req.lm.letters[l].map((id) => last[id] - lz)));
    }
    out.vlm.push(scores);
    const gen = await vlm.generate({ ...inputs, max_new_tokens: req.lm.max_new_tokens, do_sample: false });
    out.vlm_generated.push(gen.tolist()[0].map(Number).slice(p.ids.length));
  }

  // The readers' chat template, rendered by @huggingface/jinja.
  const chatTok = await AutoTokenizer.from_pretrained(dir('lm_reader'));
  out.chat = req.chat.map((messages) => chatTok.apply_chat_template(messages, { tokenize: false, add_generation_prompt: true }));
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
