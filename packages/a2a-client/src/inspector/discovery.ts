// What an agent offers, read from every card it serves: the 1.0 card (`agent-card.json` asked for
// with `A2A-Version: 1.0`), the 0.3 card (the same path, asked for without it) and the 0.1.0 card
// (`agent.json`). Each card is held to the published schema of its own version, every problem
// reported with the JSON Pointer of where it is, and the interfaces the cards list are gathered
// into one choice.
import type { JWK } from 'jose';
import { isRedirect, MAX_CARD_BYTES, readDocument, redirectReason } from '../bounded-body.js';
import { type CardSignatureCheck, fetchKeySet, verifyCardSignature } from '../card-signature.js';
import { allIssues, type ValidationIssue } from 'a2a-types';
import { publishedSchemaValidator03 } from 'a2a-types/v0.3';
import { publishedSchemaValidator10 } from 'a2a-types/v1.0';
import type { Protocol } from '../cli-agent.js';

export interface CardReport {
  protocol: Protocol;
  /** Where it was served. */
  url: string;
  /** The card as it came. */
  card: unknown;
  /** Every way it departs from its version's published schema. */
  problems: ValidationIssue[];
  /**
   * Its signatures checked against the agent's own `/.well-known/jwks.json` (1.0 and 0.3 cards):
   * whether it is signed, whether one verifies and by which key, or why not.
   */
  signature?: CardSignatureCheck;
}

export interface OfferedInterface {
  protocol: Protocol;
  /** As the cards name them: `JSONRPC`, `HTTP+JSON`, `GRPC`. */
  binding: string;
  url: string;
  /** Whether the inspector speaks it (JSON-RPC on every version, HTTP+JSON and gRPC on 1.0 and 0.3). */
  supported: boolean;
}

export interface Discovery {
  /** The agent's base URL, the well-known paths below it. */
  base: string;
  cards: CardReport[];
  interfaces: OfferedInterface[];
  /** Cards that could not be read, and why (a 404 is not listed: a version the agent does not serve). */
  failures: { url: string; reason: string }[];
  /** What was left unread: a card listing more interfaces than are read. */
  limits: string[];
}

/**
 * Most interfaces read of a card's list: a real agent lists a few; past this the rest are not
 * checked (and said so), so that a card of 100,000 interfaces costs no more than one of 64.
 */
export const MAX_INTERFACES = 64;

const CARD_10 = '/.well-known/agent-card.json';
const CARD_01 = '/.well-known/agent.json';

export { namesScheme, withHttpScheme } from '../typed-url.js';

/** The base URL of an agent given by its base URL or by the URL of one of its cards. */
export function agentBase(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  parsed.search = '';
  return parsed
    .toString()
    .replace(/\/\.well-known\/agent(-card)?\.json$/, '')
    .replace(/\/+$/, '');
}

export async function discover(url: string, fetcher: typeof fetch, headers: Record<string, string>): Promise<Discovery> {
  const base = agentBase(url);
  const failures: Discovery['failures'] = [];
  const read = async (path: string, extra: Record<string, string> = {}): Promise<{ text: string; card: unknown } | undefined> => {
    const at = `${base}${path}`;
    try {
      // A redirect is not followed: the request carries the user's credentials, meant for this origin only.
      const response = await fetcher(at, {
        headers: { accept: 'application/json', ...headers, ...extra },
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      });
      if (isRedirect(response.status)) {
        await response.body?.cancel();
        failures.push({ url: at, reason: redirectReason(response) });
        return undefined;
      }
      const text = await readDocument(response, MAX_CARD_BYTES, `the card at ${at}`);
      if (response.status === 404) return undefined;
      if (!response.ok) {
        failures.push({ url: at, reason: `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}` });
        return undefined;
      }
      try {
        return { text, card: JSON.parse(text) };
      } catch {
        failures.push({ url: at, reason: `not JSON (${response.headers.get('content-type') ?? 'no content type'})` });
        return undefined;
      }
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      failures.push({ url: at, reason: cause?.code ?? (error as Error).message });
      return undefined;
    }
  };
  const [asked10, plain, card01] = await Promise.all([read(CARD_10, { 'A2A-Version': '1.0' }), read(CARD_10), read(CARD_01)]);
  const cards: CardReport[] = [];
  const add = (protocol: Protocol, path: string, card: unknown) => {
    if (!cards.some((c) => c.protocol === protocol))
      cards.push({ protocol, url: `${base}${path}`, card, problems: problemsOf(protocol, card) });
  };
  for (const found of [asked10, plain]) if (found) add(versionOfCard(found.card), CARD_10, found.card);
  // agent.json is 0.1.0's path, and where 0.2 agents (and some 0.3 ones) serve a card of 0.3's shape.
  if (card01) add(hasProtocolVersion(card01.card) ? '0.3' : '0.1.0', CARD_01, card01.card);
  await checkSignatures(cards, base, fetcher, headers);
  const limits: string[] = [];
  return { base, cards, interfaces: interfacesOf(cards, base, limits), failures, limits };
}

