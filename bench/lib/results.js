// Writes one bench's section of bench/RESULTS.md, between `<!-- NAME:start -->` and
// `<!-- NAME:end -->`, leaving every other section (other benches, other engineers') untouched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The commit a checkout of nodesup is at, and whether its src/, bench/ or bin/ differed from it;
 * null outside git. `dir` defaults to this checkout.
 */
export function commitOf(dir = ROOT) {
  try {
    const git = (...args) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const head = git('rev-parse', '--short', 'HEAD').trim();
    const dirty = git('status', '--porcelain', '--', 'src', 'bench', 'bin', 'package.json')
      .split('\n').filter((l) => l.trim() && !l.endsWith('bench/RESULTS.md')).length;
    return dirty ? `${head} with ${dirty} uncommitted file(s) in src/, bench/ or bin/` : head;
  } catch {
    return null;
  }
}

/**
 * The lines every section starts with: how to rerun it and on what it ran. With `old` (the
 * directory given to --old) both commits are named: a side by side means nothing without them.
 */
export function provenance({ command, quick, old = null }) {
  const cpus = os.cpus();
  const here = commitOf();
  const lines = [`Command: \`${command}\`${here ? ` at commit ${here}` : ''}`];
  if (old) {
    const there = commitOf(old) ?? 'an unknown commit (not a git checkout)';
    lines.push('', `Old: DIR is a checkout of nodesup at ${there} (\`git worktree add DIR <commit>\`, then \`npm ci\` inside it); new: this checkout${here ? `, at ${here}` : ''}.`);
  }
  lines.push('', `Run: ${new Date().toISOString()} · node ${process.version} · ${cpus.length} CPUs (${cpus[0]?.model?.trim() ?? 'unknown'}) · ${os.platform()} ${os.release()} · ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB RAM`);
  if (quick) lines.push('', '**Smoke run (`--quick`): proves the script works; these numbers are not results.**');
  return lines.join('\n');
}

/** A markdown table from a header row and rows of cells. */
export function table(header, rows) {
  const line = (cells) => `| ${cells.map((c) => String(c ?? '-').replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Replace (or append) the section NAME in file with body; atomic rename so readers never see half. */
export function writeSection(file, name, body) {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  let text = '';
  try { text = fs.readFileSync(file, 'utf8'); } catch (err) { if (err.code !== 'ENOENT') throw err; }
  if (!text.trim()) text = '# Benchmark results\n';
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i >= 0 && j > i) text = text.slice(0, i) + block + text.slice(j + end.length);
  else text = `${text.trimEnd()}\n\n${block}\n`;
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** Print the section, and write it when asked. */
export function publish(opts, name, title, body) {
  const section = `## ${title}\n\n${provenance(opts)}\n\n${body.trim()}\n`;
  process.stdout.write(`\n${section}\n`);
  if (opts.write) {
    writeSection(opts.results, name, section);
    process.stdout.write(`(wrote section "${name}" of ${opts.results})\n`);
  }
}
