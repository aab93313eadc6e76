/** Organisations: who owns keys (created and renamed by operators; the slug never changes). */
import { ApiError } from '@partner-api/shared';
import type { KeyRepository, OrganisationRow } from '../storage/key-repository';

/** Lower-case letters, digits and single hyphens inside, as in URLs and the API's `organisation.slug`. */
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_SLUG_LENGTH = 63;
const MAX_NAME_LENGTH = 200;

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > MAX_NAME_LENGTH) {
    throw new ApiError('parameter_invalid', `The organisation's name is 1 to ${MAX_NAME_LENGTH} characters.`, 'name');
  }
  return trimmed;
}

export const noSuchOrganisation = (id: number | string): ApiError => new ApiError('resource_missing', `There is no organisation ${id}.`, 'id');

export class Organisations {
  constructor(private readonly repository: KeyRepository) {}

  async create(name: string, slug: string): Promise<OrganisationRow> {
    const checked = checkedName(name);
    if (slug.length > MAX_SLUG_LENGTH || !SLUG.test(slug)) {
      throw new ApiError('parameter_invalid', `The slug is up to ${MAX_SLUG_LENGTH} lower-case letters, digits and hyphens (not at either end).`, 'slug');
    }
    const created = await this.repository.createOrganisation(checked, slug);
    // 409 (gRPC ABORTED): the slug is taken, which another name may not be.
    if (!created) throw new ApiError('parameter_invalid', `There is already an organisation with the slug "${slug}".`, 'slug', 409);
    return created;
  }

  async get(id: number): Promise<OrganisationRow> {
    const found = await this.repository.findOrganisation(id);
    if (!found) throw noSuchOrganisation(id);
    return found;
  }

  async bySlug(slug: string): Promise<OrganisationRow> {
    const found = await this.repository.findOrganisationBySlug(slug);
    if (!found) throw new ApiError('resource_missing', `There is no organisation with the slug "${slug}".`, 'slug');
    return found;
  }

  list(): Promise<OrganisationRow[]> {
    return this.repository.listOrganisations();
  }

  async rename(id: number, name: string): Promise<OrganisationRow> {
    const renamed = await this.repository.renameOrganisation(id, checkedName(name));
    if (!renamed) throw noSuchOrganisation(id);
    return renamed;
  }
}
