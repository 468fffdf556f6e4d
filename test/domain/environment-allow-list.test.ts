import { allowListedEnvironment } from '../../src/domain/environment-allow-list';

const HOST = {
  PATH: '/usr/bin',
  LC_ALL: 'C',
  TOOLPORT_ADMIN_TOKEN: 'admin-secret',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_EXPORTER_OTLP_HEADERS: 'api-key=collector-secret',
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'api-key=traces-secret',
  OTEL_BSP_SCHEDULE_DELAY: '50',
  OTELX: 'not telemetry',
};

describe('allowListedEnvironment', () => {
  it('passes no OTEL variable unless asked to', () => {
    expect(allowListedEnvironment(HOST)).toEqual({ PATH: '/usr/bin', LC_ALL: 'C' });
  });

  it('gives a plugin the OTEL variables but never the exporter headers', () => {
    expect(allowListedEnvironment(HOST, 'without-headers')).toEqual({
      PATH: '/usr/bin',
      LC_ALL: 'C',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
  });

  it('gives an agentctl every OTEL variable, headers included, and still no other setting', () => {
    const env = allowListedEnvironment(HOST, 'all');
    expect(env.OTEL_EXPORTER_OTLP_HEADERS).toBe('api-key=collector-secret');
    expect(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS).toBe('api-key=traces-secret');
    expect(env.TOOLPORT_ADMIN_TOKEN).toBeUndefined();
    expect(env.OTELX).toBeUndefined();
  });
});
