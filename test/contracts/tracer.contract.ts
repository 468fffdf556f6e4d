import type { ToolCallFacts, TraceContext, Tracer } from '../../src/application/ports/tracer';
import type { CallOutcome } from '../../src/domain/call-outcome';

/** A finished span as an adapter that records spans lets the suite read it back. */
export interface ObservedSpan {
  traceId: string;
  spanId: string;
  /** The span id of its parent: the incoming context's, or the span that made the plugin call. */
  parentSpanId: string | undefined;
  facts: ToolCallFacts;
  outcome: CallOutcome;
  code: string | null;
}

/** One Tracer adapter under test. */
export interface TracerFixture {
  tracer: Tracer;
  /**
   * Optional, for adapters that record spans: every span ended so far, in any order.
   * A tracer that records nothing (the silent default) has none.
   */
  finished?(): Promise<ObservedSpan[]>;
  cleanup?(): void | Promise<void>;
}

export type TracerFixtureFactory = () => TracerFixture | Promise<TracerFixture>;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
/** A W3C context as the MCP adapter hands it in (docs/operations.md §8: version 00, sampled). */
const INCOMING: TraceContext = { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: 'agent=opaque,vendor=7' };
const FACTS: ToolCallFacts = { invocationId: 'inv-1', pluginId: 'acme.tools', tool: 'add_tag', exposedName: 'kandev_acme_tools_add_tag' };
/** A context the next hop accepts: version 00, lowercase ids, not all zeros, sampled. */
const HANDED_ON = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})([0-9a-f]{16})-01$/;

function traceIdOf(context: TraceContext | undefined): string | undefined {
  return context === undefined ? undefined : HANDED_ON.exec(context.traceparent)?.[1];
}

function spanIdOf(context: TraceContext | undefined): string | undefined {
  return context === undefined ? undefined : HANDED_ON.exec(context.traceparent)?.[2];
}

/**
 * The Tracer contract (the port's promises and docs/operations.md §8: a valid incoming context
 * is continued and handed on, a missing or malformed one starts a new trace, nothing throws,
 * the first end counts), run with `describe.each` over `[name, factory]` rows. Adapters that
 * record spans also show what they recorded.
 */
