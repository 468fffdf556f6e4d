/** go-plugin's handshake versions this SDK and its host speak: `1|1|tcp|…|grpc|` (or `unix`). */
export const CORE_PROTOCOL_VERSION = '1';
export const APP_PROTOCOL_VERSION = '1';

/** The magic cookie the host sets; a plugin started without it refuses to run. */
export const PLUGIN_COOKIE_KEY = 'TOOLPORT_PLUGIN';
export const PLUGIN_COOKIE_VALUE = 'toolport-plugin-v1';
