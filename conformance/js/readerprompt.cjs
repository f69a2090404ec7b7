// Reads {"dir": FOLDER, "chats": [{"messages": [...]}]} and writes, per chat,
// what transformers.js makes of it with the folder's tokenizer and chat
// template: the chat rendered by tokenizer.apply_chat_template (the final
// assistant turn continued: the text cut right after the final message's
// trimmed text, as Python transformers' continue_final_message cuts, which
// transformers.js lacks) and its ids without added special tokens, as
// apply_chat_template(tokenize: true) encodes: [{text, ids}...].
const { env, AutoTokenizer } = require('@huggingface/transformers');
const { readInput } = require('./io.cjs');

(async () => {
  const req = await readInput();
  env.allowRemoteModels = false;
  env.localModelPath = '/';
  const tok = await AutoTokenizer.from_pretrained(req.dir);
  const out = req.chats.map((c) => {
    let text = tok.apply_chat_template(c.messages, { tokenize: false, add_generation_prompt: false, date_string: '26 Jul 2024' });
    const final = c.messages[c.messages.length - 1].content.trim();
    text = text.slice(0, text.lastIndexOf(final) + final.length);
    return { text, ids: Array.from(tok.encode(text, { add_special_tokens: false })) };
  });
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
