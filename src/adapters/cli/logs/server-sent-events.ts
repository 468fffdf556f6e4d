/** One event of a `text/event-stream` body. */
export interface ServerSentEvent {
  type: string;
  data: string;
}

/**
 * Cuts a server-sent events body into events however its bytes arrive: `event:` and `data:`
 * fields up to a blank line; comments (`: keep-alive`) and other fields are skipped.
 */
export class ServerSentEvents {
  private pending = '';

  constructor(private readonly onEvent: (event: ServerSentEvent) => void) {}

  push(chunk: string): void {
    this.pending += chunk.replace(/\r\n?/g, '\n');
    for (let end = this.pending.indexOf('\n\n'); end !== -1; end = this.pending.indexOf('\n\n')) {
      const block = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 2);
      this.emit(block);
    }
  }

  private emit(block: string): void {
    let type = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) this.onEvent({ type, data: data.join('\n') });
  }
}
