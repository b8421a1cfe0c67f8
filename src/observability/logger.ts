// Structured JSON logs. Known secret fields are censored by path, and every string argument goes
// through the card-number redactor, so a PAN that slips into a message is still masked.
import pino, { type Logger } from 'pino';
import { config } from '../config';
import { redactCardNumbers } from '../domain/cards';

const REDACT_PATHS = [
  'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'card.number', 'card.cvc', '*.card.number', '*.card.cvc', 'number', 'cvc', '*.cvc', 'card_number', '*.card_number',
  'secret', '*.secret', 'webhook_secret', '*.webhook_secret', 'key', 'api_key', '*.api_key',
];

function redactSecrets(text: string): string {
  return redactCardNumbers(text).replace(/\b(svc_(?:test|live)_sk_|whsec_)[A-Za-z0-9+/=]{6,}/g, '$1[REDACTED]');
}

export function createLogger(name: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => (typeof arg === 'string' ? redactSecrets(arg) : arg)) as Parameters<typeof method>);
        },
      },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/**
 * An entry point's logger, at LOG_LEVEL. Made before the settings are known to be valid: when they
 * are not, it logs at `info`, and the entry point's start then fails naming the variable.
 */
export function processLogger(name: string): Logger {
  let level = 'info';
  try {
    level = config().logLevel;
  } catch {
    // reported by the entry point's start
  }
  return createLogger(name, level);
}

export { redactSecrets };
export type { Logger };
