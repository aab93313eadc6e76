/**
 * A ticket's QR code, made here (no remote images): as inline SVG for the
 * ticket page and as a module matrix for the PDF, both encoding the
 * ticket's current barcode and nothing else, so any door scanner reads it.
 */
import QRCode from 'qrcode';

// Medium error correction: survives a scratched screen or a crease in a printout.
const ERROR_CORRECTION = 'M';
/** The quiet zone around the code, in modules (the QR standard asks for four). */
export const QUIET_ZONE = 4;

/** An SVG element that scales to its box, labelled for screen readers. */
export async function qrSvg(text: string, label: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', margin: QUIET_ZONE, errorCorrectionLevel: ERROR_CORRECTION });
  const escaped = label.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return svg.replace('<svg ', `<svg role="img" aria-label="${escaped}" focusable="false" `);
}

/** The dark modules of the code, row by row, without the quiet zone. */
export function qrModules(text: string): { size: number; isDark: (row: number, column: number) => boolean } {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: ERROR_CORRECTION });
  return { size: modules.size, isDark: (row, column) => Boolean(modules.get(row, column)) };
}
