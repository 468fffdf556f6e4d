import { manifestWarnings } from '../../src/domain/manifest-warnings';

const valid = {
  api_version: 1,
  id: 'acme.tools',
  version: '1.0.0',
  runtime: { type: 'binary', executables: { any: 'main.js' } },
  agent_tools: [{ name: 'run', description: 'Runs.', surfaces: ['kanban-task'], input_schema: { type: 'object' } }],
};

describe('manifestWarnings', () => {
  it('has nothing to say about a manifest of known fields only', () => {
    expect(manifestWarnings(valid)).toEqual([]);
  });

  it('names a misspelt agent_tools and what it probably meant (a manifest that would declare no tool)', () => {
    const { agent_tools: tools, ...rest } = valid;
    expect(manifestWarnings({ ...rest, agent_tool: tools })).toEqual([{ path: 'agent_tool', message: 'unknown field (did you mean agent_tools?)' }]);
  });

  it('looks into runtime, each tool and its annotations, and leaves schemas and capabilities alone', () => {
    const manifest = {
      ...valid,
      runtime: { ...valid.runtime, arg: ['-v'] },
      capabilities: { anything: true },
      agent_tools: [
        {
          ...valid.agent_tools[0],
          input_schema: { type: 'object', x_vendor: 1 },
          surface: ['office-task'],
          annotations: { read_only: true },
          colour: 'blue',
        },
      ],
    };
    expect(manifestWarnings(manifest)).toEqual([
      { path: 'runtime.arg', message: 'unknown field (did you mean args?)' },
      { path: 'agent_tools[0].surface', message: 'unknown field (did you mean surfaces?)' },
      { path: 'agent_tools[0].colour', message: 'unknown field' },
      { path: 'agent_tools[0].annotations.read_only', message: 'unknown field' },
    ]);
  });

  it.each([null, 'text', 3, []])('says nothing (and never throws) for a manifest that is %p', (value) => {
    expect(manifestWarnings(value)).toEqual([]);
  });
});
