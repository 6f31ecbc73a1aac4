// Running the tools a test drives (pnpm, npm, node, tsc) as child processes, always with a time
// limit, and reading the README's code blocks, for tests that check what the docs promise.
import { execFile } from 'node:child_process';

export interface CommandResult {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end (or its time limit) and resolves with its exit status and output;
 * it never rejects on a non-zero exit, so that a test can show what the command printed.
 */
export function runCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({
          status,
          stdout: String(stdout),
          stderr: String(stderr) + (error && typeof error.code !== 'number' ? `\n${error.message}` : ''),
        });
      },
    );
  });
}

/** The result of a command that had to succeed; otherwise an error showing what it printed. */
export function succeeded(result: CommandResult): CommandResult {
  if (result.status !== 0) throw new Error(`exit ${result.status}\n${result.stdout}\n${result.stderr}`);
  return result;
}

/**
 * How to run the pnpm that runs these tests: the one that started them (`npm_execpath`, under
 * `pnpm test`), else `pnpm` from the PATH.
 */
export function pnpmCommand(): [string, string[]] {
  const pnpm = process.env.npm_execpath;
  return pnpm && /pnpm/.test(pnpm) ? [process.execPath, [pnpm]] : ['pnpm', []];
}

/** Runs pnpm (see {@link pnpmCommand}). */
export function runPnpm(args: string[], options: Parameters<typeof runCommand>[2] = {}): Promise<CommandResult> {
  const [command, prefix] = pnpmCommand();
  return runCommand(command, [...prefix, ...args], options);
}

/** The fenced code blocks of a Markdown text, with the language each names. */
export function codeBlocks(markdown: string): { lang: string; code: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));
}

/** The one code block that contains `marker`; an error when none or several do. */
export function codeBlockWith(markdown: string, marker: string): string {
  const found = codeBlocks(markdown).filter((block) => block.code.includes(marker));
  if (found.length !== 1) throw new Error(`expected one code block containing ${JSON.stringify(marker)}, found ${found.length}`);
  return found[0]!.code;
}
