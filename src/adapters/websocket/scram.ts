/** SCRAM-SHA-256 lives in src/adapters/shared: the link, the HTTP API's sign-in and the CLI share it. */
export * from '../shared/scram';
