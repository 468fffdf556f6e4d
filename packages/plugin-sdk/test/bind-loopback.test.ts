import { portRange } from '../src/bind-loopback';

describe('portRange (PLUGIN_MIN_PORT..PLUGIN_MAX_PORT)', () => {
  it('is a range only when both variables are set', () => {
    expect(portRange({ PLUGIN_MIN_PORT: '10000', PLUGIN_MAX_PORT: '25000' })).toEqual({ min: 10000, max: 25000 });
    expect(portRange({ PLUGIN_MIN_PORT: '10000' })).toBeNull();
    expect(portRange({ PLUGIN_MAX_PORT: '25000', PLUGIN_MIN_PORT: '' })).toBeNull();
    expect(portRange({})).toBeNull();
  });

  it.each([
    [{ PLUGIN_MIN_PORT: 'ten', PLUGIN_MAX_PORT: '25000' }, 'PLUGIN_MIN_PORT must be a port number 1-65535, got "ten"'],
    [{ PLUGIN_MIN_PORT: '10000', PLUGIN_MAX_PORT: '70000' }, 'PLUGIN_MAX_PORT must be a port number 1-65535, got "70000"'],
    [{ PLUGIN_MIN_PORT: '0', PLUGIN_MAX_PORT: '25000' }, 'PLUGIN_MIN_PORT must be a port number 1-65535, got "0"'],
    [{ PLUGIN_MIN_PORT: '25000', PLUGIN_MAX_PORT: '10000' }, 'PLUGIN_MIN_PORT (25000) is greater than PLUGIN_MAX_PORT (10000)'],
  ])('refuses %p naming the variable', (env, message) => {
    expect(() => portRange(env)).toThrow(message);
  });
});
