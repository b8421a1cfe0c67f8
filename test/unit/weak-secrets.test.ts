// Weak secrets are refused in production, naming the variable: too short, a shorter text repeated,
// a run of characters in sequence, or too little entropy per character (docs/configuration.md,
// "Secrets"). Random values of every usual form pass.
import { randomBytes } from 'node:crypto';
import { secretProblems, type SecretName } from '../../src/config';

const production = { NODE_ENV: 'production' };
const SHARED: SecretName[] = ['SANDBOX_NOTIFY_SECRET', 'SANDBOX_CONTROL_TOKEN', 'CODEC_AUTH_TOKEN'];

const problemsOf = (name: SecretName, value: string, extra: Record<string, string> = {}) => secretProblems([name], { ...production, [name]: value, ...extra });

describe('the red team\'s weak values are refused, naming the variable', () => {
  it('VAULT_KEY=000...001', () => {
    expect(problemsOf('VAULT_KEY', `${'0'.repeat(63)}1`)).toEqual([expect.stringMatching(/^VAULT_KEY has too little randomness \(0\.12 bits of entropy per character/)]);
  });

  it('SANDBOX_NOTIFY_SECRET=password12345678', () => {
    expect(problemsOf('SANDBOX_NOTIFY_SECRET', 'password12345678')).toEqual(['SANDBOX_NOTIFY_SECRET is shorter than 32 characters']);
  });
});

describe('hex keys (VAULT_KEY, each key of TEMPORAL_CODEC_KEYS)', () => {
  it.each([
    ['a development key', 'ab'.repeat(32), /is a development key \(one byte repeated\)$/],
    ['a short text repeated', '0123456789abcdef'.repeat(4), /repeats a shorter text/],
    ['a counting run', `${'0123456789abcdef'}${randomBytes(24).toString('hex')}`, /holds 8 or more characters in sequence/],
    ['a run of one character', `${randomBytes(12).toString('hex')}${'f'.repeat(10)}${randomBytes(15).toString('hex')}`, /holds 8 or more characters in sequence/],
    ['few distinct digits', '0f'.repeat(16) + 'f0'.repeat(16), /repeats a shorter text|too little randomness/],
    ['two digits at random', [...randomBytes(64)].map((b) => (b & 1 ? 'a' : '5')).join(''), /too little randomness/],
  ])('VAULT_KEY: %s', (_label, key, problem) => {
    const [message] = problemsOf('VAULT_KEY', key);
    expect(message).toMatch(/^VAULT_KEY /);
    expect(message).toMatch(problem);
  });

  it('a weak codec key is named by its id; the other keys of the ring are fine', () => {
    const good = randomBytes(32).toString('hex');
    expect(problemsOf('TEMPORAL_CODEC_KEYS', `k1:${good},k2:${'0'.repeat(63)}1`, { TEMPORAL_CODEC_KEY_ID: 'k1' }))
      .toEqual([expect.stringMatching(/^TEMPORAL_CODEC_KEYS holds a weak key: key k2 has too little randomness/)]);
  });

  it('2,000 random keys all pass', () => {
    for (let i = 0; i < 2_000; i += 1) {
      const key = randomBytes(32).toString('hex');
      expect([key, problemsOf('VAULT_KEY', key)]).toEqual([key, []]);
    }
  });
});

describe('shared secrets (SANDBOX_NOTIFY_SECRET, SANDBOX_CONTROL_TOKEN, CODEC_AUTH_TOKEN)', () => {
  it.each(SHARED)('%s: length, repetition, sequences and entropy', (name) => {
    expect(problemsOf(name, 'x'.repeat(31))).toEqual([`${name} is shorter than 32 characters`]);
    expect(problemsOf(name, 'password12345678password12345678')).toEqual([expect.stringMatching(new RegExp(`^${name} repeats a shorter text`))]);
    expect(problemsOf(name, 'passwordpasswordpassword12345678')).toEqual([expect.stringMatching(new RegExp(`^${name} holds 8 or more characters in sequence`))]);
    expect(problemsOf(name, 'abababababababababababababababcd')).toEqual([expect.stringMatching(/too little randomness|repeats a shorter text/)]);
    expect(problemsOf(name, 'aabbaabbccaabbaaccbbaabbaaccaabbddbb')).toEqual([expect.stringMatching(/too little randomness \(1\.\d\d bits/)]);
  });

  it.each([
    ['openssl rand -hex 16', () => randomBytes(16).toString('hex')],
    ['openssl rand -hex 32', () => randomBytes(32).toString('hex')],
    ['openssl rand -base64 24', () => randomBytes(24).toString('base64')],
    ['openssl rand -base64 32', () => randomBytes(32).toString('base64')],
    ['base64url of 24 bytes', () => randomBytes(24).toString('base64url')],
  ])('1,000 random secrets of the form %s all pass', (_label, generate) => {
    for (let i = 0; i < 1_000; i += 1) {
      const secret = generate();
      expect([secret, problemsOf('SANDBOX_NOTIFY_SECRET', secret)]).toEqual([secret, []]);
    }
  });

  it('outside production nothing is checked (npm start, tests, the bench)', () => {
    expect(secretProblems(['SANDBOX_NOTIFY_SECRET', 'VAULT_KEY'], { SANDBOX_NOTIFY_SECRET: 'password12345678', VAULT_KEY: `${'0'.repeat(63)}1` })).toEqual([]);
  });
});
