/**
 * MCP content blocks a tool may return beside its `text` (MCP's `ContentBlock`, as in the
 * 2025-06-18 and later schemas). The host passes them to the agent as they are, after the text
 * block, so they follow MCP's shapes exactly; binary data is base64 text.
 */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** Hints for the client about a block (all optional). */
export interface ContentAnnotations {
  /** Who the block is meant for: the person, the model, or both. */
  audience?: Array<'user' | 'assistant'>;
  /** How important the block is, from 0 (entirely optional) to 1 (effectively required). */
  priority?: number;
  /** When the content last changed, as an ISO 8601 time such as `2026-01-12T15:00:58Z`. */
  lastModified?: string;
}

/** Fields every block may carry. */
interface BlockExtras {
  annotations?: ContentAnnotations;
  /** Free-form metadata for the client, passed through as it is. */
  _meta?: Record<string, unknown>;
}

/** More text, as a block of its own (say, a second passage the client may show apart). */
export interface TextContent extends BlockExtras {
  type: 'text';
  text: string;
}

/** An image: `data` is the base64 of the file, `mimeType` its type (`image/png`, `image/jpeg`…). */
export interface ImageContent extends BlockExtras {
  type: 'image';
  data: string;
  mimeType: string;
}

/** A sound: `data` is the base64 of the file, `mimeType` its type (`audio/wav`, `audio/mpeg`…). */
export interface AudioContent extends BlockExtras {
  type: 'audio';
  data: string;
  mimeType: string;
}

/** A link to a resource the client may fetch or show, without its content. */
export interface ResourceLink extends BlockExtras {
  type: 'resource_link';
  uri: string;
  /** A short name, shown when there is no `title`. */
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** The size of the raw content in bytes, if known. */
  size?: number;
}

/** A resource with its content inside: text, or a base64 `blob`. */
export interface EmbeddedResource extends BlockExtras {
  type: 'resource';
  resource:
    | { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
    | { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };
}
