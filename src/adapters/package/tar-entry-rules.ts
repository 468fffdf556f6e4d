import type { Violation } from '../../domain/errors';
import { PACKAGE_PATH, type PackageLimits } from './package-limits';
import { ancestorIn, entryPathProblem, hardlinkProblem, normalizeEntryPath, symlinkProblem } from './package-paths';

/** What the rules need from a tar header. */
export interface TarEntryHeader {
  path: string;
  type: string;
  size: number;
  linkpath?: string;
}

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/**
 * Judges tar entries one header at a time, counting unpacked bytes and entries, and
 * remembers every violation. Once anything is wrong, no later entry is admitted, so an
 * extraction driven by these rules writes nothing after the first problem.
 */
export class TarEntryRules {
  readonly violations: Violation[] = [];
  private bytes = 0;
  private entries = 0;
  private readonly symlinks = new Set<string>();
  /** Entry paths and hard-link targets, to check at the end that none goes through a symlink. */
  private readonly reached: Array<{ reported: string; path: string; what: string }> = [];
  private tooBig = false;

  constructor(private readonly limits: PackageLimits) {}

  /** True once the package can no longer be accepted whatever follows (a size cap was passed). */
  get exceeded(): boolean {
    return this.tooBig;
  }

  admit(header: TarEntryHeader): boolean {
    const before = this.violations.length;
    this.judge(header);
    return before === 0 && this.violations.length === 0;
  }

  /** Violations that need the whole archive: a path or hard link reaching through a symlink. */
  finish(): Violation[] {
    for (const { reported, path, what } of this.reached) {
      const link = ancestorIn(path, this.symlinks);
      if (link !== undefined) this.refuse(reported, `${what} goes through the symbolic link "${link}"`);
    }
    return this.violations;
  }

  private judge({ path: raw, type, size, linkpath }: TarEntryHeader): void {
    const pathProblem = entryPathProblem(raw);
    if (pathProblem) return this.refuse(raw, pathProblem);
    const path = normalizeEntryPath(raw);
    if (path === '' && type === 'Directory') return;
    if (path === '') return this.refuse(raw, 'an entry without a name');
    this.entries += 1;
    if (this.entries > this.limits.entries) return this.refuseAll(`the package has more than ${this.limits.entries} entries`);
    this.reached.push({ reported: raw, path, what: 'path' });
    if (FILE_TYPES.has(type)) {
      this.bytes += size;
      if (this.bytes > this.limits.unpackedBytes) {
        this.refuseAll(`the package is larger than ${this.limits.unpackedBytes} bytes unpacked`);
      }
      return;
    }
    if (type === 'Directory') return;
    if (type === 'SymbolicLink') {
      const problem = symlinkProblem(path, linkpath ?? '');
      if (problem) return this.refuse(raw, problem);
      this.symlinks.add(path);
      return;
    }
    if (type === 'Link') {
      const problem = hardlinkProblem(linkpath ?? '');
      if (problem) return this.refuse(raw, problem);
      this.reached.push({ reported: raw, path: normalizeEntryPath(linkpath ?? ''), what: 'hard link' });
      return;
    }
    this.refuse(raw, `unsupported entry type "${type}" (only files, folders and links)`);
  }

  /** The decompressed archive passed its cap before it ended. */
  archiveTooLarge(cap: number): void {
    this.refuseAll(`the archive is larger than ${cap} bytes once decompressed`);
  }

  private refuse(path: string, message: string): void {
    this.violations.push({ path, message });
  }

  private refuseAll(message: string): void {
    if (!this.tooBig) this.refuse(PACKAGE_PATH, message);
    this.tooBig = true;
  }
}
