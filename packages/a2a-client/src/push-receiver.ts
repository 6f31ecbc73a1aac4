// `a2a-client/push-receiver`: receiving push notifications, for an app that takes them (the
// verifier of a2a-push-receiver, not its Express handler, so that a client-only project needs no
// Express). On Node: it hashes with node:crypto, which is why the main entry leaves it out.
export * from 'a2a-push-receiver';
