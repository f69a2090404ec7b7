// Reads {"dir": FOLDER, "chats": [{"messages": [...], "options": n}],
// "model": bool} and writes, per chat, what transformers.js makes of it with
// the folder's tokenizer and chat template: the chat rendered by
// tokenizer.apply_chat_template (the final assistant turn continued: the
// text cut right after the final message's trimmed text, as Python
// transformers' continue_final_message cuts, which transformers.js lacks)
// and its ids without added special tokens, as
// apply_chat_template(tokenize: true) encodes; with "model", also the
// letters' log-probabilities at the last position from
// AutoModelForCausalLM on the folder's onnx/model.onnx (log-softmax over
// the vocabulary, the single-token variants "L" and " L" of each letter
// merged by log-sum-exp) for a prompt of at most "max_length" tokens (the
// reader's limit): [{text, ids, letters}...].
const { env, AutoModelForCausalLM, AutoTokenizer, Tensor } = require('@huggingface/transformers');
const { readInput } = require('./io.cjs');

function logSumExp(v) {
  const m = Math.max(...v);
  return m + Math.log(v.reduce((s, x) => s + Math.exp(x - m), 0));
}

(async () => {
  const req = await readInput();
  env.allowRemoteModels = false;
  env.localModelPath = '/';
  const tok = await AutoTokenizer.from_pretrained(req.dir);
  const model = req.model ? await AutoModelForCausalLM.from_pretrained(req.dir, { dtype: 'fp32' }) : null;
  const out = [];
  for (const c of req.chats) {
    let text = tok.apply_chat_template(c.messages, { tokenize: false, add_generation_prompt: false, date_string: '26 Jul 2024' });
    const final = c.messages[c.messages.length - 1].content.trim();
    text = text.slice(0, text.lastIndexOf(final) + final.length);
    const ids = Array.from(tok.encode(text, { add_special_tokens: false }));
    const row = { text, ids };
    if (model && ids.length <= req.max_length) {
      const input_ids = new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]);
      const attention_mask = new Tensor('int64', BigInt64Array.from(ids.map(() => 1n)), [1, ids.length]);
      const { logits } = await model({ input_ids, attention_mask });
      const vocab = logits.dims[2];
      const last = Array.from(logits.data.slice((ids.length - 1) * vocab, ids.length * vocab));
      const lz = logSumExp(last);
      row.letters = [];
      for (let j = 0; j < c.options; j++) {
        const L = String.fromCharCode(65 + j);
        const vids = [...new Set([L, ' ' + L].map((s) => tok.encode(s, { add_special_tokens: false })).filter((e) => e.length === 1).map((e) => e[0]))];
        row.letters.push(logSumExp(vids.map((id) => last[id] - lz)));
      }
    }
    out.push(row);
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
