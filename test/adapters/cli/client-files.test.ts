import { clientFile, clientFragment, ClientFileError, mergeClientFile, type ServerEntry } from '../../../src/adapters/cli/client-files';

const stdio: ServerEntry = {
  transport: 'stdio',
  command: '/usr/bin/node',
  args: ['/opt/toolport/bin/toolport', 'agentctl', '--stdio'],
  env: { TOOLPORT_SESSION_TOKEN: 't' },
};
const http: ServerEntry = { transport: 'http', url: 'http://127.0.0.1:4000/mcp', token: 'm' };

describe('MCP client files', () => {
  it('knows where each client keeps its user file on Linux and macOS, and none elsewhere', () => {
    const linux = { platform: 'linux' as const, home: '/home/ada' };
    const mac = { platform: 'darwin' as const, home: '/Users/ada' };
    expect(clientFile('claude-desktop', linux)).toBe('/home/ada/.config/Claude/claude_desktop_config.json');
    expect(clientFile('claude-desktop', { ...linux, xdgConfigHome: '/xdg' })).toBe('/xdg/Claude/claude_desktop_config.json');
    expect(clientFile('claude-desktop', mac)).toBe('/Users/ada/Library/Application Support/Claude/claude_desktop_config.json');
    expect(clientFile('cursor', linux)).toBe('/home/ada/.cursor/mcp.json');
    expect(clientFile('cursor', mac)).toBe('/Users/ada/.cursor/mcp.json');
    expect(clientFile('vscode', linux)).toBe('/home/ada/.config/Code/User/mcp.json');
    expect(clientFile('vscode', mac)).toBe('/Users/ada/Library/Application Support/Code/User/mcp.json');
    expect(clientFile('claude-code', linux)).toBe('/home/ada/.claude.json');
    expect(clientFile('claude-code', { platform: 'win32', home: 'C:\\Users\\ada' })).toBeUndefined();
  });

  it('writes each client’s shape: mcpServers or servers, with or without type', () => {
    expect(clientFragment('claude-desktop', 'toolport', stdio)).toEqual({
      mcpServers: { toolport: { command: stdio.command, args: stdio.args, env: stdio.env } },
    });
    expect(clientFragment('cursor', 'toolport', http)).toEqual({ mcpServers: { toolport: { url: http.url, headers: { Authorization: 'Bearer m' } } } });
    expect(clientFragment('vscode', 'tp', stdio)).toEqual({ servers: { tp: { type: 'stdio', command: stdio.command, args: stdio.args, env: stdio.env } } });
    expect(clientFragment('claude-code', 'toolport', http)).toEqual({
      mcpServers: { toolport: { type: 'http', url: http.url, headers: { Authorization: 'Bearer m' } } },
    });
  });

  it('merges into a file keeping everything else, replacing only the entry of that name', () => {
    const text = JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'x' }, toolport: { command: 'stale' } } });
    const merged = mergeClientFile('cursor', text, 'toolport', stdio, '/f');
    expect(merged.replaced).toBe(true);
    expect(JSON.parse(merged.text)).toEqual({
      theme: 'dark',
      mcpServers: { other: { command: 'x' }, toolport: { command: stdio.command, args: stdio.args, env: stdio.env } },
    });
    expect(mergeClientFile('vscode', null, 'toolport', stdio, '/f').replaced).toBe(false);
    expect(JSON.parse(mergeClientFile('vscode', '  \n', 'toolport', stdio, '/f').text)).toEqual({ servers: { toolport: expect.any(Object) } });
  });

  it('refuses a file that is not a JSON object, or whose servers are not one, naming the file', () => {
    expect(() => mergeClientFile('cursor', '{ "mcpServers": {}, }', 'toolport', stdio, '/home/ada/.cursor/mcp.json')).toThrow(ClientFileError);
    expect(() => mergeClientFile('cursor', '{ "mcpServers": {}, }', 'toolport', stdio, '/home/ada/.cursor/mcp.json')).toThrow(
      /^\/home\/ada\/\.cursor\/mcp\.json is not valid JSON/,
    );
    expect(() => mergeClientFile('cursor', '[]', 'toolport', stdio, '/f')).toThrow('/f does not hold a JSON object');
    expect(() => mergeClientFile('vscode', '{"servers": "x"}', 'toolport', stdio, '/f')).toThrow('/f: "servers" is not an object');
  });
});
