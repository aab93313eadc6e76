/**
 * The SMTP adapter against a real SMTP server on loopback (smtp-server,
 * started by the test): an email arrives with its sender, recipient,
 * subject, Message-ID and text; a server that refuses, or a login that
 * fails, is an error the sender loops retry.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { PermanentMailFailure, SmtpMailer, type MailMessage } from '../src/mail';

interface Received {
  from: string | undefined;
  to: string[];
  user: string | undefined;
  raw: string;
}

async function startServer(options: Partial<SMTPServerOptions> = {}): Promise<{ port: number; received: Received[]; stop: () => Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          user: session.user as string | undefined,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, received, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const email: MailMessage = {
  to: 'ann@example.com',
  toName: 'Ann van Lee',
  subject: 'Your ticket to Comp Night',
  text: 'Ticket: 1234\nBarcode: AbCdEfGhIjKlMnOpQrStUv',
  messageId: '<ticket-1234@tickets.example.com>',
};

describe('SmtpMailer', () => {
  it('delivers the email to the SMTP server', async () => {
    const server = await startServer();
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${server.port}`, from: 'Tickets <tickets@tickets.example.com>' });
    try {
      await mailer.send(email);
      expect(server.received).toHaveLength(1);
      const [message] = server.received;
      expect(message!.from).toBe('tickets@tickets.example.com');
      expect(message!.to).toEqual(['ann@example.com']);
      expect(message!.raw).toContain('Subject: Your ticket to Comp Night');
      expect(message!.raw).toContain('Message-ID: <ticket-1234@tickets.example.com>');
      expect(message!.raw).toMatch(/To: "?Ann van Lee"? <ann@example\.com>/);
      expect(message!.raw).toContain('Barcode: AbCdEfGhIjKlMnOpQrStUv');
    } finally {
      await mailer.close();
      await server.stop();
    }
  });

  it('logs in with the credentials in SMTP_URL', async () => {
    const server = await startServer({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === 'mailer' && auth.password === 's3cret') callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
    });
    const good = new SmtpMailer({ url: `smtp://mailer:s3cret@127.0.0.1:${server.port}`, from: 'tickets@tickets.example.com' });
    const bad = new SmtpMailer({ url: `smtp://mailer:wrong@127.0.0.1:${server.port}`, from: 'tickets@tickets.example.com' });
    try {
      await good.send(email);
      expect(server.received.map((message) => message.user)).toEqual(['mailer']);
      await expect(bad.send(email)).rejects.toThrow(/Invalid username or password|auth/i);
      expect(server.received).toHaveLength(1);
    } finally {
      await good.close();
      await bad.close();
      await server.stop();
    }
  });

  it('fails when the server refuses the recipient, so the sender retries later', async () => {
    const server = await startServer({
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 450 }));
      },
    });
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${server.port}`, from: 'tickets@tickets.example.com' });
    try {
      const refusal = mailer.send(email);
      await expect(refusal).rejects.toThrow(/Mailbox unavailable/);
      await expect(refusal).rejects.not.toBeInstanceOf(PermanentMailFailure);
      expect(server.received).toHaveLength(0);
    } finally {
      await mailer.close();
      await server.stop();
    }
  });

  it('fails for good when the server refuses the recipient with a 5xx, so the sender gives up at once', async () => {
    const server = await startServer({
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('No such mailbox'), { responseCode: 550 }));
      },
    });
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${server.port}`, from: 'tickets@tickets.example.com' });
    try {
      await expect(mailer.send(email)).rejects.toBeInstanceOf(PermanentMailFailure);
    } finally {
      await mailer.close();
      await server.stop();
    }
  });

  it('sends the HTML part beside the text, and an inline image by its content id', async () => {
    const server = await startServer();
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${server.port}`, from: 'tickets@tickets.example.com' });
    try {
      await mailer.send({ ...email, html: '<p><img src="cid:qr-1@qr"></p>', attachments: [{ filename: 'qr.png', content: Buffer.from('png'), contentType: 'image/png', cid: 'qr-1@qr' }] });
      const raw = server.received[0]!.raw;
      expect(raw).toMatch(/Content-Type: multipart\/related/);
      expect(raw).toMatch(/Content-Type: text\/html/);
      expect(raw).toContain('Content-ID: <qr-1@qr>');
      expect(raw).toContain('Content-Disposition: inline; filename=qr.png');
    } finally {
      await mailer.close();
      await server.stop();
    }
  });

  it('fails when no server answers', async () => {
    const server = await startServer();
    await server.stop();
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${server.port}`, from: 'tickets@tickets.example.com', timeoutMs: 2_000 });
    await expect(mailer.send(email)).rejects.toThrow();
    await mailer.close();
  });
});
