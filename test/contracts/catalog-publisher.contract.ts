import type { CatalogPublisher, CatalogPush, PushAnswer } from '../../src/application/ports/catalog-publisher';
import { catalogDelta } from '../../src/domain/catalog-delta';
import { catalogTool, snapshotOf } from '../support/test-backend';

/** How a fake agentctl answers one push: an answer, or no answer (silent), a refusal, or its link dropping. */
export type AgentctlAnswer = PushAnswer | 'silent' | 'refuse' | 'drop';

/** One linked fake agentctl: what it received, decoded back into pushes, in order. */
export interface LinkedAgentctl {
  readonly received: CatalogPush[];
  /** Drops its link; resolves once the publisher no longer counts it linked. */
  drop(): Promise<void>;
}

/** One CatalogPublisher adapter under test, with fake agentctls that link to it. */
export interface CatalogPublisherFixture {
  publisher: CatalogPublisher;
  /**
   * An agentctl of `sessionId` links (a newer link of a session replaces its older one) and
   * answers each push as `answer` says; resolves once the publisher counts it linked.
   */
  link(sessionId: string, answer: (push: CatalogPush) => AgentctlAnswer): Promise<LinkedAgentctl>;
  cleanup(): Promise<void>;
}

export type CatalogPublisherFixtureFactory = () => CatalogPublisherFixture | Promise<CatalogPublisherFixture>;

const GENERATION = '000000000004-0badcafe';
const R1 = snapshotOf([catalogTool('acme.tools', 'add_tag'), catalogTool('acme.tools', 'remove_tag')], 1, GENERATION);
const R2 = snapshotOf(
  [catalogTool('acme.tools', 'add_tag', { description: 'Adds a tag, now with colours ✓' }), catalogTool('other.plugin', 'ping')],
  2,
  GENERATION,
);
const FULL: CatalogPush = { snapshot: R2 };
const DELTA: CatalogPush = { delta: catalogDelta(R1, R2)! };

