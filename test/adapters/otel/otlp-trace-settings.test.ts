import { otlpTraceSettings } from '../../../src/adapters/otel/otlp-trace-settings';

describe('otlpTraceSettings', () => {
  it('is off without an OTLP endpoint, whatever else is set: no export to the default endpoint', () => {
    expect(otlpTraceSettings({})).toEqual({ enabled: false });
    expect(otlpTraceSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toEqual({
      enabled: false,
    });
  });

  it('is on with either endpoint variable, http/protobuf unless told otherwise, batching from OTEL_BSP_*', () => {
    expect(otlpTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({ enabled: true, protocol: 'http/protobuf', batch: {} });
    expect(
      otlpTraceSettings({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '20',
      }),
    ).toEqual({ enabled: true, protocol: 'http/json', batch: { scheduledDelayMillis: 20 } });
    expect(
      otlpTraceSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).toMatchObject({
      protocol: 'http/protobuf',
    });
  });

  it('honours the standard off switches', () => {
    expect(otlpTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_SDK_DISABLED: 'TRUE' })).toEqual({ enabled: false });
    expect(otlpTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_TRACES_EXPORTER: 'none' })).toEqual({ enabled: false });
  });

  it('turns traces off with a problem naming the setting it cannot honour', () => {
    expect(otlpTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual({
      enabled: false,
      problem: 'OTEL_EXPORTER_OTLP_PROTOCOL "grpc" is not supported (use http/protobuf or http/json); traces are off',
    });
    expect(otlpTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://h', OTEL_BSP_SCHEDULE_DELAY: 'soon' })).toEqual({
      enabled: false,
      problem: 'OTEL_BSP_SCHEDULE_DELAY must be a whole number, not "soon"; traces are off',
    });
  });
});