/**
 * Each signed card's signatures, checked against the keys the agent serves itself (read once,
 * through `fetcher`, so that the inspector's log shows the request). Keys from the agent prove the
 * card is the one it serves, not who signed it: docs/signed-cards.md.
 */
async function checkSignatures(cards: CardReport[], base: string, fetcher: typeof fetch, headers: Record<string, string>): Promise<void> {
  const signable = cards.filter((card) => card.protocol !== '0.1.0');
  if (signable.length === 0) return;
  const signed = signable.filter((card) => Array.isArray((card.card as { signatures?: unknown } | null)?.signatures));
  let keys: { keys: JWK[] } | undefined;
  let unreadable: string | undefined;
  if (signed.length > 0) {
    try {
      keys = await fetchKeySet(new URL(`${base}/.well-known/jwks.json`), { fetcher, headers, timeoutMs: 10_000 });
    } catch (error) {
      unreadable = `the agent's keys: ${(error as Error).message}`;
    }
  }
  for (const card of signable) {
    if (keys) card.signature = await verifyCardSignature(card.card, { keys, protocol: card.protocol as '1.0' | '0.3' });
    else if (signed.includes(card)) card.signature = { signed: true, valid: false, reason: unreadable! };
    else card.signature = { signed: false, valid: false, reason: 'the card is not signed' };
  }
}

/** A card at `agent-card.json` is 1.0's when it lists `supportedInterfaces`, else 0.3's. */
function versionOfCard(card: unknown): Protocol {
  return Array.isArray((card as { supportedInterfaces?: unknown } | null)?.supportedInterfaces) ? '1.0' : '0.3';
}

/** 0.1.0 cards have no `protocolVersion`; 0.2 and 0.3 cards must. */
function hasProtocolVersion(card: unknown): boolean {
  return typeof (card as { protocolVersion?: unknown } | null)?.protocolVersion === 'string';
}

export function problemsOf(protocol: Protocol, card: unknown): ValidationIssue[] {
  if (protocol === '0.1.0') return allIssues('AgentCard', card);
  const validate = protocol === '1.0' ? publishedSchemaValidator10('Agent Card') : publishedSchemaValidator03('AgentCard');
  return validate(card) ? [] : [...validate.issues];
}

function interfacesOf(cards: CardReport[], base: string, limits: string[]): OfferedInterface[] {
  const offered: OfferedInterface[] = [];
  /**
   * The protocol and binding of each supported interface kept: only the first of each is, the one
   * the client calls when asked for that binding (A2AClient10 and A2AClient03 take the card's first).
   */
  const kept = new Set<string>();
  const add = (protocol: Protocol, binding: unknown, url: unknown) => {
    const name = String(binding ?? 'JSONRPC').toUpperCase();
    const key = `${protocol} ${name}`;
    if (kept.has(key)) return;
    const supported = name === 'JSONRPC' || (protocol !== '0.1.0' && (name === 'HTTP+JSON' || name === 'GRPC'));
    if (supported) kept.add(key);
    offered.push({ protocol, binding: name, url: typeof url === 'string' ? url : base, supported });
  };
  /** The first MAX_INTERFACES of a card's list; the rest said to be left unchecked. */
  const firstOf = <T>(list: T[], url: string, field: string): T[] => {
    if (list.length <= MAX_INTERFACES) return list;
    limits.push(
      `the card at ${url} lists ${list.length} ${field}: the first ${MAX_INTERFACES} were read, the other ${list.length - MAX_INTERFACES} not checked`,
    );
    return list.slice(0, MAX_INTERFACES);
  };
  for (const { protocol, card, url } of cards) {
    const c = (card ?? {}) as {
      url?: unknown;
      preferredTransport?: unknown;
      additionalInterfaces?: unknown;
      supportedInterfaces?: unknown;
    };
    if (protocol === '1.0') {
      const listed = Array.isArray(c.supportedInterfaces) ? c.supportedInterfaces : [];
      for (const entry of firstOf(listed, url, 'supportedInterfaces')) {
        const i = (entry ?? {}) as { url?: unknown; protocolBinding?: unknown; protocolVersion?: unknown };
        // The versions A2AClient10 speaks (1.0 and its patch releases).
        if (/^1\.0(\.\d+)?$/.test(String(i.protocolVersion))) add('1.0', i.protocolBinding, i.url);
      }
    } else if (protocol === '0.3') {
      add('0.3', c.preferredTransport, c.url);
      const listed = Array.isArray(c.additionalInterfaces) ? c.additionalInterfaces : [];
      for (const entry of firstOf(listed, url, 'additionalInterfaces')) {
        const i = (entry ?? {}) as { url?: unknown; transport?: unknown };
        add('0.3', i.transport, i.url);
      }
    } else {
      add('0.1.0', 'JSONRPC', c.url);
    }
  }
  return offered;
}
