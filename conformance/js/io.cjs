// Shared by the reference scripts: the request is one JSON value on stdin.
async function readInput() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
module.exports = { readInput };
