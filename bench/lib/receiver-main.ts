// The bench's webhook endpoint, in its own process so the load generator's event loop does not
// delay arrival stamps. It answers 200 at once and remembers (object id, event type, arrival ms,
// path: a merchant's endpoints differ by path); GET /received hands the list to the harness,
// DELETE /received clears it. Paths under /down stand for an endpoint that is down: 503, not kept,
// only counted (GET /down answers how many attempts it refused since the last DELETE /received).
import http from 'node:http';

interface Arrival {
  objectId: string;
  type: string;
  createdAt: number;
  arrivedAtMs: number;
  path: string;
}

const port = Number(process.env.PORT ?? 13359);
let arrivals: Arrival[] = [];
let downAttempts = 0;

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/received') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(arrivals));
    return;
  }
  if (req.method === 'GET' && req.url === '/down') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ attempts: downAttempts }));
    return;
  }
  if (req.method === 'DELETE' && req.url === '/received') {
    arrivals = [];
    downAttempts = 0;
    res.writeHead(204).end();
    return;
  }
  if (req.url?.startsWith('/down')) {
    downAttempts += 1;
    req.resume();
    req.on('end', () => res.writeHead(503).end());
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const arrivedAtMs = Date.now();
    try {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; created_at: number; data: { object: { id: string } } };
      arrivals.push({ objectId: event.data.object.id, type: event.type, createdAt: event.created_at, arrivedAtMs, path: req.url ?? '' });
    } catch {
      // not an event: still answered, never recorded
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => console.log(`webhook receiver listening on ${port}`));
const stop = () => { server.close(); server.closeAllConnections(); process.exit(0); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
