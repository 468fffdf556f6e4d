import { RE2JS } from 're2js';

/**
 * Regular expressions from plugin manifests (`pattern`, `patternProperties`) run on every
 * tool call, against arguments an agent chose. V8's backtracking engine takes exponential
 * time on patterns like `^(a+)+$`; RE2's automaton matches in time linear in the input, so
 * a manifest cannot stall agentctl or the backend with one pattern and one argument.
 *
 * The price is RE2's syntax: no backreferences and no lookaround. Such a pattern is refused
 * when the schema is compiled, naming what is unsupported. ECMA-262's `\uXXXX` and `\u{X…}`
 * escapes are written the RE2 way (`\x{…}`) before compiling, so the common Unicode patterns
 * of JSON Schema keep working.
 */

/** What ajv's `code.regExp` option asks of an engine: `test`, and a distinct `toString`. */
export interface LinearRegExp {
  test(input: string): boolean;
  toString(): string;
}

export class UnsupportedPatternError extends Error {}

export function linearRegExp(pattern: string, _flags?: string): LinearRegExp {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(rewriteUnicodeEscapes(pattern));
  } catch (error) {
    throw new UnsupportedPatternError(
      `pattern ${JSON.stringify(pattern)} cannot be used: Toolport matches patterns in linear time (RE2 syntax, ` +
        `no backreferences or lookaround): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { test: (input) => compiled.test(input), toString: () => `/${pattern}/` };
}

/** Why a pattern cannot be used, or undefined when it can. */
export function linearPatternProblem(pattern: string): string | undefined {
  try {
    linearRegExp(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** ajv's compiled code refers to the engine by name; `code` tells it which function this is. */
linearRegExp.code = 'linearRegExp';

/** `\uXXXX` and `\u{X…}` (not themselves escaped) become RE2's `\x{…}`. */
function rewriteUnicodeEscapes(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i];
    if (char !== '\\' || i + 1 >= pattern.length) {
      out += char;
      continue;
    }
    const next = pattern[i + 1];
    if (next === 'u') {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(i + 2));
      const plain = /^[0-9a-fA-F]{4}/.exec(pattern.slice(i + 2));
      if (braced !== null) {
        out += `\\x{${braced[1]}}`;
        i += 1 + braced[0].length;
        continue;
      }
      if (plain !== null) {
        out += `\\x{${plain[0]}}`;
        i += 1 + plain[0].length;
        continue;
      }
    }
    out += char + next;
    i += 1;
  }
  return out;
}
