import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isPublicUnicastIp, parseIpLiteral } from '../../src/domain/ip';

describe('parseIpLiteral: IPv4', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['203.0.113.7', '203.0.113.7'],
    ['10.0.0.1', '10.0.0.1'],
  ])('%s', (input, canonical) => {
    expect(parseIpLiteral(input)).toEqual({ canonical, version: 4 });
  });

  it.each([
    ['010.0.0.1'], // leading zero: octal in some parsers
    ['1.2.3.04'],
    ['00.1.2.3'],
    ['127.1'], // shorthand
    ['127.0.1'],
    ['2130706433'], // single integer form
    ['0x7f.0.0.1'], // hex
    ['256.1.1.1'],
    ['1.2.3.4.5'],
    ['1.2.3.'],
    ['.1.2.3'],
    ['1..2.3'],
    ['1.2.3.4:80'],
    ['1.2.3.4/24'],
    ['1.2.3.4, 5.6.7.8'],
    ['1.2.3.4,5.6.7.8'],
    [' 1.2.3.4'],
    ['1.2.3.4 '],
    ['1.2.3.4\n'],
    ['1. 2.3.4'],
    ['١.٢.٣.٤'], // non-ASCII digits
    ['localhost'],
    ['example.com'],
    [''],
  ])('rejects %j', (input) => {
    expect(parseIpLiteral(input)).toBeNull();
  });

  it('canonicalises every dotted quad to itself', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(parseIpLiteral(ip)).toEqual({ canonical: ip, version: 4 });
      }),
    );
  });
});

describe('parseIpLiteral: IPv6', () => {
  it.each([
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:db8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8::0001', '2001:db8::1'],
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['::', '::'],
    ['::1', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['1::', '1::'],
    ['fe80::1', 'fe80::1'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'], // a single zero group is not compressed (RFC 5952 4.2.2)
    ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // first of equal zero runs (4.2.3)
    ['2001:db8:0:1:0:0:0:1', '2001:db8:0:1::1'], // longest zero run (4.2.3)
    ['::ffff:1.2.3.4', '::ffff:102:304'],
    ['::FFFF:192.0.2.128', '::ffff:c000:280'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
    ['::1.2.3.4', '::102:304'], // IPv4-compatible, not IPv4-mapped
  ])('%s -> %s', (input, canonical) => {
    expect(parseIpLiteral(input)).toEqual({ canonical, version: 6 });
  });

  it.each([
    ['fe80::1%eth0'],
    ['fe80::1%25eth0'],
    ['fe80::1%1'],
    ['[::1]'],
    ['[::1]:80'],
    ['::1:80 '],
    ['::1/128'],
    ['1::2::3'],
    [':::1'],
    [':1::'],
    ['1::1:'],
    [':1:2:3:4:5:6:7'],
    ['1:2:3:4:5:6:7:8:9'],
    ['1:2:3:4:5:6:7:8::'],
    ['::1:2:3:4:5:6:7:8'],
    ['1:2:3:4:5:6:7'],
    ['12345::'],
    ['00001::'],
    ['g::1'],
    ['::ffff:1.2.3'],
    ['::ffff:010.1.2.3'],
    ['::ffff:1.2.3.256'],
    ['1.2.3.4::'],
    ['1:2:3:4:5:6:7:1.2.3.4'],
    ['::1.2.3.4:5'],
    [':1.2.3.4'],
    ['::1, ::2'],
    [' ::1'],
    [':: 1'],
    ['::1\t'],
  ])('rejects %j', (input) => {
    expect(parseIpLiteral(input)).toBeNull();
  });

  it('is idempotent and agrees across equivalent spellings', () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const parsed = parseIpLiteral(ip);
        expect(parsed).not.toBeNull();
        expect(parsed!.version).toBe(6);
        expect(parseIpLiteral(parsed!.canonical)).toEqual(parsed);
        expect(parseIpLiteral(ip.toUpperCase())).toEqual(parsed);
      }),
    );
  });
});

describe('isPublicUnicastIp', () => {
  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['93.184.216.34'],
    ['172.15.255.255'],
    ['172.32.0.0'],
    ['100.63.255.255'],
    ['100.128.0.0'],
    ['2606:4700:4700::1111'],
    ['2a00:1450:4001:80b::200e'],
    ['::ffff:8.8.8.8'],
    ['::ffff:808:808'],
    ['64:ff9b::8.8.8.8'],
    ['2002:808:808::1'],
  ])('%s is public', (ip) => {
    expect(isPublicUnicastIp(ip)).toBe(true);
  });

  it.each([
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.7', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['ff05::2', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001::1', 'teredo'],
    ['2001:2::1', 'benchmarking'],
    ['100::1', 'discard'],
    ['::ffff:127.0.0.1', 'mapped loopback'],
    ['::ffff:10.1.2.3', 'mapped private'],
    ['::ffff:169.254.169.254', 'mapped link-local'],
    ['::ffff:100.64.0.1', 'mapped CGNAT'],
    ['::ffff:0.0.0.0', 'mapped unspecified'],
    ['::ffff:7f00:1', 'mapped loopback in hex'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
    ['64:ff9b::10.0.0.1', 'NAT64 of private'],
    ['64:ff9b:1::808:808', 'local-use NAT64'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a00:1::1', '6to4 of private'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated)'],
    ['4000::1', 'outside global unicast 2000::/3'],
    ['5f00::1', 'segment routing'],
  ])('%s is not public (%s)', (ip) => {
    expect(isPublicUnicastIp(ip)).toBe(false);
  });

  it('is false for anything that is not an IP literal', () => {
    for (const input of ['', 'localhost', '127.1', '[::1]', 'fe80::1%eth0', '1.2.3.4:443']) {
      expect(isPublicUnicastIp(input)).toBe(false);
    }
  });

  it('judges an IPv4-mapped address like the IPv4 address it maps', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(isPublicUnicastIp(`::ffff:${ip}`)).toBe(isPublicUnicastIp(ip));
      }),
    );
  });
});
