import { eitherSignal } from '../../../src/application/shared/either-signal';

describe('eitherSignal', () => {
  it('stays open while neither signal aborts', () => {
    const a = new AbortController();
    const b = new AbortController();
    expect(eitherSignal(a.signal, b.signal).aborted).toBe(false);
  });

  it.each(['a', 'b'] as const)('aborts with the reason of %s when it aborts first', (first) => {
    const a = new AbortController();
    const b = new AbortController();
    const either = eitherSignal(a.signal, b.signal);
    const seen: unknown[] = [];
    either.addEventListener('abort', () => seen.push(either.reason));
    (first === 'a' ? a : b).abort(`from ${first}`);
    (first === 'a' ? b : a).abort('later');
    expect(either.aborted).toBe(true);
    expect(seen).toEqual([`from ${first}`]);
  });

  it('is aborted already, with its reason, when one of the two is', () => {
    const a = new AbortController();
    const b = new AbortController();
    b.abort('gone');
    const either = eitherSignal(a.signal, b.signal);
    expect(either.aborted).toBe(true);
    expect(either.reason).toBe('gone');
  });

  it('leaves no listener on the other signal once it aborted', () => {
    const a = new AbortController();
    const b = new AbortController();
    const removed: string[] = [];
    const original = b.signal.removeEventListener.bind(b.signal);
    b.signal.removeEventListener = ((type: string, listener: Parameters<typeof original>[1]) => {
      removed.push(type);
      original(type, listener);
    }) as typeof b.signal.removeEventListener;
    eitherSignal(a.signal, b.signal);
    a.abort('done');
    expect(removed).toEqual(['abort']);
  });
});
