import type { TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { TraceContext } from '../../application/ports/tracer';

/** W3C Trace Context only: Toolport hands on `traceparent` and `tracestate`, never baggage. */
export const W3C_PROPAGATOR = new W3CTraceContextPropagator();

type Carrier = Partial<Record<keyof TraceContext, string>>;

export const CONTEXT_GETTER: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => (key === 'traceparent' || key === 'tracestate' ? carrier[key] : undefined),
};

export const CONTEXT_SETTER: TextMapSetter<Carrier> = {
  set: (carrier, key, value) => {
    if (key === 'traceparent' || key === 'tracestate') carrier[key] = value;
  },
};
