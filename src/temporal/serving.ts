// When a Temporal server is ready. A listening port is not yet a serving server: the frontend takes
// connections before its namespaces are loaded, and a server just restarted, or one just given a
// namespace, answers "namespace not found" for a while. Everything that starts a server or waits
// for one to come back (the dev server, the bench's PostgreSQL-backed one, the topology test) waits
// here, on the namespace its clients will use.
import { Connection } from '@temporalio/client';

/** Resolves once the server at `address` describes `namespace`; throws after `timeoutMs`. */
export async function untilTemporalServes(address: string, options: { namespace?: string; timeoutMs?: number } = {}): Promise<void> {
  const { namespace = 'default', timeoutMs = 120_000 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2000 });
      try {
        // A server that takes the connection and then hangs must not hold the wait past its deadline.
        await connection.withDeadline(Date.now() + 5000, () => connection.workflowService.describeNamespace({ namespace }));
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`Temporal at ${address} did not serve namespace ${namespace} within ${timeoutMs} ms: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
