/** What every benchmarked queue library offers the workloads: the same jobs, the same handler. */

export interface BenchJob {
  /** Index: each handler run records it, so every run checks that each job ran exactly once. */
  i: number;
  /** Wall-clock ms at which the job is due (Redis runs on this machine: one clock). */
  dueAt: number;
}

export interface Producer {
  /** The library's bulk add. */
  addBulk(jobs: readonly { data: BenchJob; delayMs: number }[]): Promise<void>;
  /** The library's single add. */
  add(data: BenchJob, delayMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface Consumer {
  close(): Promise<void>;
}

export interface System {
  /** Its name in SYSTEMS (and on the command line). */
  key: string;
  name: string;
  version: string;
  producer(url: string, queue: string): Promise<Producer>;
  /**
   * Starts consuming at once; `handle` runs first thing in every job's handler, with the time the
   * library itself says the job was due (for lateness: each library is held to its own promise).
   */
  consumer(
    url: string,
    queue: string,
    concurrency: number,
    handle: (data: BenchJob, dueAt: number) => void,
  ): Promise<Consumer>;
}
