import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { sandboxSuiteMode, sandboxSuiteProblem } from '../../support/sandbox-suite';

/** How the red-team suite beside this file treats a machine where bubblewrap cannot run (TOOLPORT_SANDBOX_SUITE_MODE). */
describe('the sandbox suite mode', () => {
  it('is auto unless told, takes require, and refuses anything else by name', () => {
    expect(sandboxSuiteMode({})).toBe('auto');
    expect(sandboxSuiteMode({ TOOLPORT_SANDBOX_SUITE_MODE: 'require' })).toBe('require');
    expect(() => sandboxSuiteMode({ TOOLPORT_SANDBOX_SUITE_MODE: 'off' })).toThrow('TOOLPORT_SANDBOX_SUITE_MODE must be require or auto, not "off"');
  });

  it('says why bubblewrap cannot run and what each mode then did, never passing quietly', () => {
    const missing = join(tmpdir(), 'no-such-folder', 'bwrap');
    expect(sandboxSuiteProblem('require', missing)).toBe(
      `the sandbox red-team suite cannot sandbox a plugin on this machine: ${missing} is not installed (Debian package bubblewrap). Install Debian's bubblewrap and allow unprivileged user namespaces; TOOLPORT_SANDBOX_SUITE_MODE=require fails the whole suite`,
    );
    expect(sandboxSuiteProblem('auto', missing)).toContain(
      'TOOLPORT_SANDBOX_SUITE_MODE=auto ran the --plugin-sandbox off half only; nothing here proves the sandbox',
    );
  });
});
