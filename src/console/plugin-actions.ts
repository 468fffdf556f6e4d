import { callApi } from './api';

/** The lifecycle requests of one plugin (docs/http-api.md §4); the live channel brings the new record. */
export function pluginActions(token: string, pluginId: string) {
  const path = `/api/v1/plugins/${encodeURIComponent(pluginId)}`;
  return {
    enable: () => callApi(token, 'POST', `${path}/enable`),
    disable: () => callApi(token, 'POST', `${path}/disable`),
    uninstall: () => callApi(token, 'DELETE', path),
    upgrade: (file: File) => callApi(token, 'PUT', path, { file }),
    acceptTools: () => callApi(token, 'POST', `${path}/tools/accept`),
  };
}

export function installPackage(token: string, file: File) {
  return callApi(token, 'POST', '/api/v1/plugins', { file });
}
