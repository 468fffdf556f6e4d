import { NoOtherReplicas, OtherReplicas } from '../../../src/application/backend/other-replicas';
import { StartBackend } from '../../../src/application/backend/start-backend';
import { StopBackend } from '../../../src/application/backend/stop-backend';

/** Each part records its name when called, in one list, so a test reads the order of the steps. */
function recorder() {
  const steps: string[] = [];
  const step = (name: string, answer?: unknown) => (): unknown => {
    steps.push(name);
    return answer;
  };
  return { steps, step };
}

class RecordedReplicas extends OtherReplicas {
  constructor(private readonly steps: string[]) {
    super();
  }
  async startOwnCopies(): Promise<void> {
    this.steps.push('own copies');
  }
  async follow(): Promise<void> {
    this.steps.push('follow replicas');
  }
  async leave(): Promise<void> {
    this.steps.push('leave replicas');
  }
}

function startBackend(joined: boolean, others: (steps: string[]) => OtherReplicas) {
  const { steps, step } = recorder();
  const start = new StartBackend(
    { set: (url: string) => steps.push(`url ${url}`) } as never,
    { joinedOthers: () => joined } as never,
    { execute: step('reconcile sessions') } as never,
    { execute: step('supervise') } as never,
    { execute: step('fan out') } as never,
    { execute: step('boot plugins') } as never,
    others(steps),
    { start: step('prune sessions') } as never,
    { start: step('withdraw approval requests') } as never,
  );
  return { steps, start };
}

function stopBackend(othersLive: boolean, others: (steps: string[]) => OtherReplicas) {
  const { steps, step } = recorder();
  const stop = new StopBackend(
    others(steps),
    { dispose: step('stop fan-out') } as never,
    { dispose: step('stop following agentctls') } as never,
    { dispose: step('let go of agentctls') } as never,
    { othersLive: async () => othersLive } as never,
    { execute: step('stop all sessions') } as never,
    { dispose: step('stop supervision') } as never,
    { stopAll: step('stop plugins') } as never,
    { settled: step('configuration settled') } as never,
    { dispose: step('stop pruning sessions') } as never,
  );
  return { steps, stop };
}

describe('StartBackend', () => {
  it('alone: takes over the sessions, follows supervision and catalog changes, then boots the plugins and prunes sessions', async () => {
    const { steps, start } = startBackend(false, () => new NoOtherReplicas());
    await start.execute('http://127.0.0.1:7800');
    expect(steps).toEqual([
      'url http://127.0.0.1:7800',
      'withdraw approval requests',
      'reconcile sessions',
      'supervise',
      'fan out',
      'boot plugins',
      'prune sessions',
    ]);
  });

  it('a replica joining live ones leaves their sessions and records to them: it starts its own copies, then follows them', async () => {
    const { steps, start } = startBackend(true, (s) => new RecordedReplicas(s));
    await start.execute('http://127.0.0.1:7801');
    expect(steps).toEqual([
      'url http://127.0.0.1:7801',
      'withdraw approval requests',
      'supervise',
      'fan out',
      'own copies',
      'follow replicas',
      'prune sessions',
    ]);
  });

  it('the first replica of a cluster boots the plugins as a backend alone does, then follows the others', async () => {
    const { steps, start } = startBackend(false, (s) => new RecordedReplicas(s));
    await start.execute('http://127.0.0.1:7802');
    expect(steps).toEqual([
      'url http://127.0.0.1:7802',
      'withdraw approval requests',
      'reconcile sessions',
      'supervise',
      'fan out',
      'boot plugins',
      'follow replicas',
      'prune sessions',
    ]);
  });
});

describe('StopBackend', () => {
  it('alone: stops pushing, the agentctls and their sessions, then supervision and the plugins', async () => {
    const { steps, stop } = stopBackend(false, () => new NoOtherReplicas());
    await stop.execute();
    expect(steps).toEqual([
      'stop pruning sessions',
      'stop fan-out',
      'stop following agentctls',
      'let go of agentctls',
      'stop all sessions',
      'stop supervision',
      'stop plugins',
      'configuration settled',
    ]);
  });

  it('with another replica live: leaves first, and leaves the sessions and agentctls to the replicas staying', async () => {
    const { steps, stop } = stopBackend(true, (s) => new RecordedReplicas(s));
    await stop.execute();
    expect(steps).toEqual([
      'leave replicas',
      'stop pruning sessions',
      'stop fan-out',
      'stop following agentctls',
      'let go of agentctls',
      'stop supervision',
      'stop plugins',
      'configuration settled',
    ]);
  });
});
