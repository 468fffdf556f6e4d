import { readFileSync } from 'node:fs';
import type { ApprovalRequest, ApprovalRule, DecidedApprovalRequest } from '../../../api';
import { UsageError } from '../exit-codes';
import { formatTable } from '../table';
import type { CliIo, CommandHandlers, CommandInput } from '../program';
import { runApiCommand } from './api-command';

/** The rules in `path`, parsed; a usage error naming the file when it cannot be read or is not JSON. */
export function rulesFileOf(path: string | undefined): unknown {
  if (path === undefined) throw new UsageError('approval rules set takes the file with the rules: toolport approval rules set <file.json>');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${path} is not JSON: it must hold a list of approval rules [{"workspace", "profile", "tools", "mode"}, …]`);
  }
}

export function describeRules(rules: ApprovalRule[]): string {
  if (rules.length === 0) return 'No approval rules: no call waits for approval\n';
  return formatTable(
    ['#', 'WORKSPACE', 'PROFILE', 'TOOLS', 'MODE'],
    rules.map((rule, index) => [String(index), rule.workspace, rule.profile, rule.tools, rule.mode]),
  );
}

function describeRequests(requests: ApprovalRequest[]): string {
  if (requests.length === 0) return 'No call awaits approval\n';
  return formatTable(
    ['ID', 'TOOL', 'WORKSPACE', 'PROFILE', 'SESSION', 'TASK', 'EXPIRES'],
    requests.map((r) => [r.id, r.tool, r.workspace_id, r.profile, r.session_id, r.task_id, r.expires_at]),
  );
}

function describeDecision(decided: DecidedApprovalRequest): string {
  const verb = decided.decision === 'approved' ? 'Approved' : 'Denied';
  return `${verb} ${decided.tool} for session ${decided.session_id} (request ${decided.id})${decided.reason ? `: ${decided.reason}` : ''}\n`;
}

/** `toolport approval rules get|set`, `approval list`, `approval approve|deny` (docs/cli.md). */
export function approvalCommands(io: CliIo): Pick<CommandHandlers, 'approval.rules' | 'approval.list' | 'approval.approve' | 'approval.deny'> {
  const decide = (input: CommandInput, route: 'POST /api/v1/approvals/:id/approve' | 'POST /api/v1/approvals/:id/deny') =>
    runApiCommand(io, input, {
      route,
      params: { id: input.args[0]! },
      body: typeof input.options.reason === 'string' ? { reason: input.options.reason } : {},
      render: describeDecision,
    });
  return {
    'approval.rules': async (input) => {
      const [action, file] = input.args;
      if (action === 'get') {
        if (file !== undefined) throw new UsageError('approval rules get takes no file');
        return runApiCommand(io, input, { route: 'GET /api/v1/approval-rules', render: describeRules });
      }
      if (action === 'set') return runApiCommand(io, input, { route: 'PUT /api/v1/approval-rules', body: rulesFileOf(file), render: describeRules });
      throw new UsageError(`approval rules takes get or set <file.json>, not ${JSON.stringify(action)}`);
    },
    'approval.list': (input) => runApiCommand(io, input, { route: 'GET /api/v1/approvals', render: describeRequests }),
    'approval.approve': (input) => decide(input, 'POST /api/v1/approvals/:id/approve'),
    'approval.deny': (input) => decide(input, 'POST /api/v1/approvals/:id/deny'),
  };
}
