/**
 * The longest ticket code any service takes (the gateway's check-in body,
 * the tickets service, the dashboard's door and search): longer than any
 * barcode we issue (22 characters) or QR payload a scanner sends.
 */
export const MAX_TICKET_CODE_LENGTH = 256;
