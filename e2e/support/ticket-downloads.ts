/**
 * Reading the ticket page's downloads as a phone or a door would: a PDF
 * rendered to PNG by Debian's pdftoppm with each page's QR code decoded
 * (jsqr), and a Wallet pass unzipped, its manifest's SHA-1 hashes checked
 * and its PKCS#7 signature verified by openssl against the local signing
 * pair (deploy/local/pass-certs.sh; tools from deploy/local/pdf-tools.sh).
 */
import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');

/** The directory the local stack signs passes with (make pass-certs). */
export const PASS_CERTIFICATES_DIR = process.env.PASS_CERTIFICATES_DIR ?? path.join(ROOT, '.data', 'passkit');

async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ticket-downloads-'));
  try {
    return await work(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of the one QR code on each page of the PDF, page by page (null where none decodes). */
export function qrCodesOfPdf(pdf: Buffer): Promise<Array<string | null>> {
  return inTempDir(async (dir) => {
    fs.writeFileSync(path.join(dir, 'tickets.pdf'), pdf);
    // 100 dpi: a phone photo of a printout has about this much detail.
    await run('pdftoppm', ['-png', '-r', '100', path.join(dir, 'tickets.pdf'), path.join(dir, 'page')]);
    const pages = fs.readdirSync(dir).filter((name) => name.endsWith('.png')).sort((a, b) => pageNumber(a) - pageNumber(b));
    return pages.map((name) => {
      const png = PNG.sync.read(fs.readFileSync(path.join(dir, name)));
      return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
    });
  });
}

const pageNumber = (name: string) => Number(/-(\d+)\.png$/.exec(name)![1]);

export interface OpenedPass {
  passJson: { barcodes: Array<{ format: string; message: string }>; relevantDate?: string; locations?: Array<{ latitude: number; longitude: number }>; serialNumber: string };
  /** Files whose SHA-1 differs from the manifest's, and files the manifest misses or names but the pass lacks. */
  manifestProblems: string[];
  /** Whether openssl verified the signature over manifest.json against the WWDR certificate. */
  signatureVerified: boolean;
  /** The certificate that signed, as openssl read it from a verified signature. */
  signer?: X509Certificate;
}

export function openPass(pkpass: Buffer): Promise<OpenedPass> {
  return inTempDir(async (dir) => {
    const zip = path.join(dir, 'ticket.pkpass');
    const files = path.join(dir, 'files');
    fs.writeFileSync(zip, pkpass);
    await run('unzip', ['-q', zip, '-d', files]);
    const manifest = JSON.parse(fs.readFileSync(path.join(files, 'manifest.json'), 'utf8')) as Record<string, string>;
    const present = fs.readdirSync(files, { recursive: true, encoding: 'utf8' }).filter((name) => fs.statSync(path.join(files, name)).isFile());
    const manifestProblems = [
      ...present
        .filter((name) => name !== 'manifest.json' && name !== 'signature')
        .filter((name) => manifest[name] !== createHash('sha1').update(fs.readFileSync(path.join(files, name))).digest('hex'))
        .map((name) => `${name}: hash differs or missing from manifest`),
      ...Object.keys(manifest).filter((name) => !present.includes(name)).map((name) => `${name}: named in manifest, not in pass`),
    ];
    const signerFile = path.join(dir, 'signer.pem');
    let signatureVerified = true;
    try {
      await run('openssl', [
        'smime', '-verify', '-binary', '-inform', 'DER',
        '-in', path.join(files, 'signature'),
        '-content', path.join(files, 'manifest.json'),
        '-CAfile', path.join(PASS_CERTIFICATES_DIR, 'wwdr.pem'),
        '-purpose', 'any',
        '-signer', signerFile,
        '-out', path.join(dir, 'verified'),
      ]);
    } catch {
      signatureVerified = false;
    }
    return {
      passJson: JSON.parse(fs.readFileSync(path.join(files, 'pass.json'), 'utf8')) as OpenedPass['passJson'],
      manifestProblems,
      signatureVerified,
      signer: signatureVerified ? new X509Certificate(fs.readFileSync(signerFile)) : undefined,
    };
  });
}

/** The local signing pair's certificate, to compare with a pass's signer. */
export const localSignerCertificate = (): X509Certificate => new X509Certificate(fs.readFileSync(path.join(PASS_CERTIFICATES_DIR, 'signer-cert.pem')));
