import type { ProtocolVersion } from './interceptors.js';
import { type A2AClientOptions, type CallOptions, type Check, JsonRpcHttp } from './transport.js';

/**
 * What the 0.1.0 and 0.3 clients share: where the agent is, its card (fetched once from the
 * version's well-known path, checked against that version's schema, then cached), and the
 * JSON-RPC transport.
 */
export abstract class AgentClient<Card extends { url: string }> {
  protected card: Card | undefined;
  protected readonly http: JsonRpcHttp;
  readonly baseUrl: string;

  protected constructor(
    baseUrl: string | URL,
    options: A2AClientOptions,
    private readonly cardPath: string,
    private readonly cardCheck: Check,
    protocolVersion: ProtocolVersion,
  ) {
    this.baseUrl = new URL(baseUrl).toString().replace(/\/+$/, '');
    this.http = new JsonRpcHttp(options, protocolVersion, () => this.getCard());
  }

  /** The agent card: fetched once, checked against the schema, then cached. */
  async getCard(call: CallOptions = {}): Promise<Card> {
    this.card ??= (await this.http.getJson(`${this.baseUrl}${this.cardPath}`, this.cardCheck, 'agent card', call)) as Card;
    return this.card;
  }
}
