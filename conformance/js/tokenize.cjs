// Reads {"dir": FOLDER, "texts": [...], "special": bool} and writes the ids
// transformers.js's AutoTokenizer gives each text, in order: [[ids]...].
const { env, AutoTokenizer } = require('@huggingface/transformers');
const { readInput } = require('./io.cjs');

(async () => {
  const req = await readInput();
  env.allowRemoteModels = false;
  env.localModelPath = '/';
  const tok = await AutoTokenizer.from_pretrained(req.dir);
  const out = req.texts.map((s) => Array.from(tok.encode(s, { add_special_tokens: req.special !== false })));
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
