import type { SessionIdentity } from '../../domain/session';
import type { CatalogService } from '../catalog/catalog-service';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { RefusedCallReport } from '../ports/link-messages';
import type { CallEvents } from './call-events';

/**
 * A call agentctl refused itself and reported over its link (docs/agentctl.md §7,
 * `mcp.report_refused_call`): one log line and one call event with the outcome `refused`, so the
 * metrics and the console's calls view count it. Never the arguments: the report has none.
 * A plugin and tool the report names count only when the current catalog has that tool, so a
 * peer cannot add metric series of its own making.
 */
export class RecordRefusedCall {
  constructor(
    private readonly catalog: CatalogService,
    private readonly calls: CallEvents,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  execute(session: SessionIdentity, report: RefusedCallReport): void {
    const id = this.ids.newId();
    const catalogRevision = this.catalog.current().revision;
    const named = report.tool;
    const listed = named && this.catalog.current().tools.some((tool) => tool.plugin_id === named.pluginId && tool.local_name === named.localName);
    const pluginId = listed ? named.pluginId : '';
    const localName = listed ? named.localName : '';
    this.logger.info(
      {
        invocation_id: id,
        tool: report.name,
        ...(listed ? { plugin_id: pluginId, local_name: localName } : {}),
        task_id: session.task_id,
        session_id: session.session_id,
        outcome: 'refused',
        code: report.code,
        catalog_revision: catalogRevision,
      },
      'tool call refused by agentctl',
    );
    this.calls.callEnded({
      invocationId: id,
      pluginId,
      localName,
      exposedName: report.name,
      taskId: session.task_id,
      sessionId: session.session_id,
      outcome: 'refused',
      code: report.code,
      startedAt: new Date(this.clock.now()).toISOString(),
      durationMs: 0,
      catalogRevision,
    });
  }
}
