// Temporal client factory shared by the API, the admin command and tests.
import { Client, Connection } from '@temporalio/client';

export async function connectTemporal(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace });
}
