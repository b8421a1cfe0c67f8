// `npm run api`: the HTTP API alone (the worker, Temporal and the database run elsewhere).
import { config } from '../config';
import { createLogger } from '../observability/logger';
import { startApi } from './server';

const logger = createLogger('api', config().logLevel);
startApi(config(), logger).then((api) => {
  logger.info({ url: api.url }, 'API listening');
  const stop = () => { api.close().then(() => process.exit(0), () => process.exit(1)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}, (error: unknown) => {
  logger.error({ err: error instanceof Error ? error.message : String(error) }, 'API failed to start');
  process.exit(1);
});
