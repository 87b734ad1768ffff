/**
 * When to start a worker process again after it crashed. A process that crashes soon after it
 * started is in a crash loop (a job that kills it, a bad deploy): each such crash doubles the
 * wait, up to a cap, so the loop costs little while the job's attempts run out (it then lands in
 * dead). A process that ran a while before crashing starts over from the shortest wait.
 */
export class RespawnPolicy {
  private streak = 0;

  constructor(
    private readonly minDelayMs = 500,
    private readonly maxDelayMs = 30_000,
    /** A process that lived this long was not in a crash loop. */
    private readonly stableAfterMs = 10_000,
  ) {}

  /** Records a crash after `uptimeMs` and returns how long to wait before the next start. */
  crashed(uptimeMs: number): { delayMs: number; streak: number } {
    this.streak = uptimeMs >= this.stableAfterMs ? 1 : this.streak + 1;
    const delayMs = Math.min(this.minDelayMs * 2 ** (this.streak - 1), this.maxDelayMs);
    return { delayMs, streak: this.streak };
  }
}
