import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import { makeGenericClientConstructor } from '@grpc/grpc-js';
import type {
  CallOptions,
  ChannelCredentials,
  Client,
  ClientOptions,
  ClientUnaryCall,
  Metadata,
  ServiceDefinition,
  ServiceError,
} from '@grpc/grpc-js';

/**
 * `grpc.health.v1.Health/Check`, written out by hand (two one-field messages). The npm package
 * `grpc-health-check` loads its `.proto` from disk at run time through `__dirname`, which
 * breaks once a plugin is bundled into one file; this definition bundles cleanly and serves
 * both the host (client) and the SDK (server).
 */
export const HEALTH_STATUS = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;

export interface HealthCheckRequest {
  service: string;
}

export interface HealthCheckResponse {
  status: number;
}

function encodeRequest(value: HealthCheckRequest): Buffer {
  const writer = new BinaryWriter();
  if (value.service !== '') writer.uint32(10).string(value.service);
  return Buffer.from(writer.finish());
}

function decodeRequest(bytes: Buffer): HealthCheckRequest {
  const reader = new BinaryReader(bytes);
  const message: HealthCheckRequest = { service: '' };
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag === 10) message.service = reader.string();
    else reader.skip(tag & 7);
  }
  return message;
}

function encodeResponse(value: HealthCheckResponse): Buffer {
  const writer = new BinaryWriter();
  if (value.status !== 0) writer.uint32(8).int32(value.status);
  return Buffer.from(writer.finish());
}

function decodeResponse(bytes: Buffer): HealthCheckResponse {
  const reader = new BinaryReader(bytes);
  const message: HealthCheckResponse = { status: 0 };
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag === 8) message.status = reader.int32();
    else reader.skip(tag & 7);
  }
  return message;
}

export const HealthService = {
  check: {
    path: '/grpc.health.v1.Health/Check',
    requestStream: false,
    responseStream: false,
    requestSerialize: encodeRequest,
    requestDeserialize: decodeRequest,
    responseSerialize: encodeResponse,
    responseDeserialize: decodeResponse,
  },
} satisfies ServiceDefinition;

export type HealthClient = Client & {
  check(
    request: HealthCheckRequest,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, response?: HealthCheckResponse) => void,
  ): ClientUnaryCall;
};

export const HealthClient = makeGenericClientConstructor(HealthService, 'grpc.health.v1.Health') as unknown as {
  new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>): HealthClient;
};
