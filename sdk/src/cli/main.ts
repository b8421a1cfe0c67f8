#!/usr/bin/env node
// `card-payments`: the merchant's command line. `listen` forwards the account's events to a local
// URL, signed like webhooks; `trigger` creates the test objects that raise an event.
import { parseArgs } from 'node:util';
import { PaymentsClient } from '../client';
import { PaymentsApiError } from '../error';
import { SDK_VERSION } from '../http';
import { listen, readOrCreateSecret } from './listen';
import { TRIGGERS, trigger } from './trigger';

const USAGE = `card-payments ${SDK_VERSION}: the command line of the card payments service

Usage:
  card-payments listen --forward-to URL [--events TYPES] [--interval MS] [--secret whsec_...]
  card-payments listen --print-secret
  card-payments trigger EVENT_TYPE
  card-payments --help | --version

Every command that calls the API takes --api-key KEY (or CARD_PAYMENTS_API_KEY) and
--base-url URL (or CARD_PAYMENTS_BASE_URL, default http://localhost:3000).

listen   Follows the Events API of the key's account and mode from now on, and POSTs each new
         event to --forward-to, signed per Standard Webhooks with a whsec_ secret it prints at
         start (kept in ~/.config/card-payments/listen-secret, so it stays the same; --secret
         uses another). --events takes event types or wildcards, comma-separated (payment.*).
trigger  Creates the test objects that raise EVENT_TYPE (a test key only). Event types:
         ${TRIGGERS.join(', ')}.
`;

function fail(message: string): never {
  process.stderr.write(`card-payments: ${message}\n`);
  process.exit(1);
}

function clientOf(values: { 'api-key'?: string; 'base-url'?: string }): PaymentsClient {
  const apiKey = values['api-key'] ?? process.env.CARD_PAYMENTS_API_KEY;
  const baseUrl = values['base-url'] ?? process.env.CARD_PAYMENTS_BASE_URL ?? 'http://localhost:3000';
  if (!apiKey) fail('an API key is needed: --api-key svc_test_sk_... (or CARD_PAYMENTS_API_KEY)');
  return new PaymentsClient({ apiKey, baseUrl });
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'api-key': { type: 'string' },
      'base-url': { type: 'string' },
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      interval: { type: 'string' },
      secret: { type: 'string' },
      'print-secret': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.version) return void process.stdout.write(`${SDK_VERSION}\n`);
  if (values.help || !command) return void process.stdout.write(USAGE);

  if (command === 'listen') {
    if (values['print-secret']) return void process.stdout.write(`${values.secret ?? readOrCreateSecret()}\n`);
    if (!values['forward-to']) fail('listen needs --forward-to URL (where your webhook handler listens, such as http://localhost:4000/webhooks)');
    const interval = values.interval === undefined ? 1000 : Number(values.interval);
    if (!Number.isInteger(interval) || interval < 100) fail('--interval must be a number of milliseconds, at least 100');
    const apiKey = values['api-key'] ?? process.env.CARD_PAYMENTS_API_KEY ?? '';
    await listen(clientOf(values), {
      forwardTo: values['forward-to'],
      types: values.events?.split(',').map((type) => type.trim()).filter(Boolean),
      intervalMs: interval,
      secret: values.secret ?? readOrCreateSecret(),
      keyHint: apiKey.slice(0, 12),
    });
    return;
  }
  if (command === 'trigger') {
    const [type] = rest;
    if (!type) fail(`trigger needs an event type: ${TRIGGERS.join(', ')}`);
    await trigger(clientOf(values), values['api-key'] ?? process.env.CARD_PAYMENTS_API_KEY ?? '', type);
    return;
  }
  fail(`unknown command "${command}"; see card-payments --help`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof PaymentsApiError) fail(`${error.status ? `${error.status} ` : ''}${error.code}: ${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}`);
  fail(error instanceof Error ? error.message : String(error));
});
