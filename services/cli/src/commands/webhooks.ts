/** Webhook endpoint operations the API does not offer, over the webhooks service. */
import type { Command } from 'commander';
import { create } from '@bufbuild/protobuf';
import { gen, toApiJson } from '@partner-api/shared';
import { action, positiveId, positiveInt } from '../context';

export function registerWebhooks(program: Command): void {
  const webhook = program.command('webhook').description('webhook endpoints');
  webhook
    .command('rotate-secret')
    .description("issue a new signing secret (printed once); the old one keeps signing beside it for 24 hours")
    .argument('<endpoint-id>', 'webhook endpoint id', positiveId)
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .action(
      action(async (ctx, endpointId: bigint, options: { org: number }) => {
        const endpoint = await ctx.webhooks.rotateSecret({ id: endpointId }, ctx.asOrganisation(options.org));
        console.log(JSON.stringify(toApiJson(gen.webhooks.WebhookEndpointSchema, create(gen.webhooks.WebhookEndpointSchema, endpoint)), null, 2));
      }),
    );
}
