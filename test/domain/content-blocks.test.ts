import { parseContentBlocks } from '../../src/domain/content-blocks';

describe('parseContentBlocks', () => {
  it('accepts every MCP block type, each block kept exactly as sent', () => {
    const blocks = [
      { type: 'text', text: 'more' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png', annotations: { audience: ['user'] } },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///tmp/a.txt', name: 'a.txt', _meta: { 'x/y': 1 } },
      { type: 'resource', resource: { uri: 'mem://n/1', text: 'note' } },
    ];
    expect(parseContentBlocks(JSON.stringify(blocks))).toEqual({ ok: true, blocks });
  });

  it('accepts an empty list', () => {
    expect(parseContentBlocks('[]')).toEqual({ ok: true, blocks: [] });
  });

  it.each([
    ['text that is not JSON', '[{"type":', 'content is not JSON'],
    ['an object instead of a list', '{"type":"text","text":"x"}', 'content is not a JSON array of content blocks'],
    ['a block that is not an object', '[{"type":"text","text":"x"},"image"]', 'content[1] is not an object'],
    ['a block without a type', '[{"text":"x"}]', 'content[0].type must be one of text, image, audio, resource_link, resource'],
    ['a type that is not a string', '[{"type":7}]', 'content[0].type must be one of text, image, audio, resource_link, resource'],
    ['an unknown type', '[{"type":"video","data":"AAAA"}]', 'content[0].type must be one of text, image, audio, resource_link, resource, not "video"'],
    ['a text block without text', '[{"type":"text"}]', 'content[0].text must be a string for type "text"'],
    ['an image without data', '[{"type":"text","text":"x"},{"type":"image","mimeType":"image/png"}]', 'content[1].data must be a string for type "image"'],
    ['audio without a mimeType', '[{"type":"audio","data":"AAAA"}]', 'content[0].mimeType must be a string for type "audio"'],
    ['a resource link without a name', '[{"type":"resource_link","uri":"file:///a"}]', 'content[0].name must be a string for type "resource_link"'],
    ['an embedded resource that is not an object', '[{"type":"resource","resource":"x"}]', 'content[0].resource must be an object'],
    ['an embedded resource without a uri', '[{"type":"resource","resource":{"text":"x"}}]', 'content[0].resource.uri must be a string'],
    [
      'an embedded resource without text or blob',
      '[{"type":"resource","resource":{"uri":"mem://a"}}]',
      'content[0].resource must hold `text` or `blob` as a string',
    ],
  ])('refuses %s, naming what is wrong', (_label, json, problem) => {
    expect(parseContentBlocks(json)).toEqual({ ok: false, problem });
  });

  it('quotes at most 40 characters of an unknown type', () => {
    const parsed = parseContentBlocks(JSON.stringify([{ type: 'v'.repeat(500) }]));
    expect(!parsed.ok && parsed.problem).toContain(`not "${'v'.repeat(40)}"`);
  });
});
