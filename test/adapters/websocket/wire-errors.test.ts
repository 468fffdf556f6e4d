import { errorFrame, invocationErrorOf, refusalFrame, wireCodeOf } from '../../../src/adapters/websocket/wire-errors';
import { LinkRefusal } from '../../../src/application/link/link-refusal';
import { INVOCATION_ERROR_CODES, InvocationError, type InvocationErrorCode } from '../../../src/domain/errors';

describe('§6 codes on the §7 wire', () => {
  const table: Array<[InvocationErrorCode, string]> = [
    ['INVALID_ARGUMENTS', 'BAD_REQUEST'],
    ['SESSION_NOT_LIVE', 'FORBIDDEN'],
    ['PLUGIN_NOT_ACTIVE', 'UNAVAILABLE'],
    ['TOOL_NOT_DECLARED', 'NOT_FOUND'],
    ['SURFACE_NOT_ALLOWED', 'FORBIDDEN'],
    ['TOOL_NOT_ENABLED', 'FORBIDDEN'],
    ['PLUGIN_BUSY', 'UNAVAILABLE'],
    ['TOOL_TIMEOUT', 'TIMEOUT'],
    ['PLUGIN_CRASHED', 'UNAVAILABLE'],
    ['PLUGIN_ERROR', 'INTERNAL'],
    ['RESULT_TOO_LARGE', 'INTERNAL'],
    ['BAD_RESULT', 'INTERNAL'],
    ['CANCELLED_BY_LIFECYCLE', 'CANCELLED'],
    ['CANCELLED', 'CANCELLED'],
    ['BACKEND_UNAVAILABLE', 'UNAVAILABLE'],
    ['APPROVAL_DENIED', 'FORBIDDEN'],
    ['APPROVAL_TIMEOUT', 'TIMEOUT'],
  ];

  it('maps every §6 code, and only those in the table', () => {
    expect(table.map(([code]) => code).sort()).toEqual([...INVOCATION_ERROR_CODES].sort());
  });

  it.each(table)('sends %s as a %s frame carrying the code as data', (code, wire) => {
    const frame = errorFrame('7', new InvocationError(code, 'why it failed'));
    expect(frame).toEqual({ id: '7', type: 'error', payload: { code: wire, message: `[${code}] why it failed`, invocation_code: code } });
    const back = invocationErrorOf(frame.payload);
    expect(back.code).toBe(code);
    expect(back.message).toBe('why it failed');
  });

  it('sends an unknown plugin as NOT_FOUND though its §6 code is PLUGIN_NOT_ACTIVE', () => {
    const missing = new InvocationError('PLUGIN_NOT_ACTIVE', 'plugin "x" is not installed', { missing: true });
    expect(wireCodeOf(missing)).toBe('NOT_FOUND');
    const back = invocationErrorOf(errorFrame('1', missing).payload);
    expect(back.code).toBe('PLUGIN_NOT_ACTIVE');
    expect(back.missing).toBe(true);
  });

  it.each([
    ['SESSION_UNKNOWN', 'UNAUTHORIZED', 'SESSION_NOT_LIVE'],
    ['SESSION_STOPPED', 'UNAUTHORIZED', 'SESSION_NOT_LIVE'],
    ['SESSION_UNVERIFIABLE', 'UNAUTHORIZED', 'SESSION_NOT_LIVE'],
    ['PROOF_INVALID', 'UNAUTHORIZED', 'SESSION_NOT_LIVE'],
    ['NOT_AUTHENTICATED', 'UNAUTHORIZED', 'SESSION_NOT_LIVE'],
    ['MALFORMED_REQUEST', 'BAD_REQUEST', 'INVALID_ARGUMENTS'],
    ['REQUEST_TOO_LARGE', 'BAD_REQUEST', 'INVALID_ARGUMENTS'],
    ['UNKNOWN_ACTION', 'NOT_FOUND', 'TOOL_NOT_DECLARED'],
    ['FOREIGN_IDENTITY', 'FORBIDDEN', 'SURFACE_NOT_ALLOWED'],
    ['REQUEST_FAILED', 'INTERNAL', 'BACKEND_UNAVAILABLE'],
  ] as const)('sends the link refusal %s as a %s frame, with the code such frames always carried (%s)', (refusal, wire, carried) => {
    expect(refusalFrame('0', new LinkRefusal(refusal, 'unknown or ended session'))).toEqual({
      id: '0',
      type: 'error',
      payload: { code: wire, message: `[${carried}] unknown or ended session`, invocation_code: carried },
    });
  });

  it('gives a frame from a peer without invocation_code the §7 code’s usual §6 code, never parsing text', () => {
    expect(invocationErrorOf({ code: 'TIMEOUT', message: 'too slow' })).toMatchObject({ code: 'TOOL_TIMEOUT', message: 'too slow' });
    expect(invocationErrorOf({ code: 'FORBIDDEN', message: '[PLUGIN_BUSY] x' }).code).toBe('SURFACE_NOT_ALLOWED');
    expect(invocationErrorOf({ code: 'UNAVAILABLE', message: 'busy', invocation_code: 'NOT_A_CODE' }).code).toBe('PLUGIN_NOT_ACTIVE');
  });

  it('turns a malformed error payload into BACKEND_UNAVAILABLE', () => {
    for (const payload of ['garbage', null, { code: 'NOPE', message: 'x' }, { code: 'TIMEOUT' }]) {
      expect(invocationErrorOf(payload).code).toBe('BACKEND_UNAVAILABLE');
    }
  });
});