export function describeTracerContract(rows: Array<[string, TracerFixtureFactory]>): void {
  describe.each(rows)('Tracer contract: %s', (_name, factory) => {
    let fixture: TracerFixture;
    let tracer: Tracer;
    beforeEach(async () => {
      fixture = await factory();
      tracer = fixture.tracer;
    });
    afterEach(async () => {
      await tracer.shutdown(1000);
      await fixture.cleanup?.();
    });

    it('continues a valid incoming context: the context it hands on is in the same trace, sampled, with the tracestate', () => {
      const span = tracer.startToolCall(INCOMING, FACTS);
      const handed = span.context();
      expect(handed?.traceparent).toMatch(HANDED_ON);
      expect(traceIdOf(handed)).toBe(TRACE_ID);
      expect(handed?.tracestate).toBe(INCOMING.tracestate);
      span.end('success');
    });

    it("hands the plugin call's context on in the same trace, with the tracestate", () => {
      const span = tracer.startToolCall(INCOMING, FACTS);
      const call = span.pluginCall(FACTS);
      const handed = call.context();
      expect(handed?.traceparent).toMatch(HANDED_ON);
      expect(traceIdOf(handed)).toBe(TRACE_ID);
      expect(handed?.tracestate).toBe(INCOMING.tracestate);
      call.end('success');
      span.end('success');
    });

    it.each([
      ['missing', undefined],
      ['not a traceparent', { traceparent: 'not-a-traceparent' }],
      ['an all-zero trace id', { traceparent: `00-${'0'.repeat(32)}-${PARENT_ID}-01` }],
      ['upper-case hex', { traceparent: `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01` }],
    ])('starts a new trace when the incoming context is %s: what it hands on is nothing or a fresh valid context', (_what, parent) => {
      let span: ReturnType<Tracer['startToolCall']> | undefined;
      expect(() => (span = tracer.startToolCall(parent as TraceContext | undefined))).not.toThrow();
      for (const handed of [span!.context(), span!.pluginCall({}).context()]) {
        if (handed === undefined) continue;
        expect(handed.traceparent).toMatch(HANDED_ON);
        expect(traceIdOf(handed)).not.toBe(TRACE_ID);
        expect(handed.traceparent.toLowerCase()).not.toContain(TRACE_ID);
      }
      expect(() => span!.end('success')).not.toThrow();
    });

    it('gives two calls without a context two different traces, when it hands anything on', () => {
      const first = tracer.startToolCall(undefined).context();
      const second = tracer.startToolCall(undefined).context();
      expect(first === undefined).toBe(second === undefined);
      if (first !== undefined) expect(traceIdOf(second)).not.toBe(traceIdOf(first));
    });

    it('records the call as one span in the incoming trace, and the plugin call as its child (recording adapters)', async () => {
      const span = tracer.startToolCall(INCOMING, { pluginId: 'acme.tools', tool: 'add_tag' });
      span.record({ invocationId: 'inv-1', exposedName: 'kandev_acme_tools_add_tag' });
      const call = span.pluginCall(FACTS);
      const handedToPlugin = call.context();
      call.end('success');
      span.end('tool_error');
      if (!fixture.finished) {
        expect(fixture.finished).toBeUndefined();
        return;
      }
      const spans = await fixture.finished();
      expect(spans).toHaveLength(2);
      const parent = spans.find((s) => s.parentSpanId === PARENT_ID);
      const child = spans.find((s) => s !== parent);
      expect(parent).toEqual({ traceId: TRACE_ID, spanId: expect.any(String), parentSpanId: PARENT_ID, facts: FACTS, outcome: 'tool_error', code: null });
      expect(child).toEqual({ traceId: TRACE_ID, spanId: expect.any(String), parentSpanId: parent!.spanId, facts: FACTS, outcome: 'success', code: null });
      expect(child!.spanId).not.toBe(parent!.spanId);
      // The context handed on names the span that hands it, so the next hop's spans are its children.
      expect(spanIdOf(handedToPlugin)).toBe(child!.spanId);
      expect(spanIdOf(span.context())).toBe(parent!.spanId);
    });

    it('lets a later value of a fact replace the earlier one, and counts only the first end (recording adapters)', async () => {
      const span = tracer.startToolCall(undefined, { pluginId: 'first.plugin', tool: 'first' });
      span.record({ tool: 'second' });
      span.record({ invocationId: 'inv-9' });
      span.end('cancelled', 'CANCELLED');
      span.end('success');
      span.end('error', 'BAD_RESULT');
      if (!fixture.finished) {
        expect(fixture.finished).toBeUndefined();
        return;
      }
      const spans = await fixture.finished();
      expect(spans).toEqual([
        {
          traceId: expect.any(String),
          spanId: expect.any(String),
          parentSpanId: undefined,
          facts: { pluginId: 'first.plugin', tool: 'second', invocationId: 'inv-9' },
          outcome: 'cancelled',
          code: 'CANCELLED',
        },
      ]);
    });

    it('shuts down within its bound, more than once, and still never throws on a call started after', async () => {
      tracer.startToolCall(INCOMING, FACTS).end('success');
      const started = Date.now();
      await expect(tracer.shutdown(500)).resolves.toBeUndefined();
      await expect(tracer.shutdown(500)).resolves.toBeUndefined();
      expect(Date.now() - started).toBeLessThan(1500);
      expect(() => {
        const late = tracer.startToolCall(INCOMING, FACTS);
        late.pluginCall(FACTS).end('success');
        late.end('error', 'BACKEND_UNAVAILABLE');
      }).not.toThrow();
    });
  });
}
