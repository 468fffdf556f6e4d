import { ApplySnapshot } from '../../../src/application/agentctl/apply-snapshot';
import { HeldSchemaMemo } from '../../../src/application/agentctl/held-schema-memo';
import { AgentctlSession } from '../../../src/application/agentctl/session-identity';
import { ToolRegistry } from '../../../src/application/agentctl/tool-registry';
import { DEFAULT_SETTINGS } from '../../../src/application/settings';
import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import type { JsonObject } from '../../../src/domain/json';
import { SchemaCompiler } from '../../../src/domain/schema-compiler';
import { CapturingLogger } from '../../support/capturing-logger';
import { catalogTool, snapshotOf, TEST_IDENTITY } from '../../support/test-backend';

class CountingCompiler extends SchemaCompiler {
  compiles = 0;
  private readonly inner = new AjvSchemaCompiler();
  compile(schema: JsonObject) {
    this.compiles++;
    return this.inner.compile(schema);
  }
}

function setup(identity = TEST_IDENTITY) {
  const registry = new ToolRegistry();
  const compiler = new CountingCompiler();
  const apply = new ApplySnapshot(registry, new AgentctlSession(identity), new HeldSchemaMemo(compiler), DEFAULT_SETTINGS, new CapturingLogger());
  return { registry, compiler, apply };
}

const kanban = (name: string, field = 'value') =>
  catalogTool('acme.tools', name, { surfaces: ['kanban-task'], input_schema: { type: 'object', properties: { [field]: { type: 'string' } } } });
const office = (name: string) => catalogTool('office.tools', name, { surfaces: ['office-task'] });

describe('ApplySnapshot', () => {
  it('applies the first snapshot that shows tools: outcome applied, which notifies the sessions', () => {
    const { apply, registry } = setup();
    expect(apply.execute(snapshotOf([kanban('a')], 1))).toEqual({ ok: true, outcome: 'applied', generation: '000000000001-aaaaaaaa', revision: 1 });
    expect(registry.current().listing.map((t) => t.exposed_name)).toEqual(['get_task_context', 'kandev_acme_tools_a']);
  });

  it('stores a change on another surface only as unchanged, advancing the revision', () => {
    const { apply, registry } = setup();
    apply.execute(snapshotOf([kanban('a')], 1));
    expect(apply.execute(snapshotOf([kanban('a'), office('b')], 2))).toMatchObject({ outcome: 'unchanged', revision: 2 });
    expect(registry.current().snapshot?.revision).toBe(2);
    expect(apply.execute(snapshotOf([kanban('a'), office('c')], 2))).toMatchObject({ outcome: 'stale', revision: 2 });
  });

  it('answers stale for an older revision or generation and stores nothing', () => {
    const { apply, registry } = setup();
    apply.execute(snapshotOf([kanban('a')], 5));
    const held = registry.current();
    expect(apply.execute(snapshotOf([kanban('z')], 5))).toEqual({ ok: true, outcome: 'stale', generation: '000000000001-aaaaaaaa', revision: 5 });
    expect(apply.execute(snapshotOf([kanban('z')], 9, '000000000000-aaaaaaaa'))).toMatchObject({ outcome: 'stale' });
    expect(registry.current()).toBe(held);
  });

  it('refuses a malformed snapshot with every violation and changes nothing, even when it is also stale', () => {
    const { apply, registry } = setup();
    apply.execute(snapshotOf([kanban('a')], 5));
    const held = registry.current();
    const result = apply.execute({ generation: 'x', revision: 0, tools: [{ ...kanban('b'), exposed_name: 'get_task_context' }] });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.violations.map((v) => v.path)).toEqual(expect.arrayContaining(['generation', 'revision']));
    expect(registry.current()).toBe(held);
  });

  it('re-checks a held snapshot without recompiling its schemas', () => {
    const { apply, compiler } = setup();
    const tools = Array.from({ length: 40 }, (_, i) => kanban(`t${i}`, `field${i}`));
    apply.execute(snapshotOf(tools, 1));
    const first = compiler.compiles;
    expect(first).toBeGreaterThanOrEqual(40);
    apply.execute(snapshotOf([...tools, kanban('extra', 'fresh')], 2));
    expect(compiler.compiles - first).toBe(1);
  });

  it('sees no plugin tools on the configuration surface', () => {
    const { apply, registry } = setup({ ...TEST_IDENTITY, surface: 'configuration' });
    expect(apply.execute(snapshotOf([kanban('a'), office('b')], 1))).toMatchObject({ outcome: 'unchanged' });
    expect(registry.current().listing.map((t) => t.exposed_name)).toEqual(['get_task_context']);
  });
});
