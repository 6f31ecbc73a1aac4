// Which webhook URLs the server may call: the SSRF guard. By default only https URLs whose
// every resolved address is public. An allow-list opens named hosts or CIDR ranges (and plain
// http for them), for development and for webhooks inside your own network.
import { A2AError } from 'a2a-types/model';
import ipaddr from 'ipaddr.js';

/** Address ranges a webhook may not resolve to unless allow-listed. */
const BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64: where the IPv4 sits depends on the site's prefix
  ['100::', 64], // discard
  ['2001::', 32], // Teredo: tunnels to an IPv4 host that the address only hides
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
];

/**
 * Whether an IP address is public (not loopback, private, link-local, multicast, ...). An IPv6
 * address that carries an IPv4 address (mapped, translated, compatible, NAT64, 6to4) is judged
 * by the IPv4 address it leads to, in whichever way it is written (`[::7f00:1]` is 127.0.0.1).
 */
export function isPublicAddress(address: string): boolean {
  const parsed = parseAddress(address);
  if (!parsed) return false;
  if (parsed.kind() === 'ipv6') {
    const embedded = embeddedIPv4((parsed as ipaddr.IPv6).parts);
    if (embedded !== undefined) return isPublicAddress(embedded);
  }
  return !blocked.has(parsed);
}

/** 4 for an IPv4 address, 6 for an IPv6 one, 0 for anything else (a host name): node:net's `isIP`. */
export function ipFamily(text: string): 0 | 4 | 6 {
  const parsed = parseAddress(text);
  return parsed === undefined ? 0 : parsed.kind() === 'ipv4' ? 4 : 6;
}

/**
 * An IP address as written in text, or undefined when it is not one, read by ipaddr.js (the
 * parser Express's proxy-addr trusts). IPv4 only in its four-part decimal form, as node:net takes
 * it: ipaddr.js also reads `127.1` and `0x7f.0.0.1`, which a resolver might take for a host name
 * and a URL parser for an address. IPv6 as written, a zone (`fe80::1%eth0`) ignored.
 */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  // ipaddr.js reads an IPv6 address's dotted tail leniently too: it must be four decimal parts.
  if (!text.includes(':') || !ipaddr.IPv6.isValid(text)) return undefined;
  const dotted = /:([^:%]*\.[^:%]*)(%.*)?$/.exec(text)?.[1];
  if (dotted !== undefined && !ipaddr.IPv4.isValidFourPartDecimal(dotted)) return undefined;
  return ipaddr.IPv6.parse(text);
}

/** Address ranges (CIDR blocks) of either family: node:net's `BlockList`, for subnets. */
class AddressRanges {
  readonly #ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];

  /** Adds `network/prefix`; false when `network` is no address or `prefix` is out of its family's range. */
  add(network: string, prefix?: number): boolean {
    const parsed = parseAddress(network);
    if (!parsed) return false;
    const bits = prefix ?? (parsed.kind() === 'ipv4' ? 32 : 128);
    if (!Number.isInteger(bits) || bits < 0 || bits > (parsed.kind() === 'ipv4' ? 32 : 128)) return false;
    this.#ranges.push([parsed, bits]);
    return true;
  }

  has(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is in the IPv4 ranges too, as in node:net's BlockList.
    const mapped =
      address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : undefined;
    return this.#ranges.some(
      ([network, bits]) =>
        (network.kind() === address.kind() && address.match(network, bits)) ||
        (mapped !== undefined && network.kind() === 'ipv4' && mapped.match(network, bits)),
    );
  }
}

/** The IPv4 address an IPv6 address stands for or leads to, in the ranges that embed one. */
function embeddedIPv4(g: readonly number[]): string | undefined {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  if (zero(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!); // ::ffff:0:0/96, IPv4-mapped
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!); // ::ffff:0:0:0/96, IPv4-translated
  if (zero(0, 6) && !(g[6] === 0 && g[7]! <= 1)) return v4(g[6]!, g[7]!); // ::/96, IPv4-compatible (not :: or ::1)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6]!, g[7]!); // 64:ff9b::/96, NAT64
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 2002::/16, 6to4
  return undefined;
}

