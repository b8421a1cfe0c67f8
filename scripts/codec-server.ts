// `npm run codec-server`: the codec server alone (src/temporal/codec-server.ts), for operators'
// Temporal UI and CLI. `npm start` runs one itself.
import { assertSecrets, config } from '../src/config';
import { processLogger } from '../src/observability/logger';
import { EncryptionCodec } from '../src/temporal/codec';
import { startCodecServer } from '../src/temporal/codec-server';

const logger = processLogger('codec-server');

async function main(): Promise<void> {
  assertSecrets(['TEMPORAL_CODEC_KEYS', 'CODEC_AUTH_TOKEN']);
  const cfg = config();
  if (!cfg.temporalCodec) throw new Error('TEMPORAL_CODEC is off: there is nothing to decode');
  const server = await startCodecServer({ settings: cfg.codecServer, namespace: cfg.temporalNamespace, codec: new EncryptionCodec(cfg.temporalCodec), logger });
  logger.info({ url: server.url, origins: cfg.codecServer.corsOrigins, credential: cfg.codecServer.authToken !== null }, 'codec server listening');
  const stop = () => { server.close().then(() => process.exit(0), () => process.exit(1)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  logger.error({ err: error instanceof Error ? error.message : String(error) }, 'codec server failed to start');
  process.exit(1);
});
