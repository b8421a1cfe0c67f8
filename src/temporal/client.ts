// Temporal client factory shared by the API, the worker's activities, the admin command, the
// scripts and tests: every client encrypts and decrypts payloads with the configured key ring.
import { Client, Connection, type ConnectionLike } from '@temporalio/client';
import type { Config } from '../config';
import { temporalDataConverter } from './codec';

export type TemporalSettings = Pick<Config, 'temporalAddress' | 'temporalNamespace' | 'temporalCodec'>;

export async function connectTemporal(settings: TemporalSettings): Promise<Client> {
  return clientOn(await Connection.connect({ address: settings.temporalAddress }), settings);
}

/** A client on a connection that exists already: a worker's activities share the worker's own. */
export function clientOn(connection: ConnectionLike, settings: TemporalSettings): Client {
  return new Client({ connection, namespace: settings.temporalNamespace, dataConverter: temporalDataConverter(settings.temporalCodec) });
}
