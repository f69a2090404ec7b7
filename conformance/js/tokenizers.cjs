// Reads {"dir": FOLDER, "texts": [...]} and writes, for each text in order,
// the ids transformers.js's AutoTokenizer gives with and without the
// special tokens, untruncated, and the text it decodes from the first ids
// with the special tokens skipped: {"class": NAME, "special": [[ids]...],
// "plain": [[ids]...], "decoded": [text...]}. One load serves all three:
// the large vocabularies (Gemma's 262,144 tokens) take seconds to read.
const { env, AutoTokenizer } = require('@huggingface/transformers');
const { readInput } = require('./io.cjs');

(async () => {
  const req = await readInput();
  env.allowRemoteModels = false;
  env.localModelPath = '/';
  const tok = await AutoTokenizer.from_pretrained(req.dir);
  const enc = (s, special) => Array.from(tok.encode(s, { add_special_tokens: special }));
  const out = {
    class: tok.constructor.name,
    special: req.texts.map((s) => enc(s, true)),
    plain: req.texts.map((s) => enc(s, false)),
  };
  // decode refuses an empty list; the empty text decodes to "".
  out.decoded = out.special.map((ids) => (ids.length ? tok.decode(ids, { skip_special_tokens: true }) : ''));
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
