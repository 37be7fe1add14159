// Validates a JUnit document against the vendored Jenkins schema (test/fixtures/junit/, junit-4.xsd,
// MIT). Not the Ant schema of 2011 (windyroad's JUnit.xsd as npm packages ship it): it has no
// `skipped` in a testcase, which the check's report needs for a kind a short run could not judge.
// xmllint compiled to WebAssembly: no system tool needed.
import fs from 'node:fs';
import path from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { ROOT } from '../helpers/cli.js';

export const SCHEMAS = ['jenkins-junit.xsd'].map((f) => ({ name: f, contents: fs.readFileSync(path.join(ROOT, 'test/fixtures/junit', f), 'utf8') }));

/** { schema: errors[] } for each schema the document fails; {} when it is valid. */
export async function junitErrors(xml) {
  const out = {};
  for (const s of SCHEMAS) {
    const r = await validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [{ fileName: s.name, contents: s.contents }] });
    if (!r.valid) out[s.name] = r.errors.map((e) => e.rawMessage ?? e.message);
  }
  return out;
}
