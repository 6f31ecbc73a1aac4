// The answer the baselines give to a tasks/send: the Task an echo agent answers, built without
// any of the kit. Bare Express (bare.mjs), Node's http alone (node-http.mjs) and the kit's
// endpoint alone (endpoint-only.mjs) send the same one, so that only what carries it differs.
export function cannedAnswer({ id, params }) {
  return {
    jsonrpc: '2.0',
    id,
    result: {
      id: params.id,
      sessionId: params.sessionId ?? 'bench-session',
      status: { state: 'completed', timestamp: new Date().toISOString() },
      artifacts: [{ parts: params.message.parts, index: 0 }],
    },
  };
}
