/** A refusal the dashboard shows on the page it came from, with the HTTP status to answer with. */
export class DashboardError extends Error {
  override readonly name = 'DashboardError';

  constructor(
    readonly status: number,
    message: string,
    /** The form field the message is about, for focus and aria-describedby. */
    readonly field?: string,
  ) {
    super(message);
  }
}

export const notFound = (what = 'page') => new DashboardError(404, `There is no such ${what} in your organisation.`);
export const forbidden = () => new DashboardError(403, 'Your role cannot do this. Ask an owner or admin of your organisation.');
