import { useEffect, useState } from 'preact/hooks';
import { ApiError, callApi } from '../api';
import type { JsonObject, JsonValue, PluginConfig, PluginConfigSchema, Violation } from '../../api';
import { html } from '../html';
import { ApiErrorView } from './api-error-view';

type Property = { type?: string | string[]; enum?: unknown[]; description?: string; title?: string };

/**
 * A plugin's configuration as a form made from its `config_schema`: a field per property
 * (a secret as a password field), saved whole with PUT; a refusal is shown beside each field
 * it names and in full below. A field left as it came is sent back as the API gave it, so a
 * secret the API showed masked keeps its stored value without the console knowing the mask.
 */
export function ConfigForm({ token, pluginId, version }: { token: string; pluginId: string; version: string }) {
  const [schema, setSchema] = useState<PluginConfigSchema | null>(null);
  const [received, setReceived] = useState<JsonObject>({});
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let current = true;
    Promise.all([
      callApi<PluginConfigSchema>(token, 'GET', `/api/v1/plugins/${encodeURIComponent(pluginId)}/config/schema`),
      callApi<PluginConfig>(token, 'GET', `/api/v1/plugins/${encodeURIComponent(pluginId)}/config`),
    ]).then(
      ([view, config]) => {
        if (!current) return;
        setSchema(view);
        setReceived(config.values);
        setValues(Object.fromEntries(Object.entries(config.values).map(([key, value]) => [key, fieldValue(value)])));
      },
      (caught) => current && setError(caught),
    );
    return () => {
      current = false;
    };
  }, [token, pluginId, version]);

  if (!schema) return html`<p>${error ? html`<${ApiErrorView} error=${error} />` : 'Loading the configuration…'}</p>`;
  const properties = (schema.schema?.properties ?? {}) as Record<string, Property>;
  const keys = Object.keys(properties);
  if (keys.length === 0) return html`<p>This plugin declares no configuration.</p>`;
  const required = new Set((schema.schema?.required as string[] | undefined) ?? []);
  const violations = error instanceof ApiError && Array.isArray(error.details) ? (error.details as Violation[]) : [];

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSaved('');
    try {
      await callApi(token, 'PUT', `/api/v1/plugins/${encodeURIComponent(pluginId)}/config`, { json: { values: toValues(values, properties, received) } });
      setSaved('Saved: the plugin runs with this configuration.');
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="config" aria-label=${`Configuration of ${pluginId}`} onSubmit=${submit}>
    ${keys.map((key) => {
      const problem = violations.filter((v) => v.path === key || v.path.startsWith(`${key}[`) || v.path.startsWith(`${key}.`));
      return html`<${Field}
        key=${key}
        name=${key}
        property=${properties[key]}
        secret=${schema.secrets.includes(key)}
        required=${required.has(key)}
        value=${values[key]}
        problems=${problem.map((v) => v.message)}
        change=${(value: string | boolean) => setValues({ ...values, [key]: value })}
      />`;
    })}
    <div class="form-actions">
      <button type="submit" disabled=${busy} aria-busy=${busy ? 'true' : 'false'}>${busy ? 'Saving…' : 'Save configuration'}</button>
      ${saved && html`<span role="status" class="ok">${saved}</span>`}
    </div>
    <${ApiErrorView} error=${error} />
  </form>`;
}

interface FieldProps {
  name: string;
  property: Property;
  secret: boolean;
  required: boolean;
  value: string | boolean | undefined;
  problems: string[];
  change: (value: string | boolean) => void;
}

function Field({ name, property, secret, required, value, problems, change }: FieldProps) {
  const id = `config-${name}`;
  const type = Array.isArray(property.type) ? property.type[0] : property.type;
  const described = problems.length > 0 ? `${id}-problem` : property.description ? `${id}-help` : undefined;
  const text = (e: Event) => change((e.target as HTMLInputElement).value);
  let input;
  if (type === 'boolean') {
    input = html`<input
      id=${id}
      type="checkbox"
      checked=${value === true}
      aria-describedby=${described}
      onChange=${(e: Event) => change((e.target as HTMLInputElement).checked)}
    />`;
  } else if (property.enum) {
    input = html`<select id=${id} value=${String(value ?? '')} aria-describedby=${described} onChange=${text}>
      <option value="">(none)</option>
      ${property.enum.map((option) => html`<option value=${String(option)}>${String(option)}</option>`)}
    </select>`;
  } else if (type === 'object' || type === 'array') {
    input = html`<textarea id=${id} rows="3" aria-describedby=${described} onInput=${text}>${String(value ?? '')}</textarea>`;
  } else {
    const kind = secret ? 'password' : type === 'integer' || type === 'number' ? 'number' : 'text';
    input = html`<input
      id=${id}
      type=${kind}
      value=${String(value ?? '')}
      autocomplete=${secret ? 'new-password' : 'off'}
      aria-describedby=${described}
      onInput=${text}
    />`;
  }
  return html`<div class=${problems.length > 0 ? 'field invalid' : 'field'}>
    <label for=${id}>${property.title ?? name}${required ? ' (required)' : ''}${secret ? ' (secret)' : ''}</label>
    ${input} ${property.description && html`<small id=${`${id}-help`}>${property.description}</small>`}
    ${problems.length > 0 && html`<small id=${`${id}-problem`} class="problem">${problems.join('; ')}</small>`}
  </div>`;
}

/** What a field holds for a value the API gave. */
function fieldValue(value: JsonValue): string | boolean {
  return typeof value === 'boolean' || typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The form back as JSON values: a field left as it came is the value the API gave; any other
 * is read as the type its property declares; empty fields are left out.
 */
function toValues(values: Record<string, string | boolean>, properties: Record<string, Property>, received: JsonObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(values)) {
    if (raw === '' || raw === undefined) continue;
    const type = Array.isArray(properties[key]?.type) ? (properties[key].type as string[])[0] : properties[key]?.type;
    if (Object.hasOwn(received, key) && fieldValue(received[key]!) === raw) out[key] = received[key];
    else if (typeof raw === 'boolean') out[key] = raw;
    else if (type === 'integer' || type === 'number') out[key] = Number(raw);
    else if (type === 'object' || type === 'array') out[key] = parseOrText(raw);
    else out[key] = raw;
  }
  return out;
}

/** JSON when it parses; otherwise the text, so the API names the key that is wrong. */
function parseOrText(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
