import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { create } from '@bufbuild/protobuf';
import { gen } from '@partner-api/shared';
import { CERTIFICATE_FILES, passIdentifiers, WalletPasses } from './wallet-passes';

let dir: string;

/** A self-signed certificate and key with this subject, as openssl makes them. */
function certificate(subject: string, name: string): { cert: string; key: string } {
  const cert = path.join(dir, `${name}-cert.pem`);
  const key = path.join(dir, `${name}-key.pem`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', subject, '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert: fs.readFileSync(cert, 'utf8'), key: fs.readFileSync(key, 'utf8') };
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wallet-passes-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('pass signing configuration', () => {
  it('reads the pass type id and team id from the certificate’s UID and OU', () => {
    const { cert } = certificate('/UID=pass.com.example.tickets/CN=Pass Type ID: pass.com.example.tickets/OU=ABCDE12345/O=Example', 'apple');
    expect(passIdentifiers(cert)).toEqual({ passTypeIdentifier: 'pass.com.example.tickets', teamIdentifier: 'ABCDE12345' });
  });

  it('refuses a certificate that is not a pass type certificate', () => {
    const { cert } = certificate('/CN=example.com/O=Example', 'web');
    expect(() => passIdentifiers(cert)).toThrow(/not a pass type certificate/);
  });

  it('offers no passes without a certificates directory, and stops the start on an incomplete one', () => {
    expect(WalletPasses.fromConfig({ PASS_ORGANIZATION_NAME: 'Example' })).toBeUndefined();
    expect(() => WalletPasses.fromConfig({ PASS_CERTIFICATES_DIR: path.join(dir, 'missing'), PASS_ORGANIZATION_NAME: 'Example' })).toThrow(/ENOENT/);
  });

  it('makes a signed .pkpass (a zip) from a complete directory', () => {
    const passes = path.join(dir, 'passes');
    fs.mkdirSync(passes);
    const wwdr = certificate('/CN=WWDR stand-in', 'wwdr');
    const signer = certificate('/UID=pass.com.example.tickets/OU=ABCDE12345/CN=Pass', 'signer');
    fs.writeFileSync(path.join(passes, CERTIFICATE_FILES.wwdr), wwdr.cert);
    fs.writeFileSync(path.join(passes, CERTIFICATE_FILES.signerCert), signer.cert);
    fs.writeFileSync(path.join(passes, CERTIFICATE_FILES.signerKey), signer.key);
    const wallet = WalletPasses.fromConfig({ PASS_CERTIFICATES_DIR: passes, PASS_ORGANIZATION_NAME: 'Example' })!;
    const ticket = create(gen.tickets.TicketSchema, { id: 7n, barcode: 'CODE7', status: 'valid', ticketTypeName: 'GA' });
    const pkpass = wallet.forTicket(ticket, { title: 'Night', startsAt: '2026-12-31T09:00:00Z', timezone: 'Australia/Sydney', latitude: -33.86, longitude: 151.21 });
    expect(pkpass.subarray(0, 2).toString()).toBe('PK');
    for (const file of ['pass.json', 'manifest.json', 'signature', 'icon.png']) expect(pkpass.includes(Buffer.from(file))).toBe(true);
  });
});
