import { pruneOlderThanMsOf } from '../../../src/adapters/http/prune-sessions-body';
import type { ToolportError } from '../../../src/domain/errors';

function refusal(body: unknown): ToolportError {
  try {
    pruneOlderThanMsOf(body);
  } catch (error) {
    return error as ToolportError;
  }
  throw new Error('the body was accepted');
}

describe('POST /api/v1/sessions/prune body', () => {
  it('reads no body or an empty one as every stopped session, and older_than_s as milliseconds', () => {
    expect(pruneOlderThanMsOf(undefined)).toBeUndefined();
    expect(pruneOlderThanMsOf({})).toBeUndefined();
    expect(pruneOlderThanMsOf({ older_than_s: 3600 })).toBe(3_600_000);
    expect(pruneOlderThanMsOf({ older_than_s: 0 })).toBe(0);
  });

  it('refuses a bad age, a misspelt field or a body that is not an object with BAD_REQUEST', () => {
    for (const bad of [{ older_than_s: -1 }, { older_than_s: 1.5 }, { older_than_s: '3600' }]) {
      expect(refusal(bad)).toMatchObject({ code: 'BAD_REQUEST', message: 'older_than_s must be a whole number of seconds, 0 or more' });
    }
    expect(refusal({ older_than: 60 })).toMatchObject({ code: 'BAD_REQUEST', message: 'unknown field(s): older_than; only older_than_s is read' });
    expect(refusal([1])).toMatchObject({ code: 'BAD_REQUEST', message: 'the body must be a JSON object' });
  });
});
