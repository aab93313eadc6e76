/**
 * Apple Wallet passes (.pkpass), one per ticket, made with passkit-generator
 * (D424): an event ticket carrying the ticket's barcode as a QR code, the
 * event's start as its relevant date and the venue's position (when known)
 * as its location, signed with the certificates of PASS_CERTIFICATES_DIR.
 * The pass type id and team id are read from the signer certificate's
 * subject (Apple puts them there), so they cannot disagree with it.
 * Without the directory no passes are offered.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { PKPass } from 'passkit-generator';
import { z } from 'zod';
import type { EventDetails, PageTicket } from '../domain/ticket-pages';
import { attendeeName, eventTime, seatLine } from './ticket-text';

export const walletPassEnv = z.object({
  /** A directory with wwdr.pem (Apple's WWDR intermediate), signer-cert.pem and signer-key.pem; unset offers no passes. */
  PASS_CERTIFICATES_DIR: z.string().min(1).optional(),
  PASS_SIGNER_KEY_PASSPHRASE: z.string().optional(),
  /** Shown on the pass and in Wallet's notifications. */
  PASS_ORGANIZATION_NAME: z.string().min(1).max(64).default('Partner API tickets'),
});

export type WalletPassConfig = z.infer<typeof walletPassEnv>;

export const CERTIFICATE_FILES = { wwdr: 'wwdr.pem', signerCert: 'signer-cert.pem', signerKey: 'signer-key.pem' } as const;

// Wallet shows icon.png in notifications and the lock screen; a pass without one does not install.
const ICONS: Record<string, string> = {
  'icon.png':
    'iVBORw0KGgoAAAANSUhEUgAAAB0AAAAdCAYAAABWk2cPAAAAaklEQVR4AcXByw2CUAAAwXXzTlIPvUiF9CL1cNYGJJL42ZnL9XZ/8GcSkIAEJCCBwYF9nfnUtGy8IgEJSGBw0rRsvLOvM2dIQAISkIAEJCABCQxO2teZb5GABCQwODAtG78iAQlIQAISeALWTAttsczOBgAAAABJRU5ErkJggg==',
  'icon@2x.png':
    'iVBORw0KGgoAAAANSUhEUgAAADoAAAA6CAYAAADhu0ooAAAAmElEQVR4AeXBwQ2CQAAAwXVzL6mHXqRCepF6eGsNkkvU7Mzt/ni+CJAIiZAIiZAIiZAIiZAIiZAIiRhccO4r37RsB5+SCImQCImQCIkYTLZsBzOc+8pMEiEREiEREiEREiEREiEREiEREiEREiEREjGY7NxXfpFESIRESIRESMTggmU7+DcSIRESIRESIRESIRESIRESIRFvqz4LpxJOL9IAAAAASUVORK5CYII=',
  'icon@3x.png':
    'iVBORw0KGgoAAAANSUhEUgAAAFcAAABXCAYAAABxyNlsAAAA6UlEQVR4Ae3BwVECAQAEwXHrXhIPuUiE5CLx8NanCdxIaU332/vH5xdRjGhGNCOaEc2IZkQzohnRjGhGNCOaEc2IZkQzohnRjGhGNAcnet6v/HWX24OzjGhGNCOaEc2IZkQzohnRjGhGNAcvcrk9+C3P+5VXGNGMaEY0I5oRzYhmRDOiGdGMaEY0I5oRzYhmRDOiGdGMaEY0I5oRzYhmRDOiGdGMaA5e5Hm/8t+NaEY0I5oRzYhmRDOiGdGMaEY0Bye63B7kx4hmRDOiGdGMaEY0I5oRzYhmRDOiGdGMaEY0I5oRzYhmRPMN3xYL4S2w2QIAAAAASUVORK5CYII=',
};

interface Signing {
  wwdr: string;
  signerCert: string;
  signerKey: string;
  signerKeyPassphrase?: string;
  passTypeIdentifier: string;
  teamIdentifier: string;
}

