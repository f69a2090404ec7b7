// Reads {"dir": FOLDER, "tracks": [BASE64...], "language": CODE or absent,
// "skip": N}
// (16 kHz mono little-endian float32 samples, each at most 30 s) and writes what transformers.js's
// Whisper makes of each track, loading the folder as its own layout
// (onnx/encoder_model.onnx, onnx/decoder_model_merged.onnx, config.json,
// generation_config.json, preprocessor_config.json, tokenizer.json):
// [{"ids": [every token generate returns, the prompt first], "text": the
// text of the ids after the first N, special tokens left out}].
const { env, AutoFeatureExtractor, AutoTokenizer, WhisperForConditionalGeneration } = require('@huggingface/transformers');
const { readInput } = require('./io.cjs');

function floats(b64) {
  const buf = Buffer.from(b64, 'base64');
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
}

(async () => {
  const req = await readInput();
  env.allowRemoteModels = false;
  env.localModelPath = '/';
  const extractor = await AutoFeatureExtractor.from_pretrained(req.dir);
  const tokenizer = await AutoTokenizer.from_pretrained(req.dir);
  const model = await WhisperForConditionalGeneration.from_pretrained(req.dir, { dtype: 'fp32', device: 'cpu' });
  const out = [];
  for (const t of req.tracks) {
    const { input_features } = await extractor(floats(t));
    const seq = await model.generate({ inputs: input_features, ...(req.language ? { language: req.language } : {}) });
    const ids = Array.from(seq.tolist()[0], Number);
    out.push({ ids, text: tokenizer.decode(ids.slice(req.skip ?? 0), { skip_special_tokens: true }) });
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
