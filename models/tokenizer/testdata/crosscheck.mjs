// Encodes texts with @huggingface/tokenizers (the JavaScript port of the
// HF tokenizers library), for TestCrossCheckJS.
// Usage: node crosscheck.mjs NODE_MODULES_PARENT TOKENIZER_JSON TEXTS_JSON OUT_JSON
import { createRequire } from "module";
import fs from "fs";
const [, , modulesDir, tokFile, textsFile, outFile] = process.argv;
const { Tokenizer } = createRequire(modulesDir + "/")("@huggingface/tokenizers");
const tok = new Tokenizer(JSON.parse(fs.readFileSync(tokFile, "utf8")), {});
const texts = JSON.parse(fs.readFileSync(textsFile, "utf8"));
const out = texts.map((t) => {
  const e = tok.encode(t, { add_special_tokens: true });
  return { ids: e.ids, decoded: tok.decode(e.ids, { skip_special_tokens: true }) };
});
fs.writeFileSync(outFile, JSON.stringify(out));
