import type { Container } from 'inversify';
import { CatalogService } from '../application/catalog/catalog-service';
import { PluginRecords } from '../application/ports/plugin-records';
import { DeleteProfile } from '../application/scopes/delete-profile';
import { GetCatalogView } from '../application/scopes/get-catalog-view';
import { GetPluginScope } from '../application/scopes/get-plugin-scope';
import { GetProfile } from '../application/scopes/get-profile';
import { ListProfiles } from '../application/scopes/list-profiles';
import { SetPluginScope } from '../application/scopes/set-plugin-scope';
import { SetProfile } from '../application/scopes/set-profile';
import { bindClass, loggerOf } from './bind-class';

/** The use cases that read and change scopes and profiles (docs/catalog-and-sessions.md, "Scopes"), each a catalog commit. */
export function bindScopes(c: Container): void {
  const log = loggerOf('catalog');
  bindClass(c, GetPluginScope, [PluginRecords]);
  bindClass(c, SetPluginScope, [PluginRecords, CatalogService, log]);
  bindClass(c, ListProfiles, [PluginRecords]);
  bindClass(c, GetProfile, [PluginRecords]);
  bindClass(c, SetProfile, [PluginRecords, CatalogService, log]);
  bindClass(c, DeleteProfile, [CatalogService, log]);
  bindClass(c, GetCatalogView, [CatalogService]);
}
