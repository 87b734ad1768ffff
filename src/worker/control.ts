import type { Client } from '../redis/connection.js';

/**
 * Listens on the queue's control channel for cancel notices (`cancel:<id>`), on a connection of
 * its own (a subscribed connection can do nothing else). A notice missed during a reconnect is
 * caught by the heartbeat, which sees the job's cancel flag.
 */
export class ControlListener {
  constructor(
    private readonly subscriber: Client,
    private readonly channel: string,
    private readonly onCancel: (id: string) => void,
  ) {}

  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel && message.startsWith('cancel:')) this.onCancel(message.slice(7));
    });
    await this.subscriber.subscribe(this.channel);
  }
}
