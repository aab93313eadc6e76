/** The spec's error envelope, built in this one place for every non-2xx response. */
import type { Response } from 'express';
import { type ApiError } from '@partner-api/shared';

export interface ErrorEnvelope {
  error: {
    type: string;
    code: string;
    message: string;
    param: string | null;
    request_id: string;
    doc_url: string;
  };
}

export function errorEnvelope(error: ApiError, requestId: string, docsBaseUrl: string): ErrorEnvelope {
  return {
    error: {
      type: error.type,
      code: error.code,
      message: error.message,
      param: error.param,
      request_id: requestId,
      doc_url: `${docsBaseUrl}#${error.code}`,
    },
  };
}

export function sendError(res: Response, error: ApiError): void {
  const { requestId, docsBaseUrl } = res.locals as { requestId: string; docsBaseUrl: string };
  res.status(error.httpStatus).json(errorEnvelope(error, requestId, docsBaseUrl));
}
