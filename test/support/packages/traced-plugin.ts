import { writePluginPackage } from './plugin-package';
import { stringToolManifest } from './string-tool-plugin';

/** The service name the traced plugin exports its spans under. */
export const TRACED_PLUGIN_SERVICE = 'e2e-traced-plugin';

/**
 * An SDK plugin that uses OpenTelemetry as a plugin author would: when the standard variables
 * name an endpoint it registers a tracer provider exporting OTLP/HTTP JSON there. Its one
 * kanban-task tool `echo` answers `echo <s>`, so the argument comes back in the result. Install
 * it with the `network` grant.
 */
export function writeTracedPlugin(dir: string, id: string): string {
  return writePluginPackage(dir, {
    // It exports its spans to a collector over TCP, so it asks for the network (docs/plugin-protocol.md §2).
    manifest: { ...stringToolManifest(id, 'echo', 'Says back what it is given.'), permissions: { network: true } },
    source: `
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { serve } from '@toolport/plugin-sdk';

if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const exporter = new OTLPTraceExporter();
  const scheduledDelayMillis = Number(process.env.OTEL_BSP_SCHEDULE_DELAY ?? 5000);
  trace.setGlobalTracerProvider(
    new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': ${JSON.stringify(TRACED_PLUGIN_SERVICE)} }),
      spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis })],
    }),
  );
}
void serve({ tools: { echo: (args) => 'echo ' + String(args.s) } });
`,
  });
}
