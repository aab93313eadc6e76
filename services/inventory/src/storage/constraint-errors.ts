import { ApiError } from '@partner-api/shared';

/**
 * The tables' constraints are the last line of defence; when one refuses a
 * write, the operator gets the field to fix, not a 500.
 */
export async function explainConstraints<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (code === '23505') {
      const field = constraint?.includes('slug') ? 'slug' : null;
      throw new ApiError('parameter_invalid', `${field ?? 'A value'} is already in use.`, field);
    }
    if (code === '23503') throw new ApiError('parameter_invalid', 'That reference does not exist.', constraint?.includes('venue') ? 'venue_id' : 'id');
    if (code === '23514') throw new ApiError('parameter_invalid', `The values break a rule of the catalog (${constraint ?? 'check'}).`, null);
    if (code === '22P02' || code === '22007' || code === '22008') throw new ApiError('parameter_invalid', 'A value has the wrong format.', null);
    throw error;
  }
}
