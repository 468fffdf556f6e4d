import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBackendInfo } from '../../../src/adapters/shared/backend-info-file';
import { BackendUrlSource } from '../../../src/adapters/websocket/backend-url-source';

describe('BackendUrlSource (agentctl failover across replicas, docs/operations.md §10)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolport-url-source-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const dials = (source: BackendUrlSource, count: number): Array<string | null> =>
    Array.from({ length: count }, () => {
      const url = source.wsUrl();
      source.next();
      return url;
    });

  it('dials the first of several comma-separated URLs, then each following one after a drop, wrapping around', () => {
    const source = new BackendUrlSource('http://a:1, http://b:2,,https://c:3', undefined);
    expect(dials(source, 4)).toEqual([
      'ws://a:1/api/v1/agentctl/ws',
      'ws://b:2/api/v1/agentctl/ws',
      'wss://c:3/api/v1/agentctl/ws',
      'ws://a:1/api/v1/agentctl/ws',
    ]);
  });

  it('stays on a URL until it drops', () => {
    const source = new BackendUrlSource('http://a:1,http://b:2', undefined);
    expect([source.wsUrl(), source.wsUrl()]).toEqual(['ws://a:1/api/v1/agentctl/ws', 'ws://a:1/api/v1/agentctl/ws']);
  });

  it("tries the launching backend's backend.json first, then the given URLs without repeating it", () => {
    writeBackendInfo(dir, { url: 'http://b:2', pid: 1 });
    const source = new BackendUrlSource('http://a:1,http://b:2', dir);
    expect(dials(source, 3)).toEqual(['ws://b:2/api/v1/agentctl/ws', 'ws://a:1/api/v1/agentctl/ws', 'ws://b:2/api/v1/agentctl/ws']);
  });

  it('knows no URL when given none and no backend.json is there', () => {
    expect(new BackendUrlSource(undefined, dir).wsUrl()).toBeNull();
    expect(new BackendUrlSource(' , ', undefined).wsUrl()).toBeNull();
  });
});