/** Applies every push at the revision it brings. */
export function applies(push: CatalogPush): PushAnswer {
  const at = 'snapshot' in push ? push.snapshot : push.delta;
  return { outcome: 'applied', generation: at.generation, revision: at.revision };
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The CatalogPublisher contract (the port's promises and docs/agentctl.md §7 `catalog.push`: the
 * links it holds now, each push delivered as built, every named session answered or given an
 * Error saying why not, never a rejection), run with `describe.each` over `[name, factory]` rows.
 */
export function describeCatalogPublisherContract(rows: Array<[string, CatalogPublisherFixtureFactory]>): void {
  describe.each(rows)('CatalogPublisher contract: %s', (_name, factory) => {
    let fixture: CatalogPublisherFixture;
    let publisher: CatalogPublisher;
    beforeEach(async () => {
      fixture = await factory();
      publisher = fixture.publisher;
    });
    afterEach(() => fixture.cleanup());

    it('knows the sessions whose agentctl holds a link now', async () => {
      expect(publisher.linkedSessions()).toEqual([]);
      expect(publisher.isLinked('s1')).toBe(false);
      const s1 = await fixture.link('s1', applies);
      await fixture.link('s2', applies);
      expect([...publisher.linkedSessions()].sort()).toEqual(['s1', 's2']);
      expect(publisher.isLinked('s1')).toBe(true);
      expect(publisher.isLinked('s3')).toBe(false);
      await s1.drop();
      expect(publisher.linkedSessions()).toEqual(['s2']);
      expect(publisher.isLinked('s1')).toBe(false);
    });

    it('delivers a full snapshot as built to every session named, and resolves with each answer as given', async () => {
      const s1 = await fixture.link('s1', applies);
      const s2 = await fixture.link('s2', () => ({ outcome: 'unchanged', generation: GENERATION, revision: 2 }));
      const s3 = await fixture.link('s3', () => ({ outcome: 'stale', generation: '000000000005-00000001', revision: 9 }));
      const answers = await publisher.push(['s1', 's2', 's3'], FULL, 2000);
      expect(answers).toEqual(
        new Map<string, PushAnswer>([
          ['s1', { outcome: 'applied', generation: GENERATION, revision: 2 }],
          ['s2', { outcome: 'unchanged', generation: GENERATION, revision: 2 }],
          ['s3', { outcome: 'stale', generation: '000000000005-00000001', revision: 9 }],
        ]),
      );
      for (const agentctl of [s1, s2, s3]) expect(agentctl.received).toEqual([FULL]);
    });

    it('delivers a delta as built, and passes base_mismatch back as an answer, not a failure', async () => {
      const s1 = await fixture.link('s1', applies);
      const s2 = await fixture.link('s2', () => ({ outcome: 'base_mismatch', generation: GENERATION, revision: 7 }));
      const answers = await publisher.push(['s1', 's2'], DELTA, 2000);
      expect(answers.get('s1')).toEqual({ outcome: 'applied', generation: GENERATION, revision: 2 });
      expect(answers.get('s2')).toEqual({ outcome: 'base_mismatch', generation: GENERATION, revision: 7 });
      expect(s1.received).toEqual([DELTA]);
      expect(s2.received).toEqual([DELTA]);
      expect(DELTA).toMatchObject({ delta: { baseRevision: 1, remove: ['kandev_acme_tools_remove_tag'] } });
    });

    it('sends nothing and resolves with an empty map for no sessions', async () => {
      const s1 = await fixture.link('s1', applies);
      await expect(publisher.push([], FULL, 2000)).resolves.toEqual(new Map());
      expect(s1.received).toEqual([]);
    });

    it('gives a session without a link an Error, never a rejection, and still answers the others', async () => {
      const s1 = await fixture.link('s1', applies);
      const gone = await fixture.link('gone', applies);
      await gone.drop();
      const answers = await publisher.push(['never-linked', 's1', 'gone'], FULL, 2000);
      expect([...answers.keys()].sort()).toEqual(['gone', 'never-linked', 's1']);
      expect(answers.get('never-linked')).toBeInstanceOf(Error);
      expect(answers.get('gone')).toBeInstanceOf(Error);
      expect(answers.get('s1')).toEqual(applies(FULL));
      expect(s1.received).toEqual([FULL]);
      expect(gone.received).toEqual([]);
    });

    it('gives an agentctl that does not answer within timeoutMs an Error at about that time, without holding up the others', async () => {
      await fixture.link('quiet', () => 'silent');
      await fixture.link('s1', applies);
      const started = Date.now();
      const answers = await publisher.push(['quiet', 's1'], FULL, 300);
      const took = Date.now() - started;
      expect(answers.get('quiet')).toBeInstanceOf(Error);
      expect((answers.get('quiet') as Error).message).toMatch(/300/);
      expect(answers.get('s1')).toEqual(applies(FULL));
      expect(took).toBeGreaterThanOrEqual(250);
      expect(took).toBeLessThan(2000);
    });

    it('gives an agentctl whose link drops while it is waited on an Error at once, not at the timeout', async () => {
      const dropping = await fixture.link('dropping', () => 'drop');
      const started = Date.now();
      const answers = await publisher.push(['dropping'], FULL, 10_000);
      expect(answers.get('dropping')).toBeInstanceOf(Error);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(dropping.received).toEqual([FULL]);
      await until(() => !publisher.isLinked('dropping'), 2000, 'the drop to be seen');
    });

    it('gives an agentctl that refuses the push an Error', async () => {
      await fixture.link('refuses', () => 'refuse');
      const answers = await publisher.push(['refuses'], DELTA, 2000);
      expect(answers.get('refuses')).toBeInstanceOf(Error);
    });

    it("sends a session's pushes to its newest link only, and counts the session once", async () => {
      const older = await fixture.link('s1', () => ({ outcome: 'stale', generation: GENERATION, revision: 1 }));
      const newer = await fixture.link('s1', applies);
      await until(() => publisher.linkedSessions().length === 1, 2000, 'one link for s1');
      expect(publisher.linkedSessions()).toEqual(['s1']);
      const answers = await publisher.push(['s1'], FULL, 2000);
      expect(answers).toEqual(new Map([['s1', applies(FULL)]]));
      expect(newer.received).toEqual([FULL]);
      expect(older.received).toEqual([]);
    });

    it('keeps answering later pushes in order on the same link', async () => {
      const s1 = await fixture.link('s1', applies);
      const first = await publisher.push(['s1'], { snapshot: R1 }, 2000);
      const second = await publisher.push(['s1'], DELTA, 2000);
      const both = await Promise.all([publisher.push(['s1'], FULL, 2000), publisher.push(['s1'], { snapshot: R1 }, 2000)]);
      expect(first.get('s1')).toEqual(applies({ snapshot: R1 }));
      expect(second.get('s1')).toEqual(applies(DELTA));
      expect(both.map((answers) => answers.get('s1'))).toEqual([applies(FULL), applies({ snapshot: R1 })]);
      expect(s1.received).toEqual([{ snapshot: R1 }, DELTA, FULL, { snapshot: R1 }]);
    });
  });
}
