/** Webhook endpoint operations the API does not offer, over the webhooks service. */
import { InvalidArgumentError, type Command } from 'commander';
import { create } from '@bufbuild/protobuf';
import { gen, toApiJson } from '@partner-api/shared';
import { action } from '../context';

const id = (value: string) => {
  if (!/^[1-9][0-9]*$/.test(value)) throw new InvalidArgumentError('expected a positive whole number');
  return BigInt(value);
};

export function registerWebhooks(program: Command): void {
  const webhook = program.command('webhook').description('webhook endpoints');
  webhook
    .command('rotate-secret')
    .description("issue a new signing secret (printed once); the old one keeps signing beside it for 24 hours")
    .argument('<endpoint-id>', 'webhook endpoint id', id)
    .requiredOption('--org <id>', 'organisation id', (value) => Number(id(value)))
    .action(
      action(async (ctx, endpointId: bigint, options: { org: number }) => {
        const endpoint = await ctx.webhooks.rotateSecret({ id: endpointId }, ctx.asOrganisation(options.org));
        console.log(JSON.stringify(toApiJson(gen.webhooks.WebhookEndpointSchema, create(gen.webhooks.WebhookEndpointSchema, endpoint)), null, 2));
      }),
    );
}
