// The sandbox acquirer's settings (`npm run sandbox`, and the sandbox `npm start` runs), declared
// as the service's are (src/config.ts). It shares some with the service, which declares them: its
// port (the default SANDBOX_URL follows it), the notify secret (the API checks what it signs) and
// the HTTP transport bounds.
import { SECRET, SETTINGS, checkedHttpLimits, integer, parseSettings, text, url, type Parsed } from '../../config';

export const SANDBOX_SETTINGS = {
  port: SETTINGS.sandboxPort,
  settleMs: integer({ env: 'SANDBOX_SETTLE_MS', min: 0, max: 24 * 60 * 60 * 1000, default: 1000, doc: 'How long sandbox payments, refunds and payouts stay `PROCESSING`; `0` settles at once.' }),
  publicUrl: url({ env: 'SANDBOX_PUBLIC_URL', defaultDoc: '`http://127.0.0.1:$SANDBOX_PORT`', doc: "Origin of the sandbox's 3D Secure pages as a shopper's browser reaches them." }),
  notifySecret: SETTINGS.sandboxNotifySecret,
  // The transport bounds of every HTTP server the project runs (src/web/transport.ts).
  http: SETTINGS.http,
  controlToken: text({ env: 'SANDBOX_CONTROL_TOKEN', secret: true, doc: `Bearer token of the sandbox's control endpoints (\`/_sandbox/reset\`, \`/_sandbox/faults\`, \`/_sandbox/records\`); unset, they answer \`404\`. \`npm start\` makes one per run when it is unset and prints it. ${SECRET}` }),
} as const;

export type SandboxConfig = Parsed<typeof SANDBOX_SETTINGS>;

export function sandboxConfig(env: NodeJS.ProcessEnv = process.env): SandboxConfig {
  const settings = parseSettings(SANDBOX_SETTINGS, env);
  return { ...settings, http: checkedHttpLimits(settings.http) };
}