/** The subject's UID (pass type id) and OU (team id) of an Apple pass type certificate. */
export function passIdentifiers(certificatePem: string): { passTypeIdentifier: string; teamIdentifier: string } {
  const fields = new Map(
    new X509Certificate(certificatePem).subject.split('\n').map((line) => {
      const at = line.indexOf('=');
      return [line.slice(0, at), line.slice(at + 1)] as const;
    }),
  );
  const passTypeIdentifier = fields.get('UID');
  const teamIdentifier = fields.get('OU');
  if (!passTypeIdentifier || !teamIdentifier) {
    throw new Error(`${CERTIFICATE_FILES.signerCert} is not a pass type certificate: its subject needs UID (the pass type id) and OU (the team id)`);
  }
  return { passTypeIdentifier, teamIdentifier };
}

export class WalletPasses {
  private constructor(
    private readonly signing: Signing,
    private readonly organizationName: string,
  ) {}

  /** The passes of this configuration, or undefined when none is set; unreadable files fail the start. */
  static fromConfig(config: WalletPassConfig): WalletPasses | undefined {
    if (!config.PASS_CERTIFICATES_DIR) return undefined;
    const read = (file: string) => readFileSync(join(config.PASS_CERTIFICATES_DIR!, file), 'utf8');
    const signerCert = read(CERTIFICATE_FILES.signerCert);
    return new WalletPasses(
      {
        wwdr: read(CERTIFICATE_FILES.wwdr),
        signerCert,
        signerKey: read(CERTIFICATE_FILES.signerKey),
        signerKeyPassphrase: config.PASS_SIGNER_KEY_PASSPHRASE,
        ...passIdentifiers(signerCert),
      },
      config.PASS_ORGANIZATION_NAME,
    );
  }

  /** A signed .pkpass of one scannable ticket. */
  forTicket(ticket: PageTicket, event: EventDetails): Buffer {
    const attendee = attendeeName(ticket);
    const passJson = {
      formatVersion: 1,
      passTypeIdentifier: this.signing.passTypeIdentifier,
      teamIdentifier: this.signing.teamIdentifier,
      organizationName: this.organizationName,
      // One pass per ticket; a transfer's new barcode replaces the pass's content, not its identity.
      serialNumber: `ticket-${ticket.id}`,
      description: `Ticket for ${event.title}`,
      backgroundColor: 'rgb(255,255,255)',
      foregroundColor: 'rgb(29,29,31)',
      labelColor: 'rgb(85,85,85)',
      eventTicket: {
        primaryFields: [{ key: 'event', label: 'EVENT', value: event.title }],
        secondaryFields: [{ key: 'when', label: 'WHEN', value: eventTime(event) }],
        auxiliaryFields: [
          { key: 'ticket', label: 'TICKET', value: seatLine(ticket) },
          ...(event.doors ? [{ key: 'doors', label: 'DOORS', value: event.doors }] : []),
        ],
        backFields: [
          ...(attendee || ticket.attendee?.email ? [{ key: 'attendee', label: 'Attendee', value: attendee || ticket.attendee!.email! }] : []),
          ...(event.venueName || event.address ? [{ key: 'venue', label: 'Venue', value: [event.venueName, event.address].filter(Boolean).join('\n') }] : []),
          { key: 'code', label: 'Ticket code', value: ticket.barcode },
        ],
      },
    };
    const pass = new PKPass(
      { ...Object.fromEntries(Object.entries(ICONS).map(([name, base64]) => [name, Buffer.from(base64, 'base64')])), 'pass.json': Buffer.from(JSON.stringify(passJson)) },
      { wwdr: this.signing.wwdr, signerCert: this.signing.signerCert, signerKey: this.signing.signerKey, signerKeyPassphrase: this.signing.signerKeyPassphrase },
    );
    pass.setBarcodes({ format: 'PKBarcodeFormatQR', message: ticket.barcode, messageEncoding: 'iso-8859-1', altText: ticket.barcode });
    pass.setRelevantDate(new Date(event.startsAt));
    if (event.latitude !== undefined && event.longitude !== undefined) {
      pass.setLocations({ latitude: event.latitude, longitude: event.longitude, relevantText: `${event.title}${event.venueName ? ` at ${event.venueName}` : ''}` });
    }
    return pass.getAsBuffer();
  }
}
