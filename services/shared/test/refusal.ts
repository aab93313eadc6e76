/** For unit tests of rules that throw: the ApiError `run` throws (anything else is rethrown; no throw fails the test). */
import { ApiError } from '../src/errors';

export function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}
