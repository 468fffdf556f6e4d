import { Disposals } from '../../src/composition/disposals';
import { CapturingLogger } from '../support/capturing-logger';

describe('Disposals', () => {
  it('runs every disposal once, last registered first, even when one fails', async () => {
    const logger = new CapturingLogger();
    const disposals = new Disposals(logger);
    const ran: string[] = [];
    disposals.add('traces', () => void ran.push('traces'));
    disposals.add('server', async () => {
      ran.push('server');
      throw new Error('already closed');
    });
    disposals.add('link', async () => void ran.push('link'));
    await Promise.all([disposals.disposeAll(), disposals.disposeAll()]);
    await disposals.disposeAll();
    expect(ran).toEqual(['link', 'server', 'traces']);
    expect(logger.withMessage('closing failed')[0]!.fields).toMatchObject({ what: 'server', err: 'already closed' });
  });
});
