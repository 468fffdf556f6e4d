import type { ContentBlock } from '../src/content-blocks';
import { toResponse } from '../src/tool-response';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('toResponse (a handler answer on the wire)', () => {
  it('sends content blocks as the JSON array content_json, beside the required text', () => {
    const content: ContentBlock[] = [
      { type: 'image', data: PIXEL, mimeType: 'image/png', annotations: { audience: ['user'], priority: 0.5 } },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'text', text: 'second passage' },
      { type: 'resource_link', uri: 'file:///notes/1.md', name: '1.md', mimeType: 'text/markdown', size: 12 },
      { type: 'resource', resource: { uri: 'file:///notes/2.md', mimeType: 'text/markdown', text: '# two' } },
      { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAE=' }, _meta: { 'acme/origin': 'cache' } },
    ];
    const response = toResponse({ text: 'a picture and more', content });
    expect(response).toEqual({ text: 'a picture and more', structuredContentJson: '', contentJson: JSON.stringify(content), isError: false });
  });

  it('sends no content_json for none or an empty list, so older hosts see exactly what they did', () => {
    expect(toResponse({ text: 'plain' })).toMatchObject({ contentJson: '' });
    expect(toResponse({ text: 'plain', content: [] })).toMatchObject({ contentJson: '' });
    expect(toResponse('plain')).toMatchObject({ contentJson: '' });
  });

  it.each([
    ['content[0].mimeType must be a string', { type: 'image', data: PIXEL }],
    ['content[0].type must be one of text, image, audio, resource_link, resource, not "video"', { type: 'video', data: PIXEL }],
    ['content[0].type must be one of text, image, audio, resource_link, resource', { text: 'no type' }],
    ['content[0].name must be a string', { type: 'resource_link', uri: 'https://example.com/x' }],
    ['content[0].resource must hold `text` or `blob` as a string', { type: 'resource', resource: { uri: 'file:///x' } }],
    ['content[0].resource must be an object', { type: 'resource' }],
    ['content[0] is not an object', 'just text'],
  ])('refuses a malformed block, naming it: %s', (problem, block) => {
    expect(toResponse({ text: 'x', content: [block as unknown as ContentBlock] })).toEqual({
      problem: `the tool returned content the agent cannot read: ${problem}`,
    });
  });

  it('names the block at fault among good ones, and refuses content that is no list', () => {
    const good: ContentBlock = { type: 'text', text: 'ok' };
    expect(toResponse({ text: 'x', content: [good, good, { type: 'audio', mimeType: 'audio/wav' } as unknown as ContentBlock] })).toEqual({
      problem: 'the tool returned content the agent cannot read: content[2].data must be a string',
    });
    expect(toResponse({ text: 'x', content: good as unknown as ContentBlock[] })).toEqual({
      problem: 'the tool returned content the agent cannot read: content is not an array of content blocks',
    });
  });
});
