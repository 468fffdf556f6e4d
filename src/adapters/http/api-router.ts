import type { Express, Request, Response } from 'express';
import type { ApiRoute, ApiRoutes } from '../../api';
import type { OnlyDeclared } from './undeclared-fields';

type Method = 'get' | 'post' | 'put' | 'delete';

/** A body `route` may answer: what src/api declares for it, with no field it does not declare. */
type Declared<R extends ApiRoute, Body> = Body & NoInfer<OnlyDeclared<Body, ApiRoutes[R]>>;

/** Sends one answer of `R`: `null` as a status with no body (204), anything else as JSON. */
export type Send<R extends ApiRoute> = <Body extends ApiRoutes[R]>(status: number, body: Declared<R, Body>) => void;

/**
 * The JSON routes of the operator API, registered by their src/api keys ("POST /api/v1/plugins"),
 * so what each one sends is held by the compiler to what src/api declares for it.
 */
export interface ApiRouter {
  /** Registers `handle` for `route`; a failure it throws goes to the error handler. */
  serve<R extends ApiRoute>(route: R, handle: (req: Request, send: Send<R>) => Promise<void> | void): void;
  /** A route answering 200 with what `produce` resolves with. */
  answer<R extends ApiRoute, Body extends ApiRoutes[R]>(route: R, produce: (req: Request) => Declared<R, Body> | Promise<Declared<R, Body>>): void;
}

export function apiRouter(app: Express): ApiRouter {
  const serve = (route: ApiRoute, handle: (req: Request, send: (status: number, body: unknown) => void) => Promise<void> | void): void => {
    const [method, path] = route.split(' ') as [Uppercase<Method>, string];
    // Express 5 hands a rejected promise of a handler to the error handler itself.
    app[method.toLowerCase() as Method](path, async (req: Request, res: Response) => {
      await handle(req, (status, body) => (body === null ? res.status(status).end() : res.status(status).json(body)));
    });
  };
  return {
    serve,
    answer: (route, produce) => serve(route, async (req, send) => send(200, await produce(req))),
  };
}
