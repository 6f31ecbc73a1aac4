import net from 'node:net';

/** A TCP proxy on loopback in front of `target`, whose connections a test can cut mid-stream. */
export interface DroppingProxy {
  /** The proxy's base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** Destroys every connection open now, both sides, as a network that fails would. */
  dropAll(): void;
  close(): Promise<void>;
}

export async function droppingProxy(target: string): Promise<DroppingProxy> {
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const upstream = net.connect(Number(new URL(target).port), '127.0.0.1');
    client.pipe(upstream).pipe(client);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined).on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    dropAll: () => {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        proxy.close(() => resolve());
      }),
  };
}
