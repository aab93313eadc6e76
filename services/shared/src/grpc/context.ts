/**
 * The request context every internal call carries in gRPC metadata. Trace
 * context travels beside it through the OpenTelemetry grpc instrumentation.
 */
import { Metadata } from '@grpc/grpc-js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { CallContext, CallContextSchema } from '../gen/partnerapi/common/v1/common_pb';
import { ApiError } from '../errors';
import { randomBase62 } from '../events';

export type KeyMode = 'live' | 'test';

export interface RequestContext {
  readonly organisationId: number;
  readonly mode: KeyMode;
  readonly keyId: number;
  readonly requestId: string;
  /**
   * When the caller stops waiting (ms since the epoch): the edge request's
   * deadline, carried by every call made for it (D442). A service starts no
   * work for a call whose deadline has passed. Absent for work of the
   * platform's own (sweepers, relays), which has only each call's default.
   */
  readonly deadline?: number;
}

const KEYS = {
  organisationId: 'x-organisation-id',
  mode: 'x-key-mode',
  keyId: 'x-key-id',
  requestId: 'x-request-id',
} as const;

export function contextToMetadata(ctx: RequestContext, into = new Metadata()): Metadata {
  into.set(KEYS.organisationId, String(ctx.organisationId));
  into.set(KEYS.mode, ctx.mode);
  into.set(KEYS.keyId, String(ctx.keyId));
  into.set(KEYS.requestId, ctx.requestId);
  return into;
}

function single(metadata: Metadata, key: string): string {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : '';
}

/** A call without a complete context is a bug in the caller. */
function checkedContext(organisationId: number, mode: string, keyId: number, requestId: string, deadline: number): RequestContext {
  if (!Number.isSafeInteger(organisationId) || organisationId <= 0 || (mode !== 'live' && mode !== 'test')) {
    throw new ApiError('internal_error', 'Internal call without a request context.');
  }
  return Number.isFinite(deadline) && deadline > 0 ? { organisationId, mode, keyId, requestId, deadline } : { organisationId, mode, keyId, requestId };
}

/** `deadline`: the call's own (grpc-js's `getDeadline()`), Infinity when it has none. */
export function contextFromMetadata(metadata: Metadata, deadline: number = Infinity): RequestContext {
  return checkedContext(
    Number(single(metadata, KEYS.organisationId)),
    single(metadata, KEYS.mode),
    Number(single(metadata, KEYS.keyId)),
    single(metadata, KEYS.requestId),
    deadline,
  );
}

/** The context of a call that travels inside a batch (see batch-client.ts), which adds the call's deadline. */
export function contextToMessage(ctx: RequestContext): MessageInitShape<typeof CallContextSchema> {
  return { organisationId: BigInt(ctx.organisationId), mode: ctx.mode, keyId: BigInt(ctx.keyId), requestId: ctx.requestId };
}

export function contextFromMessage(message: CallContext | undefined): RequestContext {
  return checkedContext(Number(message?.organisationId ?? 0), message?.mode ?? '', Number(message?.keyId ?? 0), message?.requestId ?? '', Number(message?.deadlineUnixMs ?? 0));
}

/**
 * The organisation id of calls made for no one organisation: platform work
 * across all of them (claiming every organisation's disable notices). No
 * organisation has it (ids come from a sequence starting at 1), so a
 * handler that scoped such a call by organisation would find nothing.
 */
export const ALL_ORGANISATIONS = Number.MAX_SAFE_INTEGER;

export const allOrganisationsContext = (requestId: string): RequestContext => ({ organisationId: ALL_ORGANISATIONS, mode: 'live', keyId: 0, requestId });

/**
 * The context of a call the platform makes itself, outside any partner
 * request: an operator's (partnerctl, the dashboard, test setup) or a
 * service's own work (sweepers, recovery loops, hosted pages). For one
 * organisation, as a live key of it would act, or for platform calls that
 * no organisation scopes (creating an organisation).
 */
export const operatorContext = (organisationId: number = ALL_ORGANISATIONS, requestId = `op_${randomBase62(16)}`): RequestContext => ({
  organisationId,
  mode: 'live',
  keyId: 0,
  requestId,
});

/**
 * The context for work that must be done even though the request's caller
 * stopped waiting: giving back what was taken for it (D442).
 */
export const withoutDeadline = ({ organisationId, mode, keyId, requestId }: RequestContext): RequestContext => ({ organisationId, mode, keyId, requestId });

/** Whether the caller has stopped waiting for this call's answer. */
export const deadlinePassed = (ctx: RequestContext, now = Date.now()): boolean => ctx.deadline !== undefined && now >= ctx.deadline;

/** Test-mode writes are validated in full but change nothing. */
export const isDryRun = (ctx: RequestContext): boolean => ctx.mode === 'test';
