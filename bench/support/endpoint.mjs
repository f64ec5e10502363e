// A user's endpoint for benchmarks, in its own process: answers every POST with the capital of
// the test case's country after DELAY_MS. Prints its port on stdout. With RECORD_ARRIVALS=1,
// `GET /arrivals` answers when each request arrived, in nanoseconds of the machine's monotonic
// clock (process.hrtime.bigint, the same in every process), so a client can see how a batch
// reached it.
import { createServer } from 'node:http';

const delayMs = Number(process.env.DELAY_MS ?? 0);
const recordArrivals = process.env.RECORD_ARRIVALS === '1';
const arrivals = [];
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/arrivals') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(arrivals.map(String)));
    return;
  }
  if (recordArrivals) arrivals.push(process.hrtime.bigint());
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const { inputs } = JSON.parse(Buffer.concat(chunks).toString());
    const answer = JSON.stringify({ message: `The capital of ${inputs.country} is ${inputs.capital}.`, cost: 0.0001, latency: delayMs / 1000 });
    const send = () => {
      res.setHeader('content-type', 'application/json');
      res.end(answer);
    };
    if (delayMs > 0) setTimeout(send, delayMs);
    else send();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
