// Baseline (a) processes, started by the bench harness:
//   `worker`: a worker on its own task queue with the payments worker's settings, running
//             BaselineWorkflow and its no-op activity;
//   `server`: a bare HTTP front (no auth, no database) that answers each POST with one
//             Update-with-Start round trip, so the figure compares with POST /v1/payments over HTTP.
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { config } from '../../src/config';
import { connectTemporal } from '../../src/temporal/client';
import { workerTuning } from '../../workers/worker';
import { createBaselineActivities } from './activities';

const address = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:17340';
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const taskQueue = process.env.BASELINE_TASK_QUEUE ?? 'bench-baseline';

async function runWorker(): Promise<void> {
  const connection = await NativeConnection.connect({ address });
  const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never;
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'workflows.ts'), logger: silent }),
    activities: createBaselineActivities(),
    ...workerTuning(config()),
  });
  const stop = () => worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.log('baseline worker running');
  await worker.run();
  await connection.close();
}

async function runServer(): Promise<void> {
  const port = Number(process.env.PORT ?? 13351);
  // Bare Temporal: no payload codec, the floor the service's creates are compared with.
  const client = await connectTemporal({ temporalAddress: address, temporalNamespace: namespace, temporalCodec: null });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const workflowId = `bench_${randomUUID()}`;
      client.withDeadline(Date.now() + 25_000, () => client.workflow.executeUpdateWithStart('run', {
        startWorkflowOperation: new WithStartWorkflowOperation('BaselineWorkflow', {
          workflowId,
          taskQueue,
          args: [],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      })).then((result) => {
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ id: workflowId, result }));
      }, (error: unknown) => {
        res.writeHead(503, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: String(error) }));
      });
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  console.log(`baseline server listening on ${port}`);
  const stop = () => {
    server.close();
    server.closeAllConnections();
    client.connection.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

const mode = process.argv[2];
(mode === 'worker' ? runWorker() : mode === 'server' ? runServer() : Promise.reject(new Error('usage: main.ts worker|server')))
  .catch((error: unknown) => {
    console.error(`baseline ${mode} failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
