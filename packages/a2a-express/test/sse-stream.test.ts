// SseStream driven through stand-ins for Node's response: its bound on what waits for a client
// that does not read (a socket always full: write returns false, no 'drain' comes, so the moment
// of the cut is exact rather than up to the kernel's buffer sizes), and when it writes.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { SseStream, type SseCloseReason } from '../src/transports/sse.js';
import { nodeResponse } from '../src/edge/node.js';

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
  const stream = new SseStream(nodeResponse(res as unknown as ServerResponse), {
    heartbeatMs: 60_000,
    maxQueuedBytes: 10_000,
    eventIds: false,
  });
  const closed: SseCloseReason[] = [];
  stream.onClose((reason) => closed.push(reason));
  stream.open();
  stream.send(1, '"first"');
  await new Promise((resolve) => setImmediate(resolve)); // the first write: the socket is now full
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

/** A response whose socket takes everything, recording what the stream asks of it, in order. */
class RecordingResponse extends EventEmitter {
  destroyed = false;
  writableEnded = false;
  writableFinished = false;
  calls: string[] = [];
  writeHead() {
    return this;
  }
  flushHeaders() {
    this.calls.push('headers alone');
  }
  write(chunk: string) {
    this.calls.push(`write ${chunk}`);
    return true;
  }
  end() {
    this.calls.push('end');
  }
}

const loopTurned = () => new Promise((resolve) => setImmediate(resolve));

test('the headers wait for the first events a few ticks behind the open, and go in the same write', async () => {
  const res = new RecordingResponse();
  const stream = new SseStream(nodeResponse(res as unknown as ServerResponse), {
    heartbeatMs: 60_000,
    maxQueuedBytes: 10_000,
    eventIds: false,
  });
  stream.open();
  // As a turn's first update reaches a stream: through a tick and promises, no I/O.
  await new Promise((resolve) => process.nextTick(resolve));
  await Promise.resolve();
  stream.send(1, '"first"');
  stream.send(2, '"second"');
  await loopTurned();
  // Each write is a system call that wakes the client: one here, where the headers alone would
  // have made two.
  expect(res.calls).toEqual(['write data: "first"\n\ndata: "second"\n\n']);
  stream.send(3, '"third"');
  stream.end();
  await loopTurned();
  expect(res.calls.slice(1)).toEqual(['write data: "third"\n\n', 'end']);
});

test('with no event by the time the event loop turns, the headers go alone (a quiet stream is open at once)', async () => {
  const res = new RecordingResponse();
  const stream = new SseStream(nodeResponse(res as unknown as ServerResponse), {
    heartbeatMs: 60_000,
    maxQueuedBytes: 10_000,
    eventIds: false,
  });
  stream.open();
  await loopTurned();
  expect(res.calls).toEqual(['headers alone']);
  stream.send(1, '"late"');
  await loopTurned();
  expect(res.calls).toEqual(['headers alone', 'write data: "late"\n\n']);
  stream.end();
});

test('the write that filled the socket counts: a first event larger than maxQueuedBytes, never read, is cut at the second heartbeat', async () => {
  const res = new FullSocketResponse();
  const stream = new SseStream(nodeResponse(res as unknown as ServerResponse), {
    heartbeatMs: 10,
    maxQueuedBytes: 10_000,
    eventIds: false,
  });
  const closed: SseCloseReason[] = [];
  stream.onClose((reason) => closed.push(reason));
  stream.open();
  // A subscription's first event is the whole task: one frame, past the bound, and nothing after it.
  stream.send(1, JSON.stringify('x'.repeat(50_000)));
  for (let i = 0; i < 100 && closed.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(res.writes).toHaveLength(1);
  expect(closed).toEqual(['overflow']);
});

test('a socket full for a while with less than maxQueuedBytes held keeps its stream', async () => {
  const res = new FullSocketResponse();
  const stream = new SseStream(nodeResponse(res as unknown as ServerResponse), {
    heartbeatMs: 10,
    maxQueuedBytes: 10_000,
    eventIds: false,
  });
  const closed: SseCloseReason[] = [];
  stream.onClose((reason) => closed.push(reason));
  stream.open();
  stream.send(1, JSON.stringify('x'.repeat(5_000)));
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(closed).toEqual([]);
  stream.end();
});
