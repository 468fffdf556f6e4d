import type { SessionIdentity } from '../../domain/session';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { RefusedCallReport } from '../ports/link-messages';
import type { CallEvents } from './call-events';

/**
 * A call agentctl refused itself and reported over its link (docs/agentctl.md §7,
 * `mcp.report_refused_call`): one log line and one call event with the outcome `refused`, so the
 * metrics and the console's calls view count it. Never the arguments: the report has none.
 */
export class RecordRefusedCall {
  constructor(
    private readonly calls: CallEvents,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  execute(session: SessionIdentity, report: RefusedCallReport): void {
    const id = this.ids.newId();
    const pluginId = report.tool?.pluginId ?? '';
    const localName = report.tool?.localName ?? '';
    this.logger.info(
      {
        invocation_id: id,
        tool: report.name,
        ...(report.tool ? { plugin_id: pluginId, local_name: localName } : {}),
        task_id: session.task_id,
        session_id: session.session_id,
        outcome: 'refused',
        code: report.code,
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
    });
  }
}
