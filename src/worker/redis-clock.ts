/**
 * Redis time, estimated locally between round trips. Every claim returns Redis TIME; its offset
 * from the local monotonic clock (performance.now, which no NTP step or faked Date.now moves)
 * lets a worker set a timer for the next due job. Redis stays the only truth: the timer only says
 * when to ask, and the claim script decides with TIME what is due (DESIGN §6).
 */
export class RedisClock {
  private offsetMs = 0;
  private rttMs = Number.POSITIVE_INFINITY;
  private sampledAt = Number.NEGATIVE_INFINITY;
  private known = false;

  /**
   * One sample: Redis time (µs) read by a command sent at `sentAt` and answered at `receivedAt`
   * (both performance.now()). Redis read its clock somewhere in between; the middle is the best
   * guess, off by at most half the round trip, so short round trips are trusted more.
   */
  sample(redisTimeUs: number, sentAt: number, receivedAt: number): void {
    const rtt = receivedAt - sentAt;
    if (rtt <= this.rttMs * 1.5 + 0.2 || receivedAt - this.sampledAt > 2_000) {
      this.offsetMs = redisTimeUs / 1_000 - (sentAt + receivedAt) / 2;
      this.rttMs = rtt;
      this.sampledAt = receivedAt;
      this.known = true;
    }
  }

  get synced(): boolean {
    return this.known;
  }

  /** Estimated Redis time, ms since the epoch. */
  now(): number {
    return performance.now() + this.offsetMs;
  }
}
