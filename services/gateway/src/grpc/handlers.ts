/**
 * gRPC handlers of the gateway's own service: organisations (platform
 * calls: the caller's context does not scope them) and the keys of the
 * context's organisation. Ids arrive as int64 and are checked here, at the
 * edge; times leave as RFC 3339 strings.
 */
import { ApiError, type gen, type IssuedKey, type KeyMode, type ServiceHandlers } from '@partner-api/shared';
import type { KeyAdmin, KeyWithState } from '../domain/key-admin';
import type { Organisations } from '../domain/organisations';
import type { OrganisationRow } from '../storage/key-repository';

type GatewayMethods = (typeof gen.gateway.GatewayService)['method'];

/** An int64 id the gateway's tables can hold (their ids are JavaScript numbers inside the gateway). */
function idOf(value: bigint, param = 'id'): number {
  if (value < 1n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError('parameter_invalid', 'The id is a positive whole number.', param);
  return Number(value);
}

const organisationView = (organisation: OrganisationRow) => ({ id: BigInt(organisation.id), name: organisation.name, slug: organisation.slug });

const iso = (time: Date | null): string | undefined => time?.toISOString();

const keyView = (key: KeyWithState) => ({
  id: BigInt(key.id),
  name: key.name,
  mode: key.mode,
  prefix: key.prefix,
  last4: key.last4,
  scopes: key.scopes,
  ipAllowlist: key.ip_allowlist,
  rateLimit: key.rate_limit ?? undefined,
  state: key.state,
  createdAt: key.created_at.toISOString(),
  revokedAt: iso(key.revoked_at),
  expiresAt: iso(key.expires_at),
  replacedBy: key.replaced_by === null ? undefined : BigInt(key.replaced_by),
  lastUsedAt: iso(key.last_used_at),
});

const issuedView = (issued: IssuedKey & { oldKeyExpiresAt?: Date }) => ({
  id: BigInt(issued.id),
  secret: issued.secret,
  prefix: issued.prefix,
  last4: issued.last4,
  mode: issued.mode,
  scopes: issued.scopes,
  oldKeyExpiresAt: iso(issued.oldKeyExpiresAt ?? null),
});

export function gatewayHandlers(organisations: Organisations, keys: KeyAdmin): ServiceHandlers<GatewayMethods> {
  return {
    createOrganisation: async (request) => organisationView(await organisations.create(request.name, request.slug)),
    getOrganisation: async ({ organisation }) => {
      switch (organisation.case) {
        case 'id':
          return organisationView(await organisations.get(idOf(organisation.value)));
        case 'slug':
          return organisationView(await organisations.bySlug(organisation.value));
        default:
          throw new ApiError('parameter_missing', 'Name the organisation by id or slug.', 'id');
      }
    },
    listOrganisations: async () => ({ data: (await organisations.list()).map(organisationView) }),
    updateOrganisation: async (request) => {
      const id = idOf(request.id);
      return organisationView(request.name === undefined ? await organisations.get(id) : await organisations.rename(id, request.name));
    },

    listApiKeys: async (_request, ctx) => ({ data: (await keys.listKeys(ctx.organisationId)).map(keyView) }),
    getApiKey: async (request, ctx) => keyView(await keys.getKey(ctx.organisationId, idOf(request.id))),
    issueApiKey: async (request, ctx) =>
      issuedView(
        await keys.issueKey({
          organisationId: ctx.organisationId,
          name: request.name,
          mode: request.mode as KeyMode,
          scopes: request.scopes,
          ipAllowlist: request.ipAllowlist,
          rateLimit: request.rateLimit ?? null,
        }),
      ),
    rollApiKey: async (request, ctx) => issuedView(await keys.rollKey(ctx.organisationId, idOf(request.id), request.graceHours)),
    revokeApiKey: async (request, ctx) => {
      const id = idOf(request.id);
      await keys.revokeKey(ctx.organisationId, id);
      return keyView(await keys.getKey(ctx.organisationId, id));
    },
    setApiKeyAllowlist: async (request, ctx) => {
      const id = idOf(request.id);
      await keys.setAllowlist(ctx.organisationId, id, request.ipAllowlist);
      return keyView(await keys.getKey(ctx.organisationId, id));
    },
    setApiKeyRateLimit: async (request, ctx) => {
      const id = idOf(request.id);
      await keys.setRateLimit(ctx.organisationId, id, request.rateLimit ?? null);
      return keyView(await keys.getKey(ctx.organisationId, id));
    },
  };
}
