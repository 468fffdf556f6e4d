import type { Container, MapToResolvedValueInjectOptions, ServiceIdentifier } from 'inversify';
import { Logger } from '../application/ports/logger';

/**
 * Binds `type` to the one instance its constructor makes from `tokens`, one token per
 * parameter in order: the compiler checks each token against the parameter it fills, so a
 * use case's wiring is one line naming the ports it takes (docs/architecture.md "The
 * composition root").
 */
export function bindClass<A extends unknown[], T>(c: Container, type: new (...args: A) => T, tokens: MapToResolvedValueInjectOptions<A>): void {
  c.bind<T>(type).toResolvedValue((...args: A) => new type(...args), tokens);
}

const componentLoggers = new Map<string, ServiceIdentifier<Logger>>();

/** The token of the backend logger's child for one component (`{ component: 'plugins' }`…), bound by `bindComponentLoggers`. */
export function loggerOf(component: string): ServiceIdentifier<Logger> {
  let token = componentLoggers.get(component);
  if (!token) componentLoggers.set(component, (token = Symbol(`Logger(${component})`)));
  return token;
}

/** Binds each component's logger, a child of the container's `Logger`. */
export function bindComponentLoggers(c: Container, components: readonly string[]): void {
  for (const component of components) c.bind(loggerOf(component)).toResolvedValue((logger: Logger) => logger.child({ component }), [Logger]);
}
