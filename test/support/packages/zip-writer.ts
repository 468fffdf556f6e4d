import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of a hand-made zip: tests need entries no well-behaved zip tool writes. */
export interface ZipEntrySpec {
  name: string;
  data?: Buffer | string;
  /** The Unix mode, type bits included (0o100644 a file, 0o120777 a link, 0o040755 a folder). */
  mode?: number;
  /** Deflate (8, the default) or store (0); any other number is written as it is, with the data stored. */
  method?: number;
  /** Extra general-purpose flag bits (1: encrypted). */
  flags?: number;
  /** The unpacked size the headers claim, when it should lie. */
  declaredSize?: number;
}

/** A zip archive holding `entries` in order, made by "Unix" so that modes are read. */
export function makeZip(entries: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const spec of entries) {
    const name = Buffer.from(spec.name, 'utf8');
    const data = Buffer.isBuffer(spec.data) ? spec.data : Buffer.from(spec.data ?? '', 'utf8');
    const method = spec.name.endsWith('/') ? 0 : (spec.method ?? 8);
    const body = method === 8 ? deflateRawSync(data) : data;
    const flags = 0x800 | (spec.flags ?? 0);
    const size = spec.declaredSize ?? data.length;
    const crc = crc32(data);
    const mode = spec.mode ?? (spec.name.endsWith('/') ? 0o040755 : 0o100644);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
