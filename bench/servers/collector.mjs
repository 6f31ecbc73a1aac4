// An OTLP/HTTP collector stand-in for the bench, in a process of its own so that what the traced
// server exports does not load the process that measures: reads every request and counts it,
// its bytes and its spans, answers 200. Reports its port, and its counts when asked.
import http from 'node:http';

const received = { requests: 0, bytes: 0, spans: 0 };
const SPAN = /"spanId":/g;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => {
    received.bytes += chunk.length;
    chunks.push(chunk);
  });
  req.on('end', () => {
    received.requests++;
    // OTLP/JSON: one "spanId" per span (links and parents are "parentSpanId", which this skips).
    received.spans += Buffer.concat(chunks).toString('utf8').match(SPAN)?.length ?? 0;
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('message', () => process.send?.({ ...received }));
process.on('SIGTERM', () => process.exit(0));
