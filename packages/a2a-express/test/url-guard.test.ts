import { nodeDelivery } from '../src/push/node-delivery.js';
import { UrlGuard, isPublicAddress } from '../src/push/url-guard.js';

describe('isPublicAddress', () => {
  test.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
  ])('%s is not public', (address) => expect(isPublicAddress(address)).toBe(false));

  test.each(['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) =>
    expect(isPublicAddress(address)).toBe(true),
  );
});

describe('IPv6 forms that carry an IPv4 address are judged by that address', () => {
  test.each([
    ['::7f00:1', 'IPv4-compatible 127.0.0.1, in hex'],
    ['::127.0.0.1', 'IPv4-compatible 127.0.0.1, dotted'],
    ['::ffff:7f00:1', 'IPv4-mapped 127.0.0.1, in hex (how the URL parser writes it)'],
    ['::ffff:0:7f00:1', 'IPv4-translated 127.0.0.1'],
    ['::ffff:0:a9fe:a9fe', 'IPv4-translated 169.254.169.254'],
    ['2002:7f00:1::', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['64:ff9b:1::a9fe:a9fe', 'local-use NAT64 (refused as a range)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (refused as a range)'],
    ['0:0:0:0:0:ffff:c0a8:101', 'IPv4-mapped 192.168.1.1, written out'],
  ])('%s (%s) is not public', (address) => expect(isPublicAddress(address)).toBe(false));

  // Judging a string contacts nothing: these only show that the decoding does not over-refuse.
  test.each(['::ffff:808:808', '2002:808:808::1', '64:ff9b::808:808', '2001:db9::1'])('%s is public', (address) =>
    expect(isPublicAddress(address)).toBe(true),
  );

  test.each([
    'https://[::7f00:1]/hook',
    'https://[::127.0.0.1]/hook',
    'https://[::ffff:0:7f00:1]/hook',
    'https://[2002:7f00:1::]/hook',
    'https://[64:ff9b:1::a9fe:a9fe]/hook',
    'https://[::ffff:127.0.0.1]/hook',
  ])('the guard refuses %s', async (url) => {
    await expect(new UrlGuard().check(url)).rejects.toMatchObject({
      code: -32602,
      data: [{ message: expect.stringMatching(/non-public address/) }],
    });
  });
});

describe('UrlGuard', () => {
  // A resolver that answers from a table: the tests never touch real DNS or a private network.
  const table: Record<string, string[]> = {
    'public.example': ['93.184.216.34'],
    'inside.example': ['10.1.2.3'],
    'mixed.example': ['93.184.216.34', '192.168.0.7'],
  };
  const resolve = async (host: string) => {
    const addresses = table[host];
    if (!addresses) throw new Error('ENOTFOUND');
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const guard = new UrlGuard({ resolve });

  test.each([
    ['http://127.0.0.1/hook', /non-public address \(127\.0\.0\.1\)/],
    ['http://169.254.169.254/latest/meta-data', /non-public/],
    ['https://10.0.0.1/hook', /non-public/],
    ['https://[::1]/hook', /non-public/],
    ['https://inside.example/hook', /inside\.example resolves to a non-public address \(10\.1\.2\.3\)/],
    ['https://mixed.example/hook', /192\.168\.0\.7/],
    ['http://public.example/hook', /https is required/],
    ['https://nowhere.example/hook', /does not resolve/],
    ['ftp://public.example/x', /only http\(s\)/],
    ['https://user:pass@public.example/x', /credentials/],
    ['not a url', /not an absolute URL/],
  ])('refuses %s', async (url, reason) => {
    await expect(guard.check(url)).rejects.toMatchObject({ code: -32602, data: [{ message: expect.stringMatching(reason) }] });
  });

  test('accepts an https URL whose addresses are all public', async () => {
    await expect(guard.check('https://public.example/hook')).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  test('with the system resolver (the Node delivery’s), localhost is refused for where it leads', async () => {
    const guard = new UrlGuard({ resolve: nodeDelivery()!.resolve });
    await expect(guard.check('https://localhost/hook')).rejects.toMatchObject({
      code: -32602,
      data: [{ message: expect.stringMatching(/localhost resolves to a non-public address/) }],
    });
  });

  test('an allow-list opens hosts by name, subdomain or CIDR, plain http included', async () => {
    const open = new UrlGuard({ resolve, allowlist: ['inside.example', '*.corp.example', '127.0.0.0/8', '::1'] });
    await expect(open.check('http://inside.example/hook')).resolves.toBeDefined();
    await expect(open.check('http://127.0.0.1:8080/hook')).resolves.toBeDefined();
    await expect(open.check('http://[::1]/hook')).resolves.toBeDefined();
    await expect(open.check('http://169.254.169.254/')).rejects.toMatchObject({ code: -32602 });
    await expect(open.check('https://mixed.example/hook')).rejects.toMatchObject({ code: -32602 });
  });

  test.each(['10.0.0.0/33', 'not a host!', '1.2.3.4/x'])('a bad allow-list entry %p is a TypeError', (entry) => {
    expect(() => new UrlGuard({ allowlist: [entry] })).toThrow(TypeError);
  });
});
