/** Starts the orders service (checkout sessions, orders, coupons, payments, the hosted checkout); tests call this and own its life. */
import { AddressLimitCounts, createServiceClient, gen, ServiceRuntime, ticketPageUrl, type Logger } from '@partner-api/shared';
import { SimulatedCardProcessor } from './adapters/simulated-card-processor';
import { StripePaymentProvider } from './adapters/stripe-payment-provider';
import type { OrdersConfig } from './config';
import { ChannelOrigins } from './domain/channel-origins';
import { CheckoutPayments } from './domain/checkout-payments';
import { CheckoutSessions } from './domain/checkout-sessions';
import { Coupons } from './domain/coupons';
import { OrderFulfilment } from './domain/fulfilment';
import { Orders } from './domain/orders';
import type { PaymentProvider } from './domain/payment-provider';
import { Refunds } from './domain/refunds';
import { ChannelTokens } from './domain/sales-channels';
import { TicketPages } from './domain/ticket-pages';
import { WaitingRoom } from './domain/waiting-room';
import { WaitingRoomAdmin } from './domain/waiting-room-admin';
import { WaitingRoomPasses } from './domain/waiting-room-passes';
import { ordersHandlers } from './grpc/handlers';
import { ChannelOriginRepository } from './storage/channel-origin-repository';
import { CheckoutRepository } from './storage/checkout-repository';
import { OrderRepository } from './storage/order-repository';
import { RefundRepository } from './storage/refund-repository';
import { WaitingRoomStore } from './storage/waiting-room-store';
import { hostedCheckoutApp } from './web/hosted-checkout';
import { ticketPagesRouter } from './web/ticket-pages';
import { waitingRoomRouter } from './web/waiting-room-routes';
import { WalletPasses } from './web/wallet-passes';

export const SCHEMA = 'orders';

/** Where the per-address waiting-list join counts live in Redis (one key per address), shared by every orders process. */
export const WAITLIST_JOIN_COUNTS_PREFIX = 'orders:waitlist-joins:';

export interface RunningOrders {
  runtime: ServiceRuntime;
  checkoutPort: number;
}

function paymentProvider(config: OrdersConfig): PaymentProvider {
  return config.PAYMENT_PROVIDER === 'stripe'
    ? new StripePaymentProvider({ secretKey: config.STRIPE_SECRET_KEY!, apiBase: config.STRIPE_API_BASE })
    : new SimulatedCardProcessor();
}

const waitingRoomPolicy = (config: OrdersConfig) => ({
  automaticRate: config.WAITING_ROOM_AUTOMATIC_RATE,
  turnSeconds: config.WAITING_ROOM_TURN_SECONDS,
  passSeconds: config.WAITING_ROOM_PASS_SECONDS,
  passesPerAddress: config.WAITING_ROOM_PASSES_PER_ADDRESS,
  addressWindowSeconds: config.WAITING_ROOM_ADDRESS_WINDOW_SECONDS,
});

export async function startOrders(config: OrdersConfig, logger?: Logger): Promise<ServiceRuntime> {
  return (await startOrdersService(config, logger)).runtime;
}

/** Tests may bring the card processor (the simulated one, to read its ledger); otherwise PAYMENT_PROVIDER picks it. */
export interface OrdersDependencies {
  paymentProvider?: PaymentProvider;
  /** Tests count their joins under a prefix of their own: every suite joins from 127.0.0.1 on one Redis. */
  joinCountsPrefix?: string;
}

