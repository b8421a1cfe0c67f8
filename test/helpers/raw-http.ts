// Raw HTTP/1.1 over a socket, for requests an HTTP client would refuse to send: malformed framing,
// oversized or numerous headers, bodies that stop half way, headers that never end.
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  json: any;
  /** Milliseconds from the first byte sent to the first byte of the answer. */
  ms: number;
}

export interface RawExchange {
  /** The first answer, or null when none came. */
  answer: RawAnswer | null;
  /** Whether the server closed the connection before `waitMs` ran out. */
  closed: boolean;
  error: string | null;
}

function parseAnswer(raw: string, ms: number): RawAnswer | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headers['content-length'] !== undefined ? Number(headers['content-length']) : undefined;
  const body = Buffer.from(raw.slice(end + 4), 'latin1').subarray(0, length).toString('utf8');
  let json: unknown = null;
  try { json = JSON.parse(body); } catch { json = null; }
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers, body, json, ms };
}

/**
 * Writes `parts` (each after `gapMs`), then waits for the server to close the connection, at most
 * `waitMs` after the last part, and reads the first answer.
 */
export function exchange(baseUrl: string, parts: Array<string | Buffer>, options: { waitMs?: number; gapMs?: number } = {}): Promise<RawExchange> {
  const url = new URL(baseUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  const chunks: Buffer[] = [];
  let started = 0;
  let firstByte: number | null = null;
  let error: string | null = null;
  let closed = false;
  socket.on('data', (chunk: Buffer) => {
    firstByte ??= Date.now();
    chunks.push(chunk);
  });
  socket.on('error', (e: NodeJS.ErrnoException) => { error = e.code ?? e.message; });
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString('latin1');
      resolve({ answer: firstByte === null ? null : parseAnswer(raw, firstByte - started), closed, error });
    };
    let timer = setTimeout(finish, 60_000);
    socket.once('close', () => {
      closed = true;
      finish();
    });
    socket.once('connect', async () => {
      started = Date.now();
      for (const [index, part] of parts.entries()) {
        if (index > 0 && options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs));
        if (!socket.destroyed) socket.write(part);
      }
      clearTimeout(timer);
      timer = setTimeout(finish, options.waitMs ?? 5_000);
    });
  });
}

/** A request head (request line and headers) with the blank line that ends it. */
export function head(method: string, path: string, headers: Record<string, string>): string {
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
}
