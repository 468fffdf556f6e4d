import { receivedTraceContext } from '../../src/domain/trace-context';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';
const GOOD = `00-${TRACE}-${PARENT}-01`;

/** Issue 25: an agent's trace context is checked against the W3C formats, and its sampled flag is not its to set. */
describe('receivedTraceContext', () => {
  it('keeps a well-formed traceparent and tracestate', () => {
    expect(receivedTraceContext({ traceparent: GOOD, tracestate: 'congo=t61rcWkgMzE, rojo=00f067aa0ba902b7' })).toEqual({
      traceparent: GOOD,
      tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
    });
    expect(receivedTraceContext({ traceparent: GOOD, tracestate: 'tenant@vendor=a b' })).toEqual({ traceparent: GOOD, tracestate: 'tenant@vendor=a b' });
  });

  it('continues the trace but sets the sampled flag itself: an agent cannot keep its calls out of the traces', () => {
    expect(receivedTraceContext({ traceparent: `00-${TRACE}-${PARENT}-00` })).toEqual({ traceparent: GOOD });
    expect(receivedTraceContext({ traceparent: `00-${TRACE}-${PARENT}-fe` })).toEqual({ traceparent: GOOD });
    // A later version's extra fields are not handed on.
    expect(receivedTraceContext({ traceparent: `01-${TRACE}-${PARENT}-00-future` })).toEqual({ traceparent: GOOD });
  });

  it.each([
    ['not hex', `00-${'z'.repeat(32)}-${PARENT}-01`],
    ['upper case', `00-${TRACE.toUpperCase()}-${PARENT}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['version 00 with a fifth field', `${GOOD}-extra`],
    ['a short trace id', `00-${TRACE.slice(1)}-${PARENT}-01`],
    ['a line break', `${GOOD}\r\nx-injected: 1`],
    ['a control character', `00-${TRACE}-${PARENT}-0\u0001`],
    ['no string', 5],
    ['empty', ''],
    ['too long', `01-${TRACE}-${PARENT}-01-${'x'.repeat(600)}`],
  ])('drops a traceparent with %s, and its tracestate with it', (_why, traceparent) => {
    expect(receivedTraceContext({ traceparent, tracestate: 'vendor=1' })).toBeUndefined();
  });

  it.each([
    ['no "="', 'vendor'],
    ['an upper-case key', 'Vendor=1'],
    ['a value with "="', 'vendor=a=b'],
    ['an empty value', 'vendor='],
    ['a control character', 'vendor=a\u0007b'],
    ['a line break', 'vendor=1\nx: y'],
    ['a duplicate key', 'vendor=1,vendor=2'],
    ['more than 32 members', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')],
    ['non-ASCII', 'vendor=é'],
    ['no string', 7],
  ])('drops a tracestate with %s and keeps the traceparent', (_why, tracestate) => {
    expect(receivedTraceContext({ traceparent: GOOD, tracestate })).toEqual({ traceparent: GOOD });
  });
});
