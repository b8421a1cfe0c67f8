// Where webhook and callback POSTs may go (docs/webhooks.md, "Where events may be sent"). Live mode:
// https to public addresses only. Test mode: public addresses, and loopback for local development (unless
// WEBHOOK_ALLOW_LOOPBACK is off), but never a port the service itself listens on: its API and
// metrics, the sandbox acquirer and its control endpoints, Temporal, the codec server. Private, link-local and other
// non-public addresses are refused in both modes. A URL is checked when it is accepted (admin
// command, Shape B `callback_url`) and every resolved address again when it is connected to
// (http-post.ts), because a name may resolve elsewhere by then.
import { portOf, type Config } from '../config';
import { isLoopbackIp, isPublicUnicastIp, parseIpLiteral } from '../domain/ip';

export interface DestinationPolicy {
  /** Ports of the service's own listeners, refused on loopback addresses. */
  ownPorts: ReadonlySet<number>;
  /** `host:port` of the service's own origins (its public URL, the acquirers), refused by name. */
  ownOrigins: ReadonlySet<string>;
  /** Whether test mode may use loopback addresses at all. */
  allowLoopback: boolean;
}

type PolicySettings = Pick<Config, 'port' | 'publicBaseUrl' | 'internalBaseUrl' | 'sandboxPort' | 'sandboxUrl' | 'liveProviderUrl' | 'temporalAddress'
  | 'temporalUiPort' | 'temporalHttpPort' | 'temporalMetricsPort' | 'apiMetricsPort' | 'workerMetricsPort' | 'webhookAllowLoopback' | 'codecServer'>;

/** The port a URL connects to. */
export function effectivePort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

function originKey(url: URL): string {
  return `${url.hostname.toLowerCase().replace(/\.$/, '')}:${effectivePort(url)}`;
}

/** The policy of this deployment, from its configuration (every process reads the same settings). */
export function destinationPolicy(config: PolicySettings): DestinationPolicy {
  const urls = [config.publicBaseUrl, config.internalBaseUrl, config.sandboxUrl, config.liveProviderUrl].flatMap((u) => (u ? [new URL(u)] : []));
  const ports = [
    config.port, config.sandboxPort, config.apiMetricsPort, config.workerMetricsPort, config.temporalMetricsPort,
    portOf(config.temporalAddress), config.temporalUiPort, config.temporalHttpPort,
    // A webhook POSTed to /encode or /decode of an open loopback codec server would use its keys.
    config.codecServer.port,
    // Only ports written in the URLs: a default 80 or 443 there would shut out every local receiver.
    ...urls.map((u) => (u.port ? Number(u.port) : null)),
  ];
  return {
    ownPorts: new Set(ports.filter((p): p is number => typeof p === 'number' && Number.isInteger(p) && p > 0)),
    ownOrigins: new Set(urls.map(originKey)),
    allowLoopback: config.webhookAllowLoopback,
  };
}

/** Why connecting to this resolved address and port is refused, or null when it is allowed. */
export function addressRefusal(address: string, port: number, livemode: boolean, policy: DestinationPolicy): string | null {
  if (isPublicUnicastIp(address)) return null;
  if (!isLoopbackIp(address)) return 'destination is not a public address';
  if (livemode) return 'destination is a loopback address, and live mode sends to public addresses only';
  if (!policy.allowLoopback) return 'destination is a loopback address (WEBHOOK_ALLOW_LOOPBACK is off)';
  if (policy.ownPorts.has(port)) return `destination is port ${port} of this host, where the service itself listens`;
  return null;
}

/**
 * Why a POST to this URL is refused before any name is resolved, or null: not http(s), one of the
 * service's own origins, or a literal address (or `localhost`) that addressRefusal refuses.
 */
export function urlRefusal(url: string, livemode: boolean, policy: DestinationPolicy): string | null {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return 'destination is not an absolute URL';
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return 'destination is not an http or https URL';
  const host = target.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  const port = effectivePort(target);
  const literal = parseIpLiteral(host);
  // RFC 6761: names under localhost are this host, whatever a resolver says.
  const address = literal?.canonical ?? (host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : null);
  const refusal = address === null ? null : addressRefusal(address, port, livemode, policy);
  if (refusal) return refusal;
  // Live events carry cardholder names and e-mails: never in clear text.
  if (livemode && target.protocol !== 'https:') return 'live mode sends events over https only';
  return policy.ownOrigins.has(originKey(target)) ? 'destination is the service itself' : null;
}
