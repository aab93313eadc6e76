/**
 * Which requests a gateway process starts, and which it turns away at once
 * (D441). Requests in flight are bounded by the adaptive limit
 * (concurrency-limit.ts). Writes that move money or stock (`critical`:
 * checkout sessions, comps, check-ins) may use the whole limit; everything
 * else (`standard`: reads, webhook management) only what the critical
 * reserve leaves, so partners polling `/events` during an on-sale are
 * turned away before a buyer is. A request over its class's share waits a
 * few milliseconds for a slot (critical ones are served first when one
 * frees), then is shed: turned away before any work is done for it.
 */
import type { ConcurrencyLimit } from './concurrency-limit';

export type RequestClass = 'critical' | 'standard';

export const REQUEST_CLASSES: readonly RequestClass[] = ['critical', 'standard'];

export interface AdmissionOptions {
  /** The fraction of the limit only critical requests may use. */
  criticalReserve: number;
  /** How long a request over its share may wait for a slot before it is shed. */
  maxWaitMs: number;
}

/** A started request's hold on its slot: given back once, when its response is done. */
export interface Permit {
  release(): void;
}

export interface AdmissionCallbacks {
  /** Started: `waitedMs` is the time spent waiting for a slot (0 when one was free). */
  admitted(permit: Permit, waitedMs: number): void;
  /** Turned away after waiting `waitedMs`. */
  shed(waitedMs: number): void;
}

interface Waiter {
  readonly requestClass: RequestClass;
  readonly arrived: number;
  readonly callbacks: AdmissionCallbacks;
  cancelled: boolean;
}

export class Admission {
  private readonly inFlightByClass: Record<RequestClass, number> = { critical: 0, standard: 0 };
  private readonly waiting: Record<RequestClass, Waiter[]> = { critical: [], standard: [] };
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limit: ConcurrencyLimit,
    private readonly options: AdmissionOptions,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  get inFlight(): number {
    return this.inFlightByClass.critical + this.inFlightByClass.standard;
  }

  inFlightOf(requestClass: RequestClass): number {
    return this.inFlightByClass[requestClass];
  }

  get currentLimit(): number {
    return this.limit.limit;
  }

  /** How many requests of a class may be in flight (all of them together, as the reserve is shared). */
  shareOf(requestClass: RequestClass): number {
    const limit = this.limit.limit;
    return requestClass === 'critical' ? limit : Math.max(1, Math.floor(limit * (1 - this.options.criticalReserve)));
  }

  /**
   * Starts the request now, or when a slot frees within `maxWaitMs`, or
   * sheds it. Returns a function that withdraws a waiting request (its
   * client left): it is then neither started nor shed.
   */
  request(requestClass: RequestClass, callbacks: AdmissionCallbacks): () => void {
    const waiter: Waiter = { requestClass, arrived: this.clock(), callbacks, cancelled: false };
    if (this.waiting[requestClass].length === 0 && this.inFlight < this.shareOf(requestClass)) {
      this.start(waiter);
      return () => {};
    }
    if (this.options.maxWaitMs <= 0 || this.waiting[requestClass].length >= this.limit.limit) {
      callbacks.shed(0);
      return () => {};
    }
    this.waiting[requestClass].push(waiter);
    this.armTimer();
    return () => {
      waiter.cancelled = true;
    };
  }

  private start(waiter: Waiter): void {
    const { requestClass } = waiter;
    const started = this.clock();
    this.inFlightByClass[requestClass] += 1;
    const inFlightAtStart = this.inFlight;
    let released = false;
    waiter.callbacks.admitted(
      {
        release: () => {
          if (released) return;
          released = true;
          this.inFlightByClass[requestClass] -= 1;
          this.limit.sample(this.clock() - started, inFlightAtStart);
          this.startWaiting();
        },
      },
      started - waiter.arrived,
    );
  }

  /** Starts waiting requests while there is room: critical first, then standard; sheds those that waited too long. */
  private startWaiting(): void {
    const now = this.clock();
    for (const requestClass of REQUEST_CLASSES) {
      const queue = this.waiting[requestClass];
      while (queue.length > 0) {
        const head = queue[0]!;
        if (head.cancelled) {
          queue.shift();
          continue;
        }
        if (now - head.arrived >= this.options.maxWaitMs) {
          queue.shift();
          head.callbacks.shed(now - head.arrived);
          continue;
        }
        if (this.inFlight >= this.shareOf(requestClass)) break;
        queue.shift();
        this.start(head);
      }
    }
    this.armTimer();
  }

  /** One timer, for the oldest waiter's deadline: each queue is in arrival order. */
  private armTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const heads = REQUEST_CLASSES.map((requestClass) => this.waiting[requestClass][0]).filter((head): head is Waiter => head !== undefined);
    if (heads.length === 0) return;
    const oldest = Math.min(...heads.map((head) => head.arrived));
    this.timer = setTimeout(() => this.startWaiting(), Math.max(0, oldest + this.options.maxWaitMs - this.clock()));
    this.timer.unref();
  }
}
