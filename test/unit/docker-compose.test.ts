// docker-compose.yml cannot run here (no Docker engine), so it is checked against the code and
// docs: every service, port, health check, environment variable and search attribute.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../src/config';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../workflows/contracts/search-attributes';

const compose = parse(fs.readFileSync(path.join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { image?: string; build?: string; command?: string[] | string; environment?: Record<string, string>; ports?: string[]; healthcheck?: { test: string[] }; depends_on?: Record<string, { condition: string }> }>;
};
const configurationDoc = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'configuration.md'), 'utf8');
const configSource = fs.readFileSync(path.join(PROJECT_ROOT, 'src', 'config.ts'), 'utf8');

describe('docker-compose.yml', () => {
  it('has the production-like topology', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['api', 'codec-server', 'migrate', 'mysql', 'sandbox', 'temporal', 'temporal-search-attributes', 'temporal-ui', 'worker'].sort(),
    );
    expect(compose.services.mysql!.image).toMatch(/^mysql:8/);
    expect(compose.services.temporal!.environment).toMatchObject({ DB: 'mysql8', MYSQL_SEEDS: 'mysql' });
  });

  it('publishes the documented ports', () => {
    expect(compose.services.api!.ports).toContain('3000:3000');
    expect(compose.services.sandbox!.ports).toContain('3100:3100');
    expect(compose.services.temporal!.ports).toContain('7233:7233');
    expect(compose.services['temporal-ui']!.ports).toContain('8233:8080');
    expect(compose.services['codec-server']!.ports).toContain('3200:3200');
  });

  it('health-checks every long-running service it depends on', () => {
    for (const name of ['mysql', 'temporal', 'sandbox', 'api', 'codec-server']) expect(compose.services[name]!.healthcheck?.test.length).toBeGreaterThan(0);
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(compose.services[dependency]).toBeDefined();
        if (condition === 'service_healthy') expect(compose.services[dependency]!.healthcheck).toBeDefined();
        expect(['service_healthy', 'service_completed_successfully', 'service_started']).toContain(condition);
        expect(name).not.toBe(dependency);
      }
    }
  });

  it('runs the real entry points of the service', () => {
    const command = (name: string) => ([] as string[]).concat(compose.services[name]!.command ?? []).join(' ');
    expect(command('api')).toContain('src/api/main.ts');
    expect(command('worker')).toContain('workers/main.ts');
    expect(command('sandbox')).toContain('src/provider/sandbox/main.ts');
    expect(command('migrate')).toContain('src/db/migrate.ts');
    expect(command('codec-server')).toContain('scripts/codec-server.ts');
    for (const file of ['src/api/main.ts', 'workers/main.ts', 'src/provider/sandbox/main.ts', 'src/db/migrate.ts', 'scripts/codec-server.ts']) {
      expect(fs.existsSync(path.join(PROJECT_ROOT, file))).toBe(true);
    }
  });

  it('uses only environment variables the service reads and documents', () => {
    for (const name of ['api', 'worker', 'migrate', 'sandbox', 'codec-server']) {
      for (const variable of Object.keys(compose.services[name]!.environment ?? {})) {
        expect(configurationDoc).toContain(`\`${variable}\``);
        const readBySandbox = variable.startsWith('SANDBOX_');
        expect(readBySandbox || configSource.includes(`'${variable}'`)).toBe(true);
      }
    }
    expect(compose.services.api!.environment!.DATABASE_URL).toMatch(/^mysql:\/\/.+@mysql:3306\/payments$/);
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
