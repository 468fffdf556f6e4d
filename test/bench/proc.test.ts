import { descendantsOf, listeningPortsIn } from '../../bench/proc';

const TABLE = [
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 0100007F:3AB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2156901 1 000000000f3d6282 100 0 0 10 0',
  '   1: 0100007F:3C1B 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2157736 1 00000000033abb06 100 0 0 10 0',
  '   2: 0100007F:3AB8 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 2156999 1 0000000000000000 20 4 30 10 -1',
  '',
].join('\n');

describe('the bench reading /proc', () => {
  it('finds a process tree from each pid’s parent, grandchildren included, and nothing beside it', () => {
    const parents = new Map([
      [10, 1],
      [11, 10],
      [12, 11],
      [13, 10],
      [20, 1],
      [21, 20],
    ]);
    expect(descendantsOf(10, parents).sort()).toEqual([10, 11, 12, 13]);
    expect(descendantsOf(21, parents)).toEqual([21]);
  });

  it('answers the ports a process’s sockets listen on, not its connections or other processes’ sockets', () => {
    expect(listeningPortsIn(TABLE, new Set(['2156901', '2156999']))).toEqual([0x3ab8]);
    expect(listeningPortsIn(TABLE, new Set(['2157736']))).toEqual([0x3c1b]);
    expect(listeningPortsIn(TABLE, new Set(['999']))).toEqual([]);
  });
});
