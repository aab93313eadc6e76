/**
 * The dashboard's two cookies. With SECURE_COOKIES both carry `Secure` and
 * the `__Host-` prefix (no Domain, Path=/: no subdomain can plant one).
 * The session cookie is HttpOnly and SameSite=Lax (a link from an email
 * opens a signed-in page; every change is a POST, which Lax never sends
 * cross-site); the CSRF cookie is SameSite=Strict.
 */
import type { CookieOptions, Request, Response } from 'express';

export class DashboardCookies {
  readonly session: string;
  readonly csrf: string;

  constructor(readonly secure: boolean, private readonly maxHours: number) {
    const prefix = secure ? '__Host-' : '';
    this.session = `${prefix}dashboard_session`;
    this.csrf = `${prefix}dashboard_csrf`;
  }

  private get sessionOptions(): CookieOptions {
    return { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/', maxAge: this.maxHours * 3_600_000 };
  }

  sessionToken(req: Request): string | undefined {
    const value = (req.cookies as Record<string, unknown> | undefined)?.[this.session];
    return typeof value === 'string' ? value : undefined;
  }

  setSession(res: Response, token: string): void {
    res.cookie(this.session, token, this.sessionOptions);
  }

  clearSession(res: Response): void {
    const { maxAge: _ignored, ...options } = this.sessionOptions;
    res.clearCookie(this.session, options);
  }
}
