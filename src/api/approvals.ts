/**
 * The approval rules and requests as `GET|PUT /api/v1/approval-rules` and `/api/v1/approvals`
 * answer them (docs/http-api.md, approvals; docs/approvals.md).
 */
export type { ApprovalRequest, ApprovalRule, DecidedApprovalRequest } from '../domain/approvals';
