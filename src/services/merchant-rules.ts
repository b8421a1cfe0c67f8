// Business preconditions shared by create operations (docs/api-reference.md, "Money and bounds" and
// "Merchants, keys and modes").
import type { AuthContext } from './context';
import type { Config } from '../config';
import { ApiError } from '../domain/errors';
import { normalizeCurrency } from '../domain/money';

export function assertProvisioned(auth: AuthContext, config: Config): void {
  if (!auth.merchant.provisioned || (auth.livemode && !config.liveProviderUrl)) throw new ApiError('merchant_not_provisioned');
}

/** Returns the canonical currency when it is enabled for the merchant. */
export function enabledCurrency(auth: AuthContext, raw: string): string {
  const code = normalizeCurrency(raw);
  if (!code) throw new ApiError('parameter_invalid', { param: 'currency', message: '`currency` must be a three-letter ISO 4217 currency code.' });
  const enabled = auth.merchant.currencies.split(',').map((c) => c.trim().toUpperCase());
  if (!enabled.includes(code)) {
    throw new ApiError('currency_not_supported', { param: 'currency', message: `The currency ${code} is not enabled for your account.` });
  }
  return code;
}
