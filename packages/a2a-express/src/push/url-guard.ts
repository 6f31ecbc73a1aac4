// Which webhook URLs the server may call: the SSRF guard. By default only https URLs whose
// every resolved address is public. An allow-list opens named hosts or CIDR ranges (and plain
// http for them), for development and for webhooks inside your own network.
import { A2AError } from 'a2a-types/model';

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
  if (parsed.length === 16) {
    const groups = Array.from({ length: 8 }, (_, i) => (parsed[2 * i]! << 8) | parsed[2 * i + 1]!);
    const embedded = embeddedIPv4(groups);
    if (embedded !== undefined) return isPublicAddress(embedded);
  }
  return !blocked.has(parsed);
}

/** 4 for an IPv4 address, 6 for an IPv6 one, 0 for anything else (a host name): node:net's `isIP`. */
export function ipFamily(text: string): 0 | 4 | 6 {
  const parsed = parseAddress(text);
  return parsed === undefined ? 0 : parsed.length === 4 ? 4 : 6;
}

const IPV4 =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;

/**
 * The bytes of an IP address as written in text (4 for IPv4, 16 for IPv6), or undefined when it
 * is not one. IPv4 is four decimal numbers without leading zeros; IPv6 has its eight groups, one
 * `::` at most, a dotted IPv4 tail, and a zone (`fe80::1%eth0`), which is not part of the address.
 */
function parseAddress(text: string): Uint8Array | undefined {
  const v4 = IPV4.exec(text);
  if (v4) return Uint8Array.from(v4.slice(1), Number);
  const address = text.replace(/%[0-9a-zA-Z._~-]+$/, '');
  if (!/^[0-9a-fA-F:.]+$/.test(address) || address.includes(':::')) return undefined;
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string): number[] | undefined => {
    if (part === '') return [];
    const groups: number[] = [];
    const fields = part.split(':');
    for (const [i, field] of fields.entries()) {
      if (i === fields.length - 1 && field.includes('.')) {
        const tail = IPV4.exec(field);
        if (!tail) return undefined;
        const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
        groups.push((a << 8) | b, (c << 8) | d);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(field)) groups.push(parseInt(field, 16));
      else return undefined;
    }
    return groups;
  };
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !tail) return undefined;
  // A dotted tail only ends the address.
  if (halves.length === 2 && halves[0]!.includes('.')) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  return bytes;
}

/** Address ranges (CIDR blocks) of either family: node:net's `BlockList`, for subnets. */
class AddressRanges {
  readonly #ranges: { network: Uint8Array; prefix: number }[] = [];

  /** Adds `network/prefix`; false when `network` is no address or `prefix` is out of its family's range. */
  add(network: string, prefix?: number): boolean {
    const parsed = parseAddress(network);
    const bits = prefix ?? (parsed?.length ?? 0) * 8;
    if (!parsed || !Number.isInteger(bits) || bits < 0 || bits > parsed.length * 8) return false;
    this.#ranges.push({ network: parsed, prefix: bits });
    return true;
  }

  has(address: Uint8Array): boolean {
    // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is in the IPv4 ranges too, as in node:net's BlockList.
    const mapped = address.length === 16 && address.subarray(0, 10).every((b) => b === 0) && address[10] === 0xff && address[11] === 0xff;
    return this.#ranges.some(
      ({ network, prefix }) =>
        (network.length === address.length && samePrefix(network, address, prefix)) ||
        (mapped && network.length === 4 && samePrefix(network, address.subarray(12), prefix)),
    );
  }
}

function samePrefix(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  const whole = Math.floor(bits / 8);
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const rest = bits % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (a[whole]! & mask) === (b[whole]! & mask);
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
