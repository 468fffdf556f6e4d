import { rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';

/** One read's worth: what the kernel hands over per read of a stream socket. */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * A connected pair: `childEnd` goes to a child as its stdout or stderr (destroy the host's copy
 * once the child is spawned); the host reads the other end.
 */
export interface OutputChannel {
  childEnd: Socket;
  /** Resolves once every holder of the child end closed it and all it wrote was read. */
  closed: Promise<void>;
  /** Stops reading (when a leftover process keeps the child end open). */
  close(): void;
}

/**
 * A child's output channel read into one reused buffer. Why not a pipe: Node allocates a new
 * 64 KiB buffer per pipe read and frees them only at the next garbage collection, so a plugin
 * writing hundreds of megabytes raised the backend's memory by tens of megabytes even though
 * every byte past the 64 KiB line limit was dropped at once. A stream socket read with
 * `onread` allocates nothing per read. The pair is made through a listening socket in `dir`
 * (the start's private TMPDIR, so no other user can connect), closed and removed before the
 * child starts. `onData` must copy what it keeps: the buffer is overwritten by the next read.
 */
export async function openOutputChannel(dir: string, name: string, onData: (chunk: Buffer) => void): Promise<OutputChannel> {
  const path = join(dir, name);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  try {
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const reader = connect({
      path,
      onread: {
        buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
        callback: (bytes: number, buffer: Uint8Array) => {
          onData(Buffer.from(buffer.buffer, buffer.byteOffset, bytes));
          return true;
        },
      },
    });
    const childEnd = await accepted;
    const closed = new Promise<void>((resolve) => {
      reader.once('close', () => resolve());
      reader.once('error', () => undefined);
    });
    return { childEnd, closed, close: () => reader.destroy() };
  } finally {
    server.close();
    rmSync(path, { force: true });
  }
}
