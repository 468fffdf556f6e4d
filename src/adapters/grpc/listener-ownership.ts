import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { isIP } from 'node:net';
import { endianness } from 'node:os';
import type { PluginEndpoint } from './handshake';
import { descendantsOf, listProcesses } from './process-tree';

const TCP_LISTEN = '0A';
/** __SO_ACCEPTCON in /proc/net/unix's Flags column: the socket listens. */
const UNIX_ACCEPTING = 0x10000;

/**
 * Why the handshake's address is not served by the plugin itself, or null when a process of
 * its process group `pgid` holds the listening socket (docs/plugin-protocol.md §4: a plugin cannot answer for
 * another process). Linux only: the listening sockets come from /proc/net/{tcp,tcp6,unix} and
 * their owners from the group members' /proc/<pid>/fd. Without /proc the check is skipped.
 */
export function listenerOwnershipProblem(endpoint: PluginEndpoint, pgid: number): string | null {
  if (!existsSync('/proc/net/unix')) return null;
  const members = listProcesses()
    .filter((member) => member.pgrp === pgid)
    .map((member) => member.pid);
  return ownershipProblem(endpoint, members, ['/proc/net/unix'], "the plugin's process group");
}

/**
 * The same check for a sandboxed plugin, whose processes are the sandbox's (`root`, the
 * bubblewrap process the host started, and its descendants) in namespaces of their own: a
 * `unix` address is looked up in each member's own network namespace
 * (/proc/<pid>/net/unix), a `tcp` one only in the host's.
 */
export function sandboxListenerProblem(endpoint: PluginEndpoint, root: number): string | null {
  if (!existsSync('/proc/net/unix')) return null;
  const members = [root, ...descendantsOf(root).map((found) => found.pid)];
  return ownershipProblem(
    endpoint,
    members,
    members.map((pid) => `/proc/${pid}/net/unix`),
    "the plugin's sandbox",
  );
}

function ownershipProblem(endpoint: PluginEndpoint, members: number[], unixTables: string[], owner: string): string | null {
  const where = `${endpoint.network} ${endpoint.address}`;
  const inodes = endpoint.network === 'unix' ? unixListeners(endpoint.address, unixTables) : tcpListeners(endpoint.address);
  if (inodes === null) return `the handshake address ${where} is not an IP address and port this host can check`;
  if (inodes.size === 0) return `nothing listens on the handshake address ${where}`;
  for (const pid of members) if (holdsSocket(pid, inodes)) return null;
  return `the handshake address ${where} is listened on by a process outside ${owner}`;
}

function holdsSocket(pid: number, inodes: Set<string>): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith('socket:[') && inodes.has(target.slice(8, -1))) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

function unixListeners(path: string, tables: string[]): Set<string> {
  const inodes = new Set<string>();
  for (const line of [...new Set(tables)].flatMap(readLines)) {
    // Num RefCount Protocol Flags Type St Inode Path
    const columns = line.trim().split(/\s+/);
    if (columns.length < 8 || columns.slice(7).join(' ') !== path) continue;
    if (Number.parseInt(columns[3], 16) & UNIX_ACCEPTING) inodes.add(columns[6]);
  }
  return inodes;
}

/** Inodes of sockets listening where `host:port` connects: that address, or the wildcard of its family. */
function tcpListeners(address: string): Set<string> | null {
  const match = /^\[?([^\]]+)\]?:(\d+)$/.exec(address);
  if (!match) return null;
  const host = match[1] === 'localhost' ? null : match[1];
  if (host !== null && isIP(host) === 0) return null;
  const port = Number(match[2]).toString(16).toUpperCase().padStart(4, '0');
  const wanted = new Set<string>();
  const addV4 = (ip: string) => {
    wanted.add(`${procHex(ipv4Bytes(ip))}:${port}`);
    wanted.add(`${procHex(Buffer.alloc(4))}:${port}`);
    wanted.add(`${procHex(Buffer.concat([Buffer.alloc(10), Buffer.from([0xff, 0xff]), ipv4Bytes(ip)]))}:${port}`);
    wanted.add(`${procHex(Buffer.alloc(16))}:${port}`);
  };
  const addV6 = (ip: string) => {
    wanted.add(`${procHex(ipv6Bytes(ip))}:${port}`);
    wanted.add(`${procHex(Buffer.alloc(16))}:${port}`);
  };
  if (host === null) {
    addV4('127.0.0.1');
    addV6('::1');
  } else if (isIP(host) === 4) addV4(host);
  else addV6(host);
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readLines(file)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const columns = line.trim().split(/\s+/);
      if (columns[3] === TCP_LISTEN && wanted.has(columns[1])) inodes.add(columns[9]);
    }
  }
  return inodes;
}

/** The kernel prints each 32-bit word of an address in host byte order. */
function procHex(bytes: Buffer): string {
  let hex = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const word = endianness() === 'LE' ? bytes.readUInt32LE(i) : bytes.readUInt32BE(i);
    hex += word.toString(16).toUpperCase().padStart(8, '0');
  }
  return hex;
}

function ipv4Bytes(ip: string): Buffer {
  return Buffer.from(ip.split('.').map(Number));
}

function ipv6Bytes(address: string): Buffer {
  // An embedded IPv4 tail (`::ffff:127.0.0.1`) is two more 16-bit groups.
  const ip = address.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_all, a: string, b: string, c: string, d: string) => `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  const [head, tail = ''] = ip.split('::');
  const words = (part: string) => (part === '' ? [] : part.split(':'));
  const left = words(head);
  const right = words(tail);
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(Number.parseInt(group, 16), i * 2));
  return bytes;
}

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(1);
  } catch {
    return [];
  }
}
