import { h } from 'preact';
import htm from 'htm';

/**
 * Preact's `h` behind tagged templates: markup without a JSX build step, and htm parses the
 * templates itself (no eval), so the strict Content-Security-Policy holds.
 */
export const html = htm.bind(h);
