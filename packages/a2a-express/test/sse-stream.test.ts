// SseStream's bound on what waits for a client that does not read, driven through a stand-in for
// Node's response whose socket is always full (write returns false, no 'drain' comes), so the
// moment of the cut is exact rather than up to the kernel's buffer sizes.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { SseStream, type SseCloseReason } from '../src/transports/sse.js';

class FullSocketResponse extends EventEmitter {
  destroyed = false;
  writableFinished = false;
  writes: string[] = [];
  writeHead() {
    return this;
  }
  flushHeaders() {}
  write(chunk: string) {
    this.writes.push(chunk);
    return false;
  }
  end() {}
  destroy() {
    this.destroyed = true;
  }
}

test('maxQueuedBytes counts UTF-8 bytes, not characters: three-byte text is cut three times sooner', async () => {
  const res = new FullSocketResponse();
  const stream = new SseStream(res as unknown as ServerResponse, { heartbeatMs: 60_000, maxQueuedBytes: 10_000, eventIds: false });
  const closed: SseCloseReason[] = [];
  stream.onClose((reason) => closed.push(reason));
  stream.open();
  stream.send(1, '"first"');
  await new Promise((resolve) => process.nextTick(resolve)); // the first write: the socket is now full
  expect(res.writes).toHaveLength(1);
  const euros = JSON.stringify('€'.repeat(1_000)); // 1,002 characters, 3,002 bytes
  let queued = 0;
  while (closed.length === 0 && queued < 20) {
    stream.send(2 + queued, euros);
    queued++;
  }
  // Each frame is 3,010 bytes: the fourth passes 10,000 bytes (counting characters, the tenth would).
  expect([queued, closed]).toEqual([4, ['overflow']]);
});
