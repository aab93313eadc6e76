import { failureReasonForError, failureReasonForStatus } from './failure-reasons';
import { ReceiverRefused } from './receiver-policy';

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });
const wrapped = (cause: unknown) => Object.assign(new TypeError('fetch failed'), { cause });

describe('failure reasons', () => {
  it.each([
    [500, 'status_5xx'],
    [503, 'status_5xx'],
    [400, 'status_4xx'],
    [404, 'status_4xx'],
    [410, 'status_4xx'],
    [301, 'status_3xx'],
    [308, 'status_3xx'],
    [200, null],
    [204, null],
  ])('an answer of %i is %s', (status, reason) => {
    expect(failureReasonForStatus(status)).toBe(reason);
  });

  it('reads timeouts: the abort signal, and undici connect, headers and body timeouts', () => {
    expect(failureReasonForError(Object.assign(new Error('aborted'), { name: 'TimeoutError' }))).toBe('timeout');
    expect(failureReasonForError(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toBe('timeout');
    expect(failureReasonForError(withCode('UND_ERR_HEADERS_TIMEOUT'))).toBe('timeout');
    expect(failureReasonForError(withCode('UND_ERR_BODY_TIMEOUT'))).toBe('timeout');
    expect(failureReasonForError(wrapped(withCode('UND_ERR_CONNECT_TIMEOUT')))).toBe('timeout');
  });

  it('reads a refused connection, also wrapped in a cause', () => {
    expect(failureReasonForError(withCode('ECONNREFUSED'))).toBe('connection_refused');
    expect(failureReasonForError(wrapped(withCode('ECONNREFUSED')))).toBe('connection_refused');
  });

  it('reads TLS failures by their codes', () => {
    for (const code of ['ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_SSL_WRONG_VERSION_NUMBER']) {
      expect([code, failureReasonForError(wrapped(withCode(code)))]).toEqual([code, 'tls']);
    }
  });

  it('reads the receiver policy refusing the address, thrown or as the cause', () => {
    expect(failureReasonForError(new ReceiverRefused('10.0.0.1 is a private address'))).toBe('address_refused');
    expect(failureReasonForError(wrapped(new ReceiverRefused('127.0.0.1 is a loopback address')))).toBe('address_refused');
  });

  it('calls any other network failure a connection error', () => {
    expect(failureReasonForError(withCode('ECONNRESET'))).toBe('connection_error');
    expect(failureReasonForError(wrapped(withCode('ENOTFOUND')))).toBe('connection_error');
    expect(failureReasonForError(new Error('something else'))).toBe('connection_error');
    expect(failureReasonForError(undefined)).toBe('connection_error');
  });
});
