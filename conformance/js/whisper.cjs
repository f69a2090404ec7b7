// Reads {"dirs": {"80": FOLDER, ...}, "cases": [{"mels": 80, "samples":
// BASE64}]} and writes, per case, the log-mel features transformers.js's
// WhisperFeatureExtractor (loaded by AutoFeatureExtractor from the folder's
// preprocessor_config.json) computes for the samples: [{"dims": [...],
// "features": BASE64}]. Samples and features are little-endian float32.
const { env, AutoFeatureExtractor } = require('@huggingface/transformers');
const { readInput } = require('./io.cjs');

function floats(b64) {
  const buf = Buffer.from(b64, 'base64');
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
}

(async () => {
  const req = await readInput();
  env.allowRemoteModels = false;
  env.localModelPath = '/';
  const extractors = {};
  for (const [mels, dir] of Object.entries(req.dirs)) {
    extractors[mels] = await AutoFeatureExtractor.from_pretrained(dir);
  }
  const out = [];
  for (const c of req.cases) {
    const { input_features } = await extractors[String(c.mels)](floats(c.samples));
    const data = Float32Array.from(input_features.data);
    out.push({ dims: input_features.dims, features: Buffer.from(data.buffer).toString('base64') });
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
