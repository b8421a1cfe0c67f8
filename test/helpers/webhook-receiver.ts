// A real local HTTP endpoint for webhook tests: records what arrives, answers as told.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  json: { id: string; type: string; created_at: number; livemode: boolean; data: { object: Record<string, any> } };
  at: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Answers in order; the last one repeats. 'hang' never answers. */
  respondWith(...answers: Array<number | 'hang'>): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let answers: Array<number | 'hang'> = [200];
  let served = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let json: ReceivedWebhook['json'];
      try { json = JSON.parse(body); } catch { json = { id: '', type: '', created_at: 0, livemode: false, data: { object: {} } }; }
      received.push({ headers, body, json, at: Date.now() });
      const answer = answers[Math.min(served, answers.length - 1)]!;
      served += 1;
      if (answer === 'hang') return; // never answer: the sender must time out
      res.writeHead(answer, { 'Content-Type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    respondWith(...next) { answers = next; served = 0; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
