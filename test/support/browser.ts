import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium, headless, driven by playwright-core (no browser download). The flags keep it
 * from reaching for the network at start (this machine's network is closed).
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
