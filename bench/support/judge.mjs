// A local OpenAI-compatible judge for benchmarks, in its own process: answers every
// POST /v1/chat/completions after DELAY_MS with a score and usage. Prints its port on stdout.
// `GET /stats` answers how many calls it took and the most it held at once.
import { createServer } from 'node:http';

const delayMs = Number(process.env.DELAY_MS ?? 50);
let calls = 0;
let inFlight = 0;
let maxInFlight = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ calls, maxInFlight }));
    return;
  }
  req.resume();
  req.on('end', () => {
    calls += 1;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight -= 1;
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: `chatcmpl-${calls}`,
          object: 'chat.completion',
          model: 'gpt-4o-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: '{"score": 8}' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 },
        }),
      );
    }, delayMs);
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
