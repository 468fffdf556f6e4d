import { contentJson } from './content-json';
import type { InvokeAgentToolResponse } from './generated/toolport/plugin/v1/plugin';
import type { ToolResult } from './types';

/**
 * A handler's answer on the wire, or why it cannot be sent (the dispatcher then answers an
 * error result saying so). `text` goes as it is (the host refuses a blank one),
 * `structuredContent` and `content` as JSON text.
 */
export function toResponse(result: ToolResult | string): InvokeAgentToolResponse | { problem: string } {
  if (typeof result === 'string') return { text: result, structuredContentJson: '', contentJson: '', isError: false };
  if (!result || typeof result !== 'object') return { problem: 'the tool returned neither a string nor a result object' };
  let structuredContentJson = '';
  if (result.structuredContent !== undefined) {
    try {
      structuredContentJson = JSON.stringify(result.structuredContent);
    } catch {
      return { problem: 'the tool returned structured content that is not serialisable as JSON' };
    }
  }
  const content = contentJson(result.content);
  if ('problem' in content) return { problem: `the tool returned content the agent cannot read: ${content.problem}` };
  return { text: String(result.text ?? ''), structuredContentJson, contentJson: content.json, isError: result.isError === true };
}

/** An error result carrying `message` only (never a stack: it could show paths or data to the agent). */
export function errorResponse(message: string): InvokeAgentToolResponse {
  return { text: message.trim() === '' ? 'the tool failed' : message, structuredContentJson: '', contentJson: '', isError: true };
}
