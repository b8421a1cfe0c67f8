// docker-compose.yml cannot run here (no Docker engine), so it is checked against the code and
// docs: every service, port, health check, environment variable and search attribute. The
// topology test (test/topology) runs it as local processes.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../src/config';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../contracts/search-attributes';
import { DYNAMIC_CONFIG_FILE, expectedDynamicConfig } from '../../scripts/lib/temporal-server';

const compose = parse(fs.readFileSync(path.join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { image?: string; build?: string; command?: string[] | string; environment?: Record<string, string>; ports?: string[]; volumes?: string[]; healthcheck?: { test: string[] }; depends_on?: Record<string, { condition: string }>; deploy?: { replicas?: number }; stop_grace_period?: string }>;
};
const configurationDoc = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'configuration.md'), 'utf8');
const configSource = fs.readFileSync(path.join(PROJECT_ROOT, 'src', 'config.ts'), 'utf8');

describe('docker-compose.yml', () => {
  it('has the production-like topology', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['api', 'api-lb', 'codec-server', 'mariadb', 'migrate', 'postgresql', 'redis', 'sandbox', 'temporal', 'temporal-schema', 'temporal-search-attributes', 'temporal-ui', 'worker'].sort(),
    );
    // The service database is the engine CI tests; Temporal's persistence the one the bench runs.
    expect(compose.services.mariadb!.image).toMatch(/^mariadb:10\.11/);
    expect(compose.services.temporal!.image).toBe('temporalio/server:1.29.1');
    expect(compose.services.temporal!.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
    expect(([] as string[]).concat(compose.services['temporal-schema']!.command ?? []).join(' ')).toMatch(/temporal-sql-tool .*setup-schema.*update-schema/s);
  });

  it('gives the Temporal server the project\'s dynamic config from the repository', () => {
    const mount = compose.services.temporal!.volumes!.find((v) => v.startsWith('./deploy/temporal/dynamicconfig.yaml:'))!;
    expect(mount.split(':')[1]).toBe(compose.services.temporal!.environment!.DYNAMIC_CONFIG_FILE_PATH);
    expect(fs.readFileSync(DYNAMIC_CONFIG_FILE, 'utf8').replace(/^#.*\n/gm, '')).toBe(expectedDynamicConfig());
  });

  it('replicates the API behind haproxy, health-checked on /v1/health, and the worker with a health check', () => {
    expect(compose.services.api!.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(compose.services.worker!.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(compose.services.api!.ports ?? []).toEqual([]);
    const haproxy = fs.readFileSync(path.join(PROJECT_ROOT, 'deploy', 'haproxy', 'haproxy.cfg'), 'utf8');
    expect(compose.services['api-lb']!.volumes).toContain('./deploy/haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    expect(haproxy).toMatch(/^\s*option httpchk GET \/v1\/health$/m);
    expect(haproxy).toMatch(/^\s*server-template api \d+ api:3000 check/m);
    expect(compose.services.worker!.healthcheck!.test.join(' ')).toContain(`127.0.0.1:${compose.services.worker!.environment!.WORKER_METRICS_PORT}/health`);
    // Notifications reach the API through the balancer inside the network.
    expect(compose.services.api!.environment!.INTERNAL_BASE_URL).toBe('http://api-lb:3000');
  });

  it('gives every long-running process more time to stop than its longest request', () => {
    for (const name of ['api', 'worker', 'sandbox', 'temporal', 'mariadb', 'postgresql']) {
      const seconds = Number(/^(\d+)s$/.exec(compose.services[name]!.stop_grace_period ?? '')?.[1] ?? 0);
      // The API's shutdown waits up to 30 s for in-flight requests.
      expect(seconds).toBeGreaterThan(30);
    }
  });

  it('publishes the documented ports', () => {
    expect(compose.services['api-lb']!.ports).toContain('3000:3000');
    expect(compose.services.sandbox!.ports).toContain('3100:3100');
    expect(compose.services.temporal!.ports).toContain('7233:7233');
    expect(compose.services['temporal-ui']!.ports).toContain('8233:8080');
    expect(compose.services['codec-server']!.ports).toContain('3200:3200');
  });

  it('health-checks every long-running service it depends on', () => {
    // The Temporal server's readiness is the one-shot that waits for `temporal operator cluster health`.
    expect(([] as string[]).concat(compose.services['temporal-search-attributes']!.command ?? []).join(' ')).toMatch(/until temporal operator cluster health/);
    for (const name of ['mariadb', 'postgresql', 'redis', 'sandbox', 'api', 'worker', 'codec-server', 'api-lb']) expect(compose.services[name]!.healthcheck?.test.length).toBeGreaterThan(0);
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(compose.services[dependency]).toBeDefined();
        if (condition === 'service_healthy') expect(compose.services[dependency]!.healthcheck).toBeDefined();
        expect(['service_healthy', 'service_completed_successfully', 'service_started']).toContain(condition);
        expect(name).not.toBe(dependency);
      }
    }
  });

  it('runs the compiled entry points with node itself, in exec form (signals reach node)', () => {
    const entries = { api: 'src/api/main', worker: 'workers/main', sandbox: 'src/provider/sandbox/main', migrate: 'src/db/migrate', 'codec-server': 'scripts/codec-server' };
    for (const [name, entry] of Object.entries(entries)) {
      expect({ name, command: compose.services[name]!.command }).toEqual({ name, command: ['node', `dist/${entry}.js`] });
      // What `npm run build` compiles it from (test/integration/compiled-production.test.ts runs them).
      expect(fs.existsSync(path.join(PROJECT_ROOT, `${entry}.ts`))).toBe(true);
    }
    const dockerfile = fs.readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^RUN npm run build\b/m);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/src\/api\/main\.js"\]$/m);
    expect(dockerfile).not.toMatch(/^(CMD|ENTRYPOINT).*tsx/m);
  });

  it('uses only environment variables the service reads and documents', () => {
    for (const name of ['api', 'worker', 'migrate', 'sandbox', 'codec-server']) {
      for (const variable of Object.keys(compose.services[name]!.environment ?? {})) {
        expect(configurationDoc).toContain(`\`${variable}\``);
        const readBySandbox = variable.startsWith('SANDBOX_');
        expect(readBySandbox || configSource.includes(`'${variable}'`)).toBe(true);
      }
    }
    expect(compose.services.api!.environment!.DATABASE_URL).toMatch(/^mysql:\/\/.+@mariadb:3306\/payments$/);
    expect(compose.services.worker!.environment!.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('encrypts payloads everywhere and lets the UI decrypt them through the codec server', () => {
    for (const name of ['api', 'worker', 'migrate', 'codec-server']) {
      expect(compose.services[name]!.environment!.TEMPORAL_CODEC_KEYS).toMatch(/^\$\{TEMPORAL_CODEC_KEYS:\?/);
      expect(compose.services[name]!.environment!.NODE_ENV).toBe('production');
    }
    const codec = compose.services['codec-server']!;
    // Off loopback: the credential is required, and the browser may call it from the UI's origin only.
    expect(codec.environment).toMatchObject({ CODEC_HOST: '0.0.0.0', CODEC_PORT: '3200', CODEC_CORS_ORIGINS: 'http://localhost:8233' });
    expect(codec.environment!.CODEC_AUTH_TOKEN).toMatch(/^\$\{CODEC_AUTH_TOKEN:\?/);
    const ui = compose.services['temporal-ui']!;
    expect(ui.environment).toMatchObject({ TEMPORAL_CODEC_ENDPOINT: 'http://localhost:3200', TEMPORAL_CODEC_INCLUDE_CREDENTIALS: 'true' });
    expect(ui.ports).toContain('8233:8080');
    expect(ui.depends_on?.['codec-server']?.condition).toBe('service_healthy');
    // The image the codec server runs has its entry point.
    expect(fs.readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8')).toMatch(/^COPY scripts \.\/scripts$/m);
  });

  it('registers exactly the search attributes the workflows use', () => {
    const command = ([] as string[]).concat(compose.services['temporal-search-attributes']!.command ?? []).join(' ');
    const registered = Object.fromEntries([...command.matchAll(/--name (\w+) --type (\w+)/g)].map((m) => [m[1], m[2]]));
    expect(registered).toEqual(SEARCH_ATTRIBUTE_DEFINITIONS);
  });
});
