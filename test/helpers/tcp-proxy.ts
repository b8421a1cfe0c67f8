// A TCP proxy a test controls, to cut one process off a service (its database, Temporal) while the
// others keep theirs: `cut()` resets every connection through it and refuses new ones, as a
// database that went down does; `restore()` lets connections through again.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** host:port to give the process instead of the service's own. */
  address: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    open.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const cutAll = () => {
    cut = true;
    for (const socket of open) socket.resetAndDestroy();
    open.clear();
  };
  return {
    port,
    address: `127.0.0.1:${port}`,
    cut: cutAll,
    restore() {
      cut = false;
    },
    close() {
      cutAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
