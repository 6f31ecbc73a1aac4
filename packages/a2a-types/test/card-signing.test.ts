// The canonical form of an agent card (spec 1.0 8.4.1), what its signatures sign.
import { canonicalAgentCard03, canonicalAgentCard10 } from '../src/card-signing.js';

test('the spec’s example: REQUIRED fields kept at their default, explicitly set optional ones kept, empty repeated ones dropped, JCS order', () => {
  const fragment = {
    name: 'Example Agent',
    description: '',
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    skills: [],
  };
  expect(canonicalAgentCard10(fragment)).toBe(
    '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
  );
});

test('signatures, and fields the 1.0 proto does not declare, are not signed; a skill’s REQUIRED empty tags are', () => {
  const card = {
    name: 'A',
    description: 'd',
    version: '1',
    supportedInterfaces: [{ url: 'http://x/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 'S', description: 'sd', tags: [] }],
    signatures: [{ protected: 'x', signature: 'y' }],
    notInTheProto: true,
  };
  const canonical = canonicalAgentCard10(card);
  expect(canonical).not.toContain('signatures');
  expect(canonical).not.toContain('notInTheProto');
  // The tenant is not REQUIRED: its empty default is dropped. A skill's tags are.
  expect(canonical).not.toContain('tenant');
  expect(JSON.parse(canonical).skills).toEqual([{ description: 'sd', id: 's', name: 'S', tags: [] }]);
  // Key order and whitespace do not matter; values do.
  const reordered = Object.fromEntries(Object.entries(card).reverse());
  expect(canonicalAgentCard10(reordered)).toBe(canonical);
  expect(canonicalAgentCard10({ ...card, name: 'B' })).not.toBe(canonical);
});

test('a 0.3 card is signed as served, without its signatures', () => {
  expect(canonicalAgentCard03({ url: 'http://x', name: 'A', signatures: [], extra: { b: 1, a: 2 } })).toBe(
    '{"extra":{"a":2,"b":1},"name":"A","url":"http://x"}',
  );
});
