// What a new agent's name decides: its folder and package name, its name in the logs, its card
// name, its Redis key prefix and (unless given) its port.
import { builtinModules } from 'node:module';

/**
 * Agent names are stricter than npm's rules, because one name is also a folder, a Docker image
 * name, a log name and part of a Redis key: lower-case letters, digits and single hyphens,
 * starting with a letter, at most 50 characters.
 */
const AGENT_NAME = /^[a-z](?:[a-z0-9]|-(?=[a-z0-9])){0,49}$/;

/** Why `name` cannot name an agent, or undefined when it can. */
export function agentNameProblem(name: string): string | undefined {
  if (name === '') return 'the agent needs a name, e.g. `create-a2a-agent my-agent`';
  if (!AGENT_NAME.test(name)) {
    return (
      `"${name}" cannot name an agent: use lower-case letters, digits and single hyphens, ` +
      'starting with a letter, at most 50 characters (e.g. "weather-agent")'
    );
  }
  if (builtinModules.includes(name)) return `"${name}" is the name of a Node.js built-in module; choose another`;
  return undefined;
}

/** "weather-agent" → "Weather Agent": the name on the agent's card. */
export function titleOf(name: string): string {
  return name
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/** Ports handed out when none is given: above the samples' 41241, below the ephemeral range. */
const PORT_RANGE = { first: 41300, size: 700 };
/** gRPC ports handed out when none is given: above the samples' 50051–50053. */
const GRPC_PORT_RANGE = { first: 50100, size: 700 };

/**
 * The agent's default port, the same for the same name every time (FNV-1a of the name), so that
 * agents made side by side rarely collide and a regenerated agent keeps its port.
 */
export function defaultPortFor(name: string): number {
  return PORT_RANGE.first + (nameHash(name) % PORT_RANGE.size);
}

/** The port its image serves gRPC on (A2A 1.0's third binding), derived from the name as its port is. */
export function defaultGrpcPortFor(name: string): number {
  return GRPC_PORT_RANGE.first + (nameHash(name) % GRPC_PORT_RANGE.size);
}

/** FNV-1a of the name's UTF-8 bytes. */
function nameHash(name: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Why `text` is not a port number, or undefined when it is one; `option` names the flag it came with. */
export function portProblem(text: string, option = '--port'): string | undefined {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) return `${option} must be a whole number from 1 to 65535, got "${text}"`;
  return undefined;
}

/** Why `prefix` is not a usable Redis key prefix, or undefined. */
export function redisPrefixProblem(prefix: string): string | undefined {
  if (!/^[A-Za-z0-9:_.-]{1,100}$/.test(prefix)) {
    return `--redis-prefix may hold letters, digits and : _ . - (at most 100), got "${prefix}"`;
  }
  return undefined;
}
