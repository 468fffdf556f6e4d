import { Clock } from '../../application/ports/clock';

/** The machine's wall clock. */
export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
