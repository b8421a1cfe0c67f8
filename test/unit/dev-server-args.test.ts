import { DEV_SERVER_DYNAMIC_CONFIG, devServerArgs } from '../../src/temporal/dev-server';

describe('the dev server command line', () => {
  const valuesOf = (args: string[], flag: string) => args.flatMap((arg, i) => (arg === flag ? [args[i + 1]] : []));

  it('reads its one shard\'s transfer queue often enough that a task after an activity is not held up to 50 ms', () => {
    const args = devServerArgs({ port: 7233, uiPort: null, dbFile: null });
    const setting = valuesOf(args, '--dynamic-config-value').find((v) => v?.startsWith('history.transferProcessorMaxPollRPS='));
    expect(Number(setting?.split('=')[1])).toBeGreaterThanOrEqual(1000);
  });

  it('hands a worker the activities and workflows it starts on its own task queue eagerly', () => {
    const values = valuesOf(devServerArgs({ port: 7233, uiPort: null, dbFile: null }), '--dynamic-config-value');
    expect(values).toContain('system.enableActivityEagerExecution=true');
    expect(values).toContain('system.enableEagerWorkflowStart=true');
  });

  it('gives every server (npm start, tests, bench) the same dynamic config, and a caller\'s own values after it', () => {
    const args = devServerArgs({ port: 7233, uiPort: 8233, dbFile: '/tmp/t.db', extraArgs: ['--dynamic-config-value', 'x.y=1'] });
    expect(valuesOf(args, '--dynamic-config-value')).toEqual([...DEV_SERVER_DYNAMIC_CONFIG, 'x.y=1']);
    expect(valuesOf(args, '--db-filename')).toEqual(['/tmp/t.db']);
    expect(args).not.toContain('--headless');
  });
});