/** An address a host name resolves to (what node:dns's `lookup` gives). */
export interface ResolvedAddress {
  address: string;
  /** 4 or 6. */
  family: number;
}

/** How host names are resolved, for the guard: every address the name has. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

interface UrlGuardOptions {
  /**
   * Host names (exact, or `*.example.com` for subdomains) and CIDR ranges or single addresses
   * (`10.0.0.0/8`, `127.0.0.1`, `::1/128`) that webhooks may use even though they are not
   * public; for them plain `http` is allowed too.
   */
  allowlist?: readonly string[];
  /**
   * How host names are resolved. Without one (a runtime with no resolver, Cloudflare Workers),
   * a URL by host name is refused unless its host is on the allow-list or `unresolvedHostNames`
   * is `'allow'`.
   */
  resolve?: Resolver;
  /**
   * Without a resolver: whether an https URL by a host name off the allow-list is accepted
   * unchecked (for a runtime whose network reaches nothing private). Default `'refuse'`.
   */
  unresolvedHostNames?: 'refuse' | 'allow';
}

const blocked = new AddressRanges();
for (const [network, prefix] of BLOCKED) blocked.add(network, prefix);

/** Why a URL was refused, as a -32602 with the reason. */
function refused(url: string, reason: string): A2AError {
  return A2AError.invalidParams([
    { path: '/pushNotificationConfig/url', message: `webhook URL refused: ${reason}`, keyword: 'webhookUrl', params: { url } },
  ]);
}

export class UrlGuard {
  private readonly hostNames: string[] = [];
  private readonly hostSuffixes: string[] = [];
  private readonly ranges = new AddressRanges();
  private readonly resolve: Resolver | undefined;
  private readonly unresolvedHostNames: 'refuse' | 'allow';

  constructor(options: UrlGuardOptions = {}) {
    this.resolve = options.resolve;
    this.unresolvedHostNames = options.unresolvedHostNames ?? 'refuse';
    if (this.unresolvedHostNames !== 'refuse' && this.unresolvedHostNames !== 'allow') {
      throw new TypeError(
        `a2aRouter: options.pushNotifications.unresolvedHostNames must be 'refuse' or 'allow', got ${JSON.stringify(options.unresolvedHostNames)}`,
      );
    }
    for (const raw of options.allowlist ?? []) {
      const entry = raw.trim().toLowerCase();
      if (entry === '') continue;
      const [network, prefix] = entry.split('/') as [string, string | undefined];
      if (ipFamily(network) !== 0) {
        if (!this.ranges.add(network, prefix === undefined ? undefined : Number(prefix))) {
          throw new TypeError(`push allow-list: bad CIDR ${JSON.stringify(raw)}`);
        }
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
   * addresses it may connect to: none for a host name that could not be resolved here and is
   * accepted all the same (allow-listed, or `unresolvedHostNames: 'allow'`).
   */
  async check(url: string): Promise<ResolvedAddress[]> {
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
    let addresses: ResolvedAddress[];
    const family = ipFamily(host);
    if (family !== 0) addresses = [{ address: host, family }];
    else if (!this.resolve) {
      if (namedInAllowlist) return [];
      if (this.unresolvedHostNames === 'refuse')
        throw refused(url, `host names cannot be resolved here to check where ${host} leads: allow-list it, or see unresolvedHostNames`);
      if (parsed.protocol !== 'https:') throw refused(url, 'https is required');
      return [];
    } else {
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

  private hostAllowed(host: string): boolean {
    return this.hostNames.includes(host) || this.hostSuffixes.some((suffix) => host.endsWith(suffix));
  }

  private addressAllowed(address: string): boolean {
    const parsed = parseAddress(address);
    return parsed !== undefined && this.ranges.has(parsed);
  }
}

/** The host of a URL without IPv6 brackets, lower-cased. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}
