/**
 * A background loop: runs `tick` now, then again after the delay `tick` returns (or the default
 * interval), until stopped. One tick at a time; `poke()` runs the next one at once; `stop()`
 * waits for a tick in progress. Every periodic task (promote, reclaim, heartbeat, retention)
 * is one of these, composed by the Worker or the Scheduler.
 */
export class Loop {
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private current: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly tick: () => Promise<number | undefined>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Starts the loop; the first tick runs after `firstDelayMs` (at once by default). */
  start(firstDelayMs = 0): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(firstDelayMs);
  }

  /** Runs the next tick now instead of at its planned time. */
  poke(): void {
    if (this.stopped || this.current) return;
    this.schedule(0);
  }

  get running(): boolean {
    return !this.stopped;
  }

  private schedule(delayMs: number): void {
    this.cancel();
    // "Again at once" must not wait a millisecond: setTimeout(0) does, which would cap a promoter
    // moving full batches at a thousand calls a second.
    if (delayMs <= 0) this.immediate = setImmediate(() => void this.run());
    else this.timer = setTimeout(() => void this.run(), delayMs);
  }

  private cancel(): void {
    clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.immediate = undefined;
    let next = this.intervalMs;
    this.current = (async () => {
      try {
        const wanted = await this.tick();
        if (typeof wanted === 'number') next = wanted;
      } catch (error) {
        this.onError(error);
      }
    })();
    await this.current;
    this.current = undefined;
    if (!this.stopped) this.schedule(Math.max(0, next));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel();
    await this.current;
  }
}
