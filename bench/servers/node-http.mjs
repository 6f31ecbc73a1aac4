// Node's http module alone, answering the canned task bare Express answers (servers/bare.mjs):
// the floor under every server here, to show what Express itself costs a request.
import http from 'node:http';

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const { id, params } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: {
        id: params.id,
        sessionId: params.sessionId ?? 'bench-session',
        status: { state: 'completed', timestamp: new Date().toISOString() },
        artifacts: [{ parts: params.message.parts, index: 0 }],
      },
    });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('SIGTERM', () => process.exit(0));
