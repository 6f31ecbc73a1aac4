// Which webhook URLs the server may call: the SSRF guard. By default only https URLs whose
// every resolved address is public. An allow-list opens named hosts or CIDR ranges (and plain
// http for them), for development and for webhooks inside your own network.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { A2AError } from 'a2a-types/model';

/** Address ranges a webhook may not resolve to unless allow-listed. */
const BLOCKED: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // "this network", unspecified
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // documentation
  ['203.0.113.0', 24, 'ipv4'], // documentation
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64: where the IPv4 sits depends on the site's prefix
  ['100::', 64, 'ipv6'], // discard
  ['2001::', 32, 'ipv6'], // Teredo: tunnels to an IPv4 host that the address only hides
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['fc00::', 7, 'ipv6'], // unique local
  ['fe80::', 10, 'ipv6'], // link-local
  ['ff00::', 8, 'ipv6'], // multicast
];

const blocked = new BlockList();
for (const [network, prefix, family] of BLOCKED) blocked.addSubnet(network, prefix, family);

/**
 * Whether an IP address is public (not loopback, private, link-local, multicast, ...). An IPv6
 * address that carries an IPv4 address (mapped, translated, compatible, NAT64, 6to4) is judged
 * by the IPv4 address it leads to, in whichever way it is written (`[::7f00:1]` is 127.0.0.1).
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return !blocked.check(address, 'ipv4');
  const groups = ipv6Groups(address);
  const embedded = embeddedIPv4(groups);
  if (embedded !== undefined) return isPublicAddress(embedded);
  return !blocked.check(groups.map((g) => g.toString(16)).join(':'), 'ipv6');
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted quad as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, ''); // a zone (fe80::1%eth0) is not part of the address
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const hex = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const [head = '', tail] = text.split('::');
  if (tail === undefined) return hex(head);
  const [before, after] = [hex(head), hex(tail)];
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/** The IPv4 address an IPv6 address stands for or leads to, in the ranges that embed one. */
function embeddedIPv4(g: number[]): string | undefined {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  if (zero(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!); // ::ffff:0:0/96, IPv4-mapped
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!); // ::ffff:0:0:0/96, IPv4-translated
  if (zero(0, 6) && !(g[6] === 0 && g[7]! <= 1)) return v4(g[6]!, g[7]!); // ::/96, IPv4-compatible (not :: or ::1)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6]!, g[7]!); // 64:ff9b::/96, NAT64
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 2002::/16, 6to4
  return undefined;
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

interface UrlGuardOptions {
  /**
   * Host names (exact, or `*.example.com` for subdomains) and CIDR ranges or single addresses
   * (`10.0.0.0/8`, `127.0.0.1`, `::1/128`) that webhooks may use even though they are not
   * public; for them plain `http` is allowed too.
   */
  allowlist?: readonly string[];
  /** How host names are resolved. Default: the system resolver (`dns.lookup`). */
  resolve?: Resolver;
}

/** Why a URL was refused, as a -32602 with the reason. */
function refused(url: string, reason: string): A2AError {
  return A2AError.invalidParams([
    { path: '/pushNotificationConfig/url', message: `webhook URL refused: ${reason}`, keyword: 'webhookUrl', params: { url } },
  ]);
}

export class UrlGuard {
  private readonly hostNames: string[] = [];
  private readonly hostSuffixes: string[] = [];
  private readonly ranges = new BlockList();
  private readonly resolve: Resolver;

  constructor(options: UrlGuardOptions = {}) {
    this.resolve = options.resolve ?? systemResolver;
    for (const raw of options.allowlist ?? []) {
      const entry = raw.trim().toLowerCase();
      if (entry === '') continue;
      const [network, prefix] = entry.split('/') as [string, string | undefined];
      const family = isIP(network);
      if (family !== 0) {
        const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
        if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) {
          throw new TypeError(`push allow-list: bad CIDR ${JSON.stringify(raw)}`);
        }
        this.ranges.addSubnet(network, bits, family === 4 ? 'ipv4' : 'ipv6');
      } else if (entry.startsWith('*.')) {
        this.hostSuffixes.push(entry.slice(1));
      } else if (/^[a-z0-9.-]+$/.test(entry)) {
        this.hostNames.push(entry);
      } else {
        throw new TypeError(`push allow-list: ${JSON.stringify(raw)} is neither a host name nor a CIDR`);
      }
    }
  }

  /**
   * Resolves and checks a webhook URL; throws -32602 saying why when it is refused. Returns the
   * addresses it may connect to.
   */
  async check(url: string): Promise<LookupAddress[]> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refused(url, 'not an absolute URL');
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw refused(url, 'only http(s) URLs');
    if (parsed.username || parsed.password) throw refused(url, 'credentials in the URL');
    const host = hostOf(parsed);
    const namedInAllowlist = this.hostAllowed(host);
    let addresses: LookupAddress[];
    if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
    else {
      try {
        addresses = await this.resolve(host);
      } catch {
        throw refused(url, `host ${host} does not resolve`);
      }
      if (addresses.length === 0) throw refused(url, `host ${host} does not resolve`);
    }
    const allowlisted = namedInAllowlist || addresses.every((a) => this.addressAllowed(a.address));
    if (!allowlisted) {
      const inner = addresses.find((a) => !isPublicAddress(a.address));
      if (inner) throw refused(url, `${host} resolves to a non-public address (${inner.address})`);
      if (parsed.protocol !== 'https:') throw refused(url, 'https is required');
    }
    return addresses;
  }

  /**
   * A `lookup` for http.request that connects only to addresses that passed the check, so that
   * a DNS answer changing between the check and the connection (DNS rebinding) cannot reach an
   * address the check refused.
   */
  pinnedLookup(addresses: LookupAddress[]): LookupFunction {
    return (_hostname, options, callback) => {
      const wanted = typeof options === 'object' && options.family ? options.family : 0;
      const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
      const cb = callback as (error: Error | null, address: string | LookupAddress[], family?: number) => void;
      if (usable.length === 0) return cb(new Error('no checked address for this family'), '', 0);
      if (typeof options === 'object' && options.all) return cb(null, usable);
      return cb(null, usable[0]!.address, usable[0]!.family);
    };
  }

  private hostAllowed(host: string): boolean {
    return this.hostNames.includes(host) || this.hostSuffixes.some((suffix) => host.endsWith(suffix));
  }

  private addressAllowed(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.ranges.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** The host of a URL without IPv6 brackets, lower-cased. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}
