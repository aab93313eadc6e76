/** gRPC handlers of the webhooks service. Methods not listed answer UNIMPLEMENTED. */
import type { gen, ServiceHandlers } from '@partner-api/shared';

type WebhooksMethods = (typeof gen.webhooks.WebhooksService)['method'];

export function webhooksHandlers(): Partial<ServiceHandlers<WebhooksMethods>> {
  return {};
}
