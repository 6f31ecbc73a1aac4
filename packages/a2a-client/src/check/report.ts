// The report of `a2a check`, for people (text grouped by version and binding, each failure with
// its requests and answers) and for CI (JUnit XML: a test suite per version and binding, a test
// case per check, a failure per failed check, a skip per skipped one).
import type { CheckReport, CheckResult } from './run.js';
import type { Exchange } from './prober.js';

export interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

const plain: Paint = { bold: (t) => t, dim: (t) => t, red: (t) => t, green: (t) => t, yellow: (t) => t };

/** Most characters of a request's or an answer's body shown under a failure. */
const SHOWN_BODY = 600;

export function textReport(report: CheckReport, paint: Paint = plain): string {
  const lines: string[] = [];
  lines.push(paint.bold(`a2a check ${report.agent}`));
  for (const card of report.cards) lines.push(paint.dim(`  ${card.version} card: ${card.url}`));
  for (const failure of report.unreadable) lines.push(paint.yellow(`  unreadable: ${failure.url}: ${failure.reason}`));
  for (const limit of report.limits) lines.push(paint.yellow(`  not checked: ${limit}`));
  if (report.credentialsWithheld.length > 0)
    lines.push(
      paint.yellow(
        `  the headers given were not sent to ${report.credentialsWithheld.join(', ')}: not the agent's origin (--send-headers-to trusts one)`,
      ),
    );
  if (report.cards.length === 0) lines.push(paint.red('  no card found: is this an A2A agent?'));
  for (const [group, results] of groups(report.results)) {
    lines.push('', paint.bold(group));
    for (const result of results) {
      const mark = result.outcome === 'passed' ? paint.green('✓') : result.outcome === 'skipped' ? paint.dim('-') : paint.red('✗');
      lines.push(`  ${mark} ${result.title} ${paint.dim(`[${result.level}, ${result.section}] ${result.id}`)}`);
      if (result.outcome === 'skipped') lines.push(paint.dim(`      skipped: ${result.reason}`));
      if (result.outcome === 'failed') {
        lines.push(paint.red(`      ${result.reason}`));
        for (const exchange of result.exchanges.slice(-3)) lines.push(...exchangeLines(exchange).map((line) => paint.dim(`      ${line}`)));
      }
    }
  }
  const { passed, failed, skipped } = report.counts;
  const count = (cleanup: string) => report.tasks.filter((t) => t.cleanup === cleanup).length;
  const left = count('left');
  lines.push(
    '',
    `${paint.bold(`${passed} passed, ${failed} failed, ${skipped} skipped`)}${report.mustFailed ? paint.red(' (a MUST failed)') : ''}; ` +
      `${report.tasks.length} tasks started: ${count('ended')} had ended, ${count('canceled')} canceled${left ? paint.yellow(`, ${left} could not be canceled`) : ''}`,
  );
  return lines.join('\n');
}

function exchangeLines(exchange: Exchange): string[] {
  const { request, response, error } = exchange;
  const lines = [`> ${request.method} ${request.url}`];
  if (request.body !== undefined) lines.push(`> ${clip(request.body)}`);
  if (error) lines.push(`< (no answer: ${error})`);
  if (response) lines.push(`< ${response.status} ${response.headers['content-type'] ?? ''}`, `< ${clip(response.body)}`);
  return lines;
}

const clip = (text: string) =>
  (text.length > SHOWN_BODY ? `${text.slice(0, SHOWN_BODY)}… (${text.length} characters)` : text).replace(/\n/g, '\\n');

function groups(results: readonly CheckResult[]): Map<string, CheckResult[]> {
  const byGroup = new Map<string, CheckResult[]>();
  for (const result of results) {
    const name = result.binding === 'card' ? `A2A ${result.version}, card` : `A2A ${result.version}, ${result.binding}`;
    const list = byGroup.get(name) ?? [];
    list.push(result);
    byGroup.set(name, list);
  }
  return byGroup;
}

export function junitReport(report: CheckReport): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(
    `<testsuites name="${xml(`a2a check ${report.agent}`)}" tests="${report.results.length}" failures="${report.counts.failed}" skipped="${report.counts.skipped}">`,
  );
  for (const [group, results] of groups(report.results)) {
    const failures = results.filter((r) => r.outcome === 'failed').length;
    const skipped = results.filter((r) => r.outcome === 'skipped').length;
    const seconds = results.reduce((sum, r) => sum + r.ms, 0) / 1000;
    lines.push(
      `  <testsuite name="${xml(group)}" tests="${results.length}" failures="${failures}" skipped="${skipped}" time="${seconds.toFixed(3)}">`,
    );
    for (const result of results) {
      const open = `    <testcase classname="${xml(group)}" name="${xml(`${result.id}: ${result.title} [${result.level}, ${result.section}]`)}" time="${(result.ms / 1000).toFixed(3)}"`;
      if (result.outcome === 'passed') {
        lines.push(`${open}/>`);
        continue;
      }
      lines.push(`${open}>`);
      if (result.outcome === 'skipped') lines.push(`      <skipped message="${xml(result.reason ?? '')}"/>`);
      else
        lines.push(
          `      <failure message="${xml(result.reason ?? '')}" type="${result.level}">${xml(result.exchanges.flatMap(exchangeLines).join('\n'))}</failure>`,
        );
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

function xml(text: string): string {
  // Characters XML 1.0 cannot hold at all are dropped; the rest escaped.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
  const allowed = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');
  return allowed.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
