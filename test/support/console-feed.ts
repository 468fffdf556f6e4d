import { ApprovalDesk } from '../../src/application/approvals/approval-desk';
import { ListApprovals } from '../../src/application/approvals/list-approvals';
import { ConsoleFeed } from '../../src/application/console/console-feed';
import { ListPlugins } from '../../src/application/plugins/list-plugins';
import { PluginViews } from '../../src/application/plugins/plugin-views';
import { PluginLogs } from '../../src/application/ports/plugin-logs';
import { PluginRuntime } from '../../src/application/ports/plugin-runtime';
import { ListSessions } from '../../src/application/sessions/list-sessions';
import { SessionChanges } from '../../src/application/sessions/session-changes';
import type { BackendHarness } from './backend-harness';

/** The console's live channel over a harness's container, as `serve` builds it (call totals all zero). */
export function consoleFeedOf(h: BackendHarness, sharedStore?: () => boolean): ConsoleFeed {
  return new ConsoleFeed({
    catalog: h.catalog,
    calls: h.calls,
    sessions: h.container.get(SessionChanges),
    logs: h.container.get(PluginLogs),
    listPlugins: h.container.get(ListPlugins),
    listSessions: h.container.get(ListSessions),
    views: h.container.get(PluginViews),
    processes: h.container.get(PluginRuntime),
    callTotals: async () => ({ total: 0, byOutcome: { success: 0, tool_error: 0, error: 0, cancelled: 0, refused: 0 }, byCode: {} }),
    toolPrefix: h.settings.toolPrefix,
    desk: h.container.get(ApprovalDesk),
    listApprovals: h.container.get(ListApprovals),
    ...(sharedStore ? { sharedStore } : {}),
  });
}
