import { pc } from '../cli/colors.js';

export interface Snapshot {
  elapsedMs: number;
  durationMs: number;
  phase: 'ordering' | 'draining' | 'done';
  redis: string;
  counts: { delayed: number; ready: number; active: number; dead: number; done: number };
  orders: { created: number; paid: number; closed: number; open: number };
  retried: number;
  stockReleased: number;
  lateness: { p50: number; p99: number; max: number } | undefined;
}

const KIND = { info: (s: string) => s, good: pc.green, warn: pc.yellow, bad: pc.red } as const;
const RECENT = 8;

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

/**
 * The demo's terminal view: in a terminal, a panel redrawn in place with the latest events under
 * it; piped, one plain line per event and a status line now and then.
 */
export class DemoView {
  private readonly recent: string[] = [];
  private drawn = 0;
  private lastPlainStatus = 0;

  constructor(private readonly tty: boolean) {}

  event(text: string, kind: keyof typeof KIND = 'info'): void {
    const time = new Date().toISOString().slice(11, 23);
    const line = `${pc.dim(time)} ${KIND[kind](text)}`;
    if (this.tty) {
      this.recent.push(line);
      if (this.recent.length > RECENT) this.recent.shift();
    } else {
      process.stdout.write(`${time} ${text}\n`);
    }
  }

  private panel(s: Snapshot): string[] {
    const left = Math.max(0, s.durationMs - s.elapsedMs);
    const phase =
      s.phase === 'ordering'
        ? `taking orders, ${(left / 1000).toFixed(0)} s left`
        : s.phase === 'draining'
          ? 'no new orders; waiting for the last jobs'
          : 'done';
    const late = s.lateness
      ? `order.close ran ${ms(s.lateness.p50)} after its due time (p50), ${ms(s.lateness.p99)} (p99), ${ms(s.lateness.max)} at most`
      : 'no order closed yet';
    return [
      `${pc.bold('dueq demo')}  ${pc.dim(`${s.redis} · ${phase}`)}`,
      `orders  ${s.orders.created} placed · ${pc.green(`${s.orders.paid} paid`)} · ${pc.yellow(`${s.orders.closed} closed unpaid`)} · ${s.orders.open} open · ${s.stockReleased} items back in stock`,
      `jobs    ${s.counts.delayed} delayed · ${s.counts.ready} ready · ${s.counts.active} running · ${s.counts.done} done · ${s.retried} retried · ${s.counts.dead > 0 ? pc.red(`${s.counts.dead} dead`) : '0 dead'}`,
      `timing  ${late}`,
    ];
  }

  render(s: Snapshot): void {
    if (!this.tty) {
      if (s.elapsedMs - this.lastPlainStatus >= 5_000 || s.phase === 'done') {
        this.lastPlainStatus = s.elapsedMs;
        process.stdout.write(`${this.panel(s).slice(1).join(' | ')}\n`);
      }
      return;
    }
    const lines = [...this.panel(s), pc.dim('latest'), ...this.recent];
    const erase = this.drawn > 0 ? `\x1b[${this.drawn}A\x1b[0J` : '';
    process.stdout.write(`${erase}${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }

  summary(s: Snapshot, deadReasons: string[]): void {
    const lines = [
      '',
      pc.bold('Summary'),
      `  ${s.orders.created} orders: ${s.orders.paid} paid (their close jobs cancelled), ${s.orders.closed} closed unpaid, ${s.orders.open} still open`,
      `  ${s.stockReleased} items released back to stock`,
      `  ${s.counts.done} jobs completed, ${s.retried} retries after gateway errors, ${s.counts.dead} in the dead-letter queue`,
      s.lateness
        ? `  order.close lateness (start − due): p50 ${ms(s.lateness.p50)}, p99 ${ms(s.lateness.p99)}, max ${ms(s.lateness.max)}`
        : '  no order was closed',
      ...deadReasons.map((r) => `  ${pc.red('dead:')} ${r}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
