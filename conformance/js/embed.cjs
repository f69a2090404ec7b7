// Reads {"dir": FOLDER, "text_class": "SiglipTextModel", "vision_class":
// "SiglipVisionModel", "output": "pooler_output", "texts": [...],
// "tokenizer": {"padding": "max_length", "max_length": 64, "truncation": true},
// "lowercase": false,
// "pixels": {"dims": [n, c, h, w], "data": [...]}} and writes
// {"ids": [[...]], "text": [[...]], "image": [[...]]}: the ids the folder's
// tokenizer gives the texts with those options, and the named output of the
// two towers transformers.js loads from the folder (raw, not normalised).
// With "input_ids": [[...]] the text tower reads those rows instead of the
// tokenizer's (ids are still the tokenizer's), so the towers can be compared
// on equal inputs where the tokenizers are known to differ. texts or pixels
// may be absent.
const tf = require('@huggingface/transformers');
const { readInput } = require('./io.cjs');

function rows(t) {
  const [n, d] = t.dims;
  const out = [];
  for (let i = 0; i < n; i++) out.push(Array.from(t.data.slice(i * d, (i + 1) * d)));
  return out;
}

(async () => {
  const req = await readInput();
  tf.env.allowRemoteModels = false;
  tf.env.localModelPath = '/';
  const output = req.output || 'pooler_output';
  const res = {};
  if (req.texts && req.texts.length) {
    const tok = await tf.AutoTokenizer.from_pretrained(req.dir);
    // "lowercase": the texts go to the tokenizer lowercased by JavaScript's
    // toLowerCase, standing in for the Lowercase normalizer transformers'
    // Siglip2Tokenizer puts first (both lowercase character by character,
    // but for a word-final capital sigma, which JavaScript makes final).
    const texts = req.lowercase ? req.texts.map((s) => s.toLowerCase()) : req.texts;
    const enc = tok(texts, Object.assign({ padding: true, truncation: true }, req.tokenizer || {}));
    res.ids = rows(enc.input_ids).map((r) => r.map(Number));
    const model = await tf[req.text_class].from_pretrained(req.dir, { dtype: 'fp32' });
    let feed = enc;
    if (req.input_ids) {
      const flat = req.input_ids.flat().map((v) => BigInt(v));
      feed = { input_ids: new tf.Tensor('int64', BigInt64Array.from(flat), [req.input_ids.length, req.input_ids[0].length]) };
    }
    const out = await model(feed);
    res.text = rows(out[output]);
  }
  if (req.pixels) {
    const model = await tf[req.vision_class].from_pretrained(req.dir, { dtype: 'fp32' });
    const px = new tf.Tensor('float32', Float32Array.from(req.pixels.data), req.pixels.dims);
    const out = await model({ pixel_values: px });
    res.image = rows(out[output]);
  }
  process.stdout.write(JSON.stringify(res));
})().catch((e) => { console.error(e); process.exit(1); });
