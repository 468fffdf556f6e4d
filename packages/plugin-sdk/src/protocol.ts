/**
 * `@toolport/plugin-sdk/protocol`: the pieces of the plugin protocol both ends need, so the
 * Toolport host and the SDK share one definition (the handshake versions, the cookie,
 * go-plugin's AutoMTLS certificates). Not meant for plugin handlers; it may change with the host.
 */
export { APP_PROTOCOL_VERSION, CORE_PROTOCOL_VERSION, PLUGIN_COOKIE_KEY, PLUGIN_COOKIE_VALUE } from './protocol-constants';
export { certificatePem, createSelfSignedCertificate } from './tls/self-signed-certificate';
export type { SelfSignedCertificate } from './tls/self-signed-certificate';
export { ClientVerifyingServerCredentials } from './tls/client-verifying-server-credentials';