export async function startOrdersService(config: OrdersConfig, logger?: Logger, dependencies: OrdersDependencies = {}): Promise<RunningOrders> {
  const runtime = new ServiceRuntime('orders', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  // Only the join counts live there: orders serves everything else, and joins go on uncounted, without it (D371).
  const redis = runtime.redis(config, { optional: true });
  // Before any command goes out: the store defines its script on the client.
  const joinCounts = new AddressLimitCounts(redis, dependencies.joinCountsPrefix ?? WAITLIST_JOIN_COUNTS_PREFIX);
  const waitingRoom = new WaitingRoom(new WaitingRoomStore(redis), new WaitingRoomPasses(config.WAITING_ROOM_PASS_SECRET), waitingRoomPolicy(config));
  await runtime.outboxRelay(pool, config);
  // The holds of concurrent checkouts reach inventory in one round trip per turn (D216).
  const inventory = createServiceClient(gen.inventory.InventoryService, config.INVENTORY_GRPC_ADDR, { batched: config.GRPC_CALL_BATCHING ? ['holdStock'] : [] });
  const tickets = createServiceClient(gen.tickets.TicketsService, config.TICKETS_GRPC_ADDR);
  runtime.lifecycle.onShutdown('service clients', () => {
    inventory.close();
    tickets.close();
  });

  const sessionsStore = new CheckoutRepository(pool);
  const ordersStore = new OrderRepository(pool);
  const provider = dependencies.paymentProvider ?? paymentProvider(config);
  const sessions = new CheckoutSessions(
    sessionsStore,
    inventory,
    { checkoutBaseUrl: config.CHECKOUT_BASE_URL, holdSeconds: config.HOLD_SECONDS },
    runtime.logger,
  );
  const fulfilment = new OrderFulfilment(pool, sessionsStore, ordersStore, inventory, tickets, provider, { holdSeconds: config.HOLD_SECONDS }, runtime.logger);
  const payments = new CheckoutPayments(
    pool,
    sessionsStore,
    ordersStore,
    provider,
    fulfilment,
    { chargeTimeoutMs: config.PAYMENT_CHARGE_TIMEOUT_MS, completionDelayMs: config.PAYMENT_COMPLETION_DELAY_MS },
    runtime.logger,
  );
  const orders = new Orders(ordersStore, tickets);
  const refunds = new Refunds(pool, ordersStore, new RefundRepository(pool), orders, tickets, inventory, provider, { recoveryDelayMs: config.REFUND_RECOVERY_DELAY_MS }, runtime.logger);

  const ticketPages = {
    router: ticketPagesRouter(new TicketPages(ordersStore, tickets, inventory, config.TICKET_PAGE_SECRET), WalletPasses.fromConfig(config), runtime.logger),
    linkFor: (orderId: string) => ticketPageUrl({ baseUrl: config.CHECKOUT_BASE_URL, orderId, secret: config.TICKET_PAGE_SECRET }),
  };

  const origins = new ChannelOrigins(new ChannelOriginRepository(pool));
  const channels = { sessions, origins, tokens: new ChannelTokens(config.CHANNEL_TOKEN_SECRET, config.CHANNEL_PAGE_SECONDS), storefrontOrigin: new URL(config.CHECKOUT_BASE_URL).origin };

  // The listed methods finish or give back admitted work, so the call gate never sheds them (D449).
  await runtime.serveGrpc(gen.orders.OrdersService, ordersHandlers(sessions, orders, new Coupons(sessionsStore, inventory), refunds, origins, new WaitingRoomAdmin(waitingRoom, inventory)), config.GRPC_PORT, [
    'abandonCheckoutSession',
  ]);
  const checkoutPort = await runtime.serveHttp(hostedCheckoutApp(
      payments,
      sessions,
      inventory,
      channels,
      {
        trustedProxies: config.TRUST_PROXY,
        joinLimits: { perWindow: config.WAITLIST_JOINS_PER_WINDOW, windowSeconds: config.WAITLIST_JOIN_WINDOW_SECONDS, counts: joinCounts },
        ticketPages,
        waitingRoom: waitingRoomRouter({ room: waitingRoom, inventory, origins, secureCookies: config.CHECKOUT_BASE_URL.startsWith('https:'), metrics: runtime.metrics, logger: runtime.logger }),
      },
      runtime.logger,
    ), config.HTTP_PORT);
  runtime.every('payment recovery', config.PAYMENT_RECOVERY_INTERVAL_MS, () => payments.recover());
  runtime.every('refund recovery', config.PAYMENT_RECOVERY_INTERVAL_MS, () => refunds.recover());
  runtime.every('pending session sweep', config.PENDING_SWEEP_INTERVAL_MS, () => sessions.sweepPending(config.PENDING_SESSION_SECONDS));
  await runtime.ready();
  return { runtime, checkoutPort };
}
