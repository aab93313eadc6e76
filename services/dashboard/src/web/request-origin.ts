/** Where a request came from, as the audit log keeps it (the address as "trust proxy" resolves it). */
import type { Request } from 'express';
import type { Origin } from '../domain/audit';

export const originOf = (req: Request): Origin => ({ ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null });
