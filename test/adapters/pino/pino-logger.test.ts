import { redactSecrets } from '../../../src/adapters/pino/pino-logger';

describe('log redaction', () => {
  it('hides token-like fields at any depth', () => {
    const out = redactSecrets({ session_token: 'abc', nested: { Authorization: 'Bearer x', list: [{ api_key: 'k' }] }, plugin_id: 'p' });
    expect(JSON.stringify(out)).not.toMatch(/abc|Bearer x|"k"/);
    expect(out).toMatchObject({ plugin_id: 'p', session_token: '[redacted]' });
  });

  it('hides bearer credentials inside free text', () => {
    expect(redactSecrets('sent Authorization: Bearer s3cr3t.value to x')).toBe('sent Authorization: Bearer [redacted] to x');
  });
});
