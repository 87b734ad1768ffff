import { UnrecoverableError } from '../errors.js';
import { defineJob, type JobDefinition } from '../jobs/define-job.js';
import type { Queue } from '../queue/queue.js';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The demo's pretend database: orders, and the stock they hold. */
export interface Order {
  id: number;
  createdAt: number;
  items: number;
  status: 'unpaid' | 'paid' | 'closed';
  closeJobId?: string;
  /** What the pretend bank will say: paid after this many polls, or never. */
  paysAfterPolls: number | undefined;
  polls: number;
}

export interface ShopEvents {
  event(text: string, kind?: 'info' | 'good' | 'warn' | 'bad'): void;
  lateness(ms: number): void;
}

export interface ShopCounters {
  created: number;
  paid: number;
  closed: number;
  stockReleased: number;
  gatewayErrors: number;
}

/**
 * The seeds' story (seed 000 §1, 002 §1): an order not paid within its window is closed and its
 * stock released; a payment check polls the bank, which is flaky, retrying with backoff; once
 * paid, the order's close job is cancelled. Windows are seconds here, not 30 minutes.
 */
export class Shop {
  readonly orders = new Map<number, Order>();
  readonly counters: ShopCounters = { created: 0, paid: 0, closed: 0, stockReleased: 0, gatewayErrors: 0 };
  private nextId = 1001;

  constructor(
    private readonly queue: Queue,
    private readonly on: ShopEvents,
    private readonly random: () => number = Math.random,
  ) {}

  /** A customer places an order: its close job is due 2–10 s later; a payment check starts in 1 s. */
  async placeOrder(): Promise<void> {
    const order: Order = {
      id: this.nextId++,
      createdAt: Date.now(),
      items: 1 + Math.floor(this.random() * 4),
      status: 'unpaid',
      // Four in ten customers pay, after a few polls; the rest never do.
      paysAfterPolls: this.random() < 0.4 ? 1 + Math.floor(this.random() * 3) : undefined,
      polls: 0,
    };
    this.orders.set(order.id, order);
    this.counters.created++;
    const windowMs = 2_000 + Math.floor(this.random() * 8_000);
    order.closeJobId = await this.queue.add(
      'order.close',
      { orderId: order.id },
      { delay: windowMs, key: `close:${order.id}` },
    );
    await this.queue.add('payment.check', { orderId: order.id }, { delay: 1_000, key: `pay:${order.id}` });
    this.on.event(
      `order ${order.id} placed: ${plural(order.items, 'item')} held, closes in ${(windowMs / 1000).toFixed(1)} s unless paid`,
    );
  }

  private order(id: unknown): Order {
    const order = this.orders.get(id as number);
    if (!order) throw new UnrecoverableError(`order ${String(id)} does not exist`);
    return order;
  }

  /** The three job types, as a `dueq start --jobs` directory would define them. */
  readonly jobs: JobDefinition[] = [
    defineJob<{ orderId: number }>({
      type: 'order.close',
      handle: async (job) => {
        // Redis runs on this machine: its clock and the wall clock agree, to the sub-millisecond.
        this.on.lateness(performance.timeOrigin + performance.now() - job.dueAt);
        const order = this.order(job.data.orderId);
        if (order.status !== 'unpaid') return 'already paid';
        order.status = 'closed';
        this.counters.closed++;
        await this.queue.add('stock.release', { orderId: order.id, items: order.items });
        this.on.event(
          `order ${order.id} closed: unpaid after ${((Date.now() - order.createdAt) / 1000).toFixed(1)} s`,
          'warn',
        );
        return 'closed';
      },
    }),
    defineJob<{ orderId: number; items: number }>({
      type: 'stock.release',
      handle: async (job) => {
        await new Promise((r) => setTimeout(r, 20 + this.random() * 60));
        this.counters.stockReleased += job.data.items;
        this.on.event(
          `stock released: ${plural(job.data.items, 'item')} of order ${job.data.orderId} back on the shelf`,
        );
      },
    }),
    defineJob<{ orderId: number }>({
      type: 'payment.check',
      // The bank's gateway is flaky: a few attempts, backing off from 300 ms.
      maxAttempts: 4,
      backoff: { type: 'exponential', delay: 300 },
      handle: async (job) => {
        const order = this.order(job.data.orderId);
        if (order.status !== 'unpaid') return order.status;
        // The gateway times out now and then: a failed attempt, retried after the backoff.
        if (this.random() < 0.3) {
          this.counters.gatewayErrors++;
          throw new Error(`payment gateway timed out checking order ${order.id}`);
        }
        order.polls++;
        if (order.paysAfterPolls === undefined || order.polls < order.paysAfterPolls) {
          // Not paid yet: look again later, without counting a failure (seed 000 §6).
          return job.retryIn(800);
        }
        order.status = 'paid';
        this.counters.paid++;
        if (order.closeJobId) await this.queue.cancel(order.closeJobId);
        this.on.event(`order ${order.id} paid: its close job is cancelled`, 'good');
        return 'paid';
      },
    }),
  ];
}
