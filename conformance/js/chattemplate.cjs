// Reads {"cases": [{"template", "messages", "add_generation_prompt",
// "continue_final_message", "special": {bos_token: ...}}]} and writes, per
// case, the text @huggingface/jinja (the engine transformers.js's
// apply_chat_template renders with) makes of it: [text...]. With
// continue_final_message the whole chat is rendered and cut right after
// the final message's trimmed text, as transformers does. date_string is
// vidscreen's fixed date (chattemplate.FixedDate), which Go passes too, so
// that Llama 3.2's rendering does not depend on the day.
const { Template } = require('@huggingface/jinja');
const { readInput } = require('./io.cjs');

(async () => {
  const req = await readInput();
  const out = req.cases.map((c) => {
    const t = new Template(c.template);
    let text = t.render({
      messages: c.messages,
      add_generation_prompt: c.add_generation_prompt,
      date_string: '26 Jul 2024',
      ...c.special,
    });
    if (c.continue_final_message) {
      let final = c.messages[c.messages.length - 1].content;
      if (Array.isArray(final)) final = [...final].reverse().find((p) => 'text' in p).text;
      final = final.trim();
      text = text.slice(0, text.lastIndexOf(final) + final.length);
    }
    return text;
  });
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
