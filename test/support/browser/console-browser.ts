import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

// The functions handed to page.evaluate run in the page, not here: these declarations name the
// page's globals for the compiler, which checks the tests without the DOM library.
interface FocusedElement {
  getAttribute(name: string): string | null;
  labels?: ArrayLike<{ textContent: string | null }> | null;
  textContent: string | null;
}
declare const window: { location: { hash: string } };
declare const sessionStorage: { getItem(key: string): string | null };
declare const document: {
  activeElement: FocusedElement | null;
  body: FocusedElement & { setAttribute(name: string, value: string): void };
  addEventListener(type: 'securitypolicyviolation', listener: (event: { violatedDirective: string; blockedURI: string }) => void): void;
};

/** Debian's chromium (`apt-get install chromium`); playwright-core downloads no browser of its own. */
export const CHROMIUM = '/usr/bin/chromium';

/** A page of the console and every problem it reported: console errors, uncaught errors, CSP violations. */
export interface ConsolePage {
  page: Page;
  problems: string[];
}

/**
 * One headless chromium for a test file (starting it costs about a second), a fresh context
 * (its own sessionStorage) per page, every context closed and the browser awaited at the end.
 */
export class ConsoleBrowser {
  private browser: Browser | undefined;
  private readonly contexts: BrowserContext[] = [];

  constructor(private readonly baseUrl: () => string) {}

  async start(): Promise<void> {
    // Root needs --no-sandbox; nothing else differs from an operator's chromium.
    this.browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }

  /** A new page (in a new context) watching for problems, opened at `path` under the backend's URL. */
  async open(path = '/console/'): Promise<ConsolePage> {
    if (!this.browser) throw new Error('start() the browser first');
    const context = await this.browser.newContext({ viewport: { width: 1280, height: 800 } });
    this.contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
    });
    await page.goto(new URL(path, this.baseUrl()).toString());
    return { page, problems };
  }

  async close(): Promise<void> {
    for (const context of this.contexts.splice(0)) await context.close().catch(() => undefined);
    await this.browser?.close();
    this.browser = undefined;
  }
}

/** Moves an open console to another page by its address's fragment, as a link would. */
export async function goTo(page: Page, hash: string): Promise<void> {
  await page.evaluate((to) => {
    window.location.hash = to;
  }, hash);
}

/** What the console keeps for its tab across a reload (its sign-in's credential), or null when signed out. */
export function storedToken(page: Page): Promise<string | null> {
  return page.evaluate(() => sessionStorage.getItem('toolport.console-credential'));
}

/** The accessible name of the focused element, roughly as a screen reader says it: '' for none. */
export function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const active = document.activeElement;
    if (!active || active === document.body) return '';
    return active.getAttribute('aria-label') ?? active.labels?.[0]?.textContent?.trim() ?? active.textContent?.trim() ?? '';
  });
}

/** Presses `key` until the element named `until` has the focus (40 presses at most); answers each name passed. */
export async function walkFocus(page: Page, key: string, until: string): Promise<string[]> {
  const names: string[] = [];
  for (let step = 0; step < 40 && names.at(-1) !== until; step++) {
    await page.keyboard.press(key);
    names.push(await focusedName(page));
  }
  return names;
}

/** Sets an inline style on the page's body, which the console's policy refuses: a violation the watch must report. */
export async function tryInlineStyle(page: Page): Promise<void> {
  await page.evaluate(() => document.body.setAttribute('style', 'outline: 1px solid red'));
}
