import { startSessionRequestOf } from '../../../src/adapters/http/start-session-body';
import type { ToolportError } from '../../../src/domain/errors';

function refusal(body: unknown): ToolportError {
  try {
    startSessionRequestOf(body);
  } catch (error) {
    return error as ToolportError;
  }
  throw new Error('the body was accepted');
}

describe('POST /api/v1/sessions body', () => {
  it('reads a well-formed body, launching unless it says launch: false', () => {
    expect(startSessionRequestOf({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task' })).toEqual({
      task_id: 'T',
      workspace_id: 'W',
      surface: 'kanban-task',
      launch: true,
    });
    expect(startSessionRequestOf({ task_id: 'T', workspace_id: 'W', surface: 'external', launch: false }).launch).toBe(false);
  });

  it('refuses a bad body with BAD_REQUEST naming every field that is wrong', () => {
    const failure = refusal({ task_id: 'T', workspace_id: '', surface: 'nowhere', launch: 'yes' });
    expect(failure.code).toBe('BAD_REQUEST');
    expect(failure.message).toBe(
      'workspace_id must be a non-empty string of at most 256 characters; surface must be one of kanban-task, office-task, configuration, external; launch must be a boolean',
    );
    expect(failure.details).toHaveLength(3);
  });

  it('refuses what is not a JSON object, and ids over 256 characters', () => {
    expect(refusal([1, 2, 3])).toMatchObject({ code: 'BAD_REQUEST', message: 'the body must be a JSON object' });
    expect(refusal({ task_id: 'x'.repeat(257), workspace_id: 'W', surface: 'kanban-task' }).message).toMatch(/^task_id must be/);
  });

  it('carries a profile name when one is given, and none otherwise (the session then has default)', () => {
    expect(startSessionRequestOf({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task', profile: 'read-only.v2' }).profile).toBe('read-only.v2');
    expect(startSessionRequestOf({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task' })).not.toHaveProperty('profile');
  });

  it('refuses a profile name off the name pattern and the workspace id *, which stands for every workspace', () => {
    for (const profile of ['Default', '-x', '', 'a'.repeat(65), 7, 'a b']) {
      expect(refusal({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task', profile })).toMatchObject({
        code: 'BAD_REQUEST',
        message: 'profile must be a profile name matching ^[a-z0-9][a-z0-9._-]{0,63}$',
      });
    }
    expect(refusal({ task_id: 'T', workspace_id: '*', surface: 'kanban-task' }).message).toBe('workspace_id must not be "*", which stands for every workspace');
  });
});
