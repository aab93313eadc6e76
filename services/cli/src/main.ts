#!/usr/bin/env node
/** partnerctl: what the dashboard and the platform team do, from a terminal. */
import { Command } from 'commander';
import { registerCatalog } from './commands/catalog';
import { registerChannels } from './commands/channels';
import { registerCoupons } from './commands/coupons';
import { registerDemo } from './commands/demo';
import { registerListen } from './commands/listen';
import { registerMembers } from './commands/members';
import { registerMigrate } from './commands/migrate';
import { registerOrders } from './commands/orders';
import { registerOrganisations } from './commands/organisations';
import { registerSeatingPlans } from './commands/seating-plans';
import { registerTickets } from './commands/tickets';
import { registerWaitingRooms } from './commands/waiting-rooms';
import { registerWaitlists } from './commands/waitlists';
import { registerWebhooks } from './commands/webhooks';

// Subcommands inherit the refusal of stray arguments: a mistyped option value must not run the command anyway.
const program = new Command('partnerctl').description('Operator tool for the Partner API').allowExcessArguments(false);
registerMigrate(program);
registerOrganisations(program);
registerMembers(program);
registerDemo(program);
registerCatalog(program);
registerSeatingPlans(program);
registerCoupons(program);
registerChannels(program);
registerTickets(program);
registerOrders(program);
registerWaitlists(program);
registerWaitingRooms(program);
registerWebhooks(program);
registerListen(program);
void program.parseAsync(process.argv);
