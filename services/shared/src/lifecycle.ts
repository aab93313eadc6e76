/**
 * Process life: readiness, and a shutdown that drains instead of dropping.
 * On SIGTERM the process fails readiness first (so load balancers stop
 * sending), then runs the registered closers in reverse order of
 * registration (stop accepting, finish in-flight work, close pools), and
 * exits on a timer shorter than Kubernetes' grace period if anything hangs.
 */
import type { Logger } from 'pino';

type Closer = { name: string; close: () => Promise<void> | void };
type ReadinessCheck = { name: string; check: () => Promise<void> };

export class Lifecycle {
  private readonly closers: Closer[] = [];
  private readonly checks: ReadinessCheck[] = [];
  private started = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  /**
   * Closers run last-registered first: register pools before servers.
   * `last` puts one at the very end (the ops port, so readiness keeps
   * answering 503 while the rest drains).
   */
  onShutdown(name: string, close: Closer['close'], options: { last?: boolean } = {}): void {
    if (options.last) this.closers.unshift({ name, close });
    else this.closers.push({ name, close });
  }

  addReadinessCheck(name: string, check: ReadinessCheck['check']): void {
    this.checks.push({ name, check });
  }

  markStarted(): void {
    this.started = true;
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Ready when started, not stopping, and every dependency answers. */
  async readiness(): Promise<{ ready: boolean; failing: string[] }> {
    if (!this.started || this.stopping) return { ready: false, failing: ['lifecycle'] };
    const results = await Promise.allSettled(this.checks.map((entry) => entry.check()));
    const failing = results.flatMap((result, index) => (result.status === 'rejected' ? [this.checks[index]!.name] : []));
    return { ready: failing.length === 0, failing };
  }

  shutdown(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      this.logger.info({ reason }, 'shutting down: draining in-flight work');
      for (const closer of [...this.closers].reverse()) {
        try {
          await closer.close();
        } catch (error) {
          this.logger.error({ err: error, closer: closer.name }, 'error while closing');
        }
      }
      this.logger.info('shutdown complete');
    })();
    return this.stopping;
  }

  /** Wires SIGTERM/SIGINT to a drain bounded by `timeoutMs`. */
  handleSignals(timeoutMs: number): void {
    const onSignal = (signal: NodeJS.Signals) => {
      const timer = setTimeout(() => {
        this.logger.error({ timeoutMs }, 'shutdown timed out; exiting');
        process.exit(1);
      }, timeoutMs);
      timer.unref();
      void this.shutdown(signal).then(() => process.exit(0));
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
}
