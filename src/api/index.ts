/**
 * The operator HTTP API's answers, declared once (docs/http-api.md): the backend's http
 * adapter sends exactly these, and the CLI and the console read them. Types only, importing
 * nothing but the domain's own types, so the console (a browser program) and every layer can
 * use them.
 */
export type * from './approvals';
export type * from './backend';
export type * from './errors';
export type * from './domain-shapes';
export type * from './live-channel';
export type * from './plugins';
export type * from './routes';
export type * from './scopes';
export type * from './sessions';
