/** The operator settings of docs/operations.md, resolved (flag, then environment variable, then default). */
export interface Settings {
  toolPrefix: string;
  toolTimeoutMs: number;
  pluginStartTimeoutMs: number;
  /** First restart delay; it doubles on each attempt. */
  restartBackoffMs: number;
  healthIntervalMs: number;
  pluginMaxInflight: number;
  /** Each session's share of a plugin's in-flight calls, so one agent cannot take them all. */
  sessionMaxInflight: number;
  /** How long a call an approval rule holds waits for a decision (docs/approvals.md). */
  approvalTimeoutMs: number;
  /** How long a decided, expired or withdrawn approval request is kept after its expiry (docs/approvals.md). */
  approvalRetentionMs: number;
  /** While a call waits for approval, how often the agentctl sends `notifications/progress` (docs/approvals.md). */
  approvalProgressMs: number;
  /** How long a session stays `live` with its agentctl's link down before it is `dead`. */
  sessionGraceMs: number;
  /** How long a stopped (or dead) session is kept before the backend removes it. */
  sessionRetentionMs: number;
  /** The most stopped sessions kept: past that, the oldest are removed. */
  sessionRetentionMax: number;
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
}

export const DEFAULT_SETTINGS: Settings = {
  toolPrefix: 'kandev',
  toolTimeoutMs: 30000,
  pluginStartTimeoutMs: 30000,
  restartBackoffMs: 1000,
  healthIntervalMs: 5000,
  pluginMaxInflight: 32,
  sessionMaxInflight: 8,
  approvalTimeoutMs: 300000,
  approvalRetentionMs: 7 * 24 * 60 * 60 * 1000,
  approvalProgressMs: 15000,
  sessionGraceMs: 30000,
  sessionRetentionMs: 24 * 60 * 60 * 1000,
  sessionRetentionMax: 1000,
  logLevel: 'info',
};
